"""Question posts: which question, in which choice order, on which message (PostsContract).

One store for both backends over `Executor` (bot/storage/sql.py). The `Post` record, its
columns and its row mapping are bot/storage/records.py's. `create` gets the new row from
`RETURNING` in the insert itself. Open posts are kept in memory for the click path
(`for_click`), one memory per process: what a click reads of a post never changes.
"""

from __future__ import annotations

from collections import OrderedDict

from bot.storage.records import CLICK_CACHE_SIZE, POST_COLUMNS, Post, post_of
from bot.storage.sql import Executor, Query

__all__ = ["CHOICE_COUNTS", "PostStore"]

_CREATE = Query(
    "INSERT INTO posts (guild_id, channel_id, question_id, choice_order, language, kind,"
    " created_at, closes_at, params) VALUES (:guild, :channel, :question, :order, :language,"
    f" :kind, :now, :closes_at, :params) RETURNING {POST_COLUMNS}"
)
_SET_MESSAGE = Query("UPDATE posts SET message_id = :message WHERE id = :post")
_DELETE = Query("DELETE FROM posts WHERE id = :post AND answer_count = 0")
_GET = Query(f"SELECT {POST_COLUMNS} FROM posts WHERE id = :post")
_RECENT = Query(
    "SELECT question_id FROM posts WHERE guild_id = :guild ORDER BY id DESC LIMIT :limit"
)
#: How many members chose each choice index on a post (also read when a daily post closes).
CHOICE_COUNTS = Query(
    "SELECT choice_index, COUNT(*) FROM answers WHERE post_id = :post GROUP BY choice_index"
)


class PostStore:
    def __init__(self, db: Executor) -> None:
        self.db = db
        self._open: OrderedDict[int, Post] = OrderedDict()

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        question_id: str,
        order: tuple[int, ...],
        language: str,
        now_ms: int,
        kind: str = "question",
        closes_at: int | None = None,
        params: str | None = None,
    ) -> Post:
        async with self.db.transaction() as tx:
            row = await tx.fetch_one(
                _CREATE,
                guild=guild_id,
                channel=channel_id,
                question=question_id,
                order=",".join(map(str, order)),
                language=language,
                kind=kind,
                now=now_ms,
                closes_at=closes_at,
                params=params,
            )
        assert row is not None
        return post_of(row)

    async def set_message(self, post_id: int, message_id: int) -> None:
        await self.db.execute(_SET_MESSAGE, message=message_id, post=post_id)

    async def delete(self, post_id: int) -> None:
        """Forget a post whose message could not be sent (it has no answers)."""
        self.forget(post_id)
        await self.db.execute(_DELETE, post=post_id)

    async def for_click(self, post_id: int) -> Post | None:
        """The post a click is on, from memory when it was read before and still open.

        What a click needs of its post (server, question, choice order, kind, numbers)
        never changes once the post exists, so the bot keeps open posts in memory and a
        click costs no trip to read it (each process its own copy). Whether the post is
        still open, and still there, is decided again inside the click's transaction
        (bot/storage/sqlite/clicks.py, bot/storage/pg/clicks.py); a post found closed or
        gone there is dropped from memory (`forget`). `answer_count` and `closed_at` of a
        remembered post are as first read: not for display.
        """
        post = self._open.get(post_id)
        if post is not None:
            self._open.move_to_end(post_id)
            return post
        post = await self.get(post_id)
        if post is not None and post.closed_at is None:
            self._open[post_id] = post
            if len(self._open) > CLICK_CACHE_SIZE:
                self._open.popitem(last=False)
        return post

    def forget(self, post_id: int) -> None:
        """Drop a post from the click path's memory (it closed, or was deleted)."""
        self._open.pop(post_id, None)

    async def get(self, post_id: int) -> Post | None:
        # Read on a click whose post is not in memory: one trip (SqliteExecutor.fetch).
        row = await self.db.fetch_one(_GET, post=post_id)
        return post_of(row) if row is not None else None

    async def recent_question_ids(self, guild_id: int, limit: int) -> list[str]:
        """Question ids of the server's latest posts, newest first."""
        rows = await self.db.fetch(_RECENT, guild=guild_id, limit=limit)
        return [row[0] for row in rows]

    async def choice_counts(self, post_id: int) -> dict[int, int]:
        """How many members chose each choice index on a post."""
        rows = await self.db.fetch(CHOICE_COUNTS, post=post_id)
        return {int(c): int(n) for c, n in rows}
