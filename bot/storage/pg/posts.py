"""Question posts on PostgreSQL: the twin of bot/storage/sqlite/posts.py (PostsContract).

The rows and the `Post` they make are bot/storage/records.py's (`POST_COLUMNS`,
`post_of`), so both backends return equal objects for equal rows. `create` gets the new id from
`RETURNING` in the same statement instead of SQLite's lastrowid.
"""

from __future__ import annotations

from collections import OrderedDict

from bot.storage.pg.db import PgDatabase
from bot.storage.records import CLICK_CACHE_SIZE, POST_COLUMNS, Post, post_of


class PgPostStore:
    def __init__(self, db: PgDatabase) -> None:
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
        async with self.db.transaction() as conn:
            row = await conn.fetchrow(
                "INSERT INTO posts (guild_id, channel_id, question_id, choice_order, language,"
                " kind, created_at, closes_at, params)"
                f" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING {POST_COLUMNS}",
                guild_id,
                channel_id,
                question_id,
                ",".join(map(str, order)),
                language,
                kind,
                now_ms,
                closes_at,
                params,
            )
        assert row is not None
        return post_of(row)

    async def set_message(self, post_id: int, message_id: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE posts SET message_id = $1 WHERE id = $2", message_id, post_id
            )

    async def delete(self, post_id: int) -> None:
        """Forget a post whose message could not be sent (it has no answers)."""
        self.forget(post_id)
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM posts WHERE id = $1 AND answer_count = 0", post_id)

    async def for_click(self, post_id: int) -> Post | None:
        """The post a click is on, from memory when it was read before and still open.

        As on SQLite (PostStore.for_click): what a click reads of a post never changes,
        so each process may keep its own copy; whether the post is still open is decided
        in the click's transaction, which drops a closed or gone one (`forget`).
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
        row = await self.db.fetchrow(f"SELECT {POST_COLUMNS} FROM posts WHERE id = $1", post_id)
        return post_of(row) if row is not None else None

    async def recent_question_ids(self, guild_id: int, limit: int) -> list[str]:
        """Question ids of the server's latest posts, newest first."""
        rows = await self.db.fetch(
            "SELECT question_id FROM posts WHERE guild_id = $1 ORDER BY id DESC LIMIT $2",
            guild_id,
            limit,
        )
        return [row[0] for row in rows]

    async def choice_counts(self, post_id: int) -> dict[int, int]:
        """How many members chose each choice index on a post."""
        rows = await self.db.fetch(
            "SELECT choice_index, COUNT(*) FROM answers WHERE post_id = $1 GROUP BY choice_index",
            post_id,
        )
        return {int(c): int(n) for c, n in rows}
