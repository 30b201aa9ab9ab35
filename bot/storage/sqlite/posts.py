"""Question posts: which question, in which choice order, on which message.

The `Post` record, its columns and its row mapping are bot/storage/records.py's, shared
with the PostgreSQL twin (bot/storage/pg/posts.py).
"""

from __future__ import annotations

from collections import OrderedDict

from bot.storage.records import CLICK_CACHE_SIZE, POST_COLUMNS, Post, post_of
from bot.storage.sqlite.db import Database


class PostStore:
    def __init__(self, db: Database) -> None:
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
            cur = await conn.execute(
                "INSERT INTO posts (guild_id, channel_id, question_id, choice_order, language,"
                " kind, created_at, closes_at, params) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    guild_id,
                    channel_id,
                    question_id,
                    ",".join(map(str, order)),
                    language,
                    kind,
                    now_ms,
                    closes_at,
                    params,
                ),
            )
            post_id = cur.lastrowid
        post = await self.get(int(post_id or 0))
        assert post is not None
        return post

    async def set_message(self, post_id: int, message_id: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE posts SET message_id = ? WHERE id = ?", (message_id, post_id)
            )

    async def delete(self, post_id: int) -> None:
        """Forget a post whose message could not be sent (it has no answers)."""
        self.forget(post_id)
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM posts WHERE id = ? AND answer_count = 0", (post_id,))

    async def for_click(self, post_id: int) -> Post | None:
        """The post a click is on, from memory when it was read before and still open.

        What a click needs of its post (server, question, choice order, kind, numbers)
        never changes once the post exists, so the bot keeps open posts in memory and a
        click costs no trip to read it. Whether the post is still open, and still there,
        is decided again inside the click's transaction (bot/storage/sqlite/clicks.py); a post
        found closed or gone there is dropped from memory (`forget`). `answer_count` and
        `closed_at` of a remembered post are as first read: not for display.
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
        # Read on every click: one trip to aiosqlite's thread instead of three.
        rows = await self.db.conn.execute_fetchall(
            f"SELECT {POST_COLUMNS} FROM posts WHERE id = ?", (post_id,)
        )
        row = next(iter(rows), None)
        return post_of(row) if row is not None else None

    async def recent_question_ids(self, guild_id: int, limit: int) -> list[str]:
        """Question ids of the server's latest posts, newest first."""
        async with self.db.conn.execute(
            "SELECT question_id FROM posts WHERE guild_id = ? ORDER BY id DESC LIMIT ?",
            (guild_id, limit),
        ) as cur:
            return [row[0] for row in await cur.fetchall()]

    async def choice_counts(self, post_id: int) -> dict[int, int]:
        """How many members chose each choice index on a post."""
        async with self.db.conn.execute(
            "SELECT choice_index, COUNT(*) FROM answers WHERE post_id = ? GROUP BY choice_index",
            (post_id,),
        ) as cur:
            return {int(c): int(n) for c, n in await cur.fetchall()}
