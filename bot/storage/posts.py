"""Question posts: which question, in which choice order, on which message."""

from __future__ import annotations

from dataclasses import dataclass

from .db import Database


@dataclass(frozen=True, slots=True)
class Post:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    question_id: str
    order: tuple[int, ...]
    language: str
    kind: str
    created_at: int
    closes_at: int | None
    closed_at: int | None
    answer_count: int
    #: Local date ('YYYY-MM-DD') of a daily post (kind 'daily'); None for other posts.
    daily_date: str | None = None
    #: Drawn parameters of a computed question (JSON, see bot.quiz.templates); else None.
    params: str | None = None


_COLUMNS = (
    "id, guild_id, channel_id, message_id, question_id, choice_order, language, kind,"
    " created_at, closes_at, closed_at, answer_count, daily_date, params"
)


def _post(row: object) -> Post:
    values = list(row)  # type: ignore[call-overload]
    values[5] = tuple(int(i) for i in values[5].split(","))
    return Post(*values)


class PostStore:
    def __init__(self, db: Database) -> None:
        self.db = db

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
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM posts WHERE id = ? AND answer_count = 0", (post_id,))

    async def get(self, post_id: int) -> Post | None:
        # Read on every click: one trip to aiosqlite's thread instead of three.
        rows = await self.db.conn.execute_fetchall(
            f"SELECT {_COLUMNS} FROM posts WHERE id = ?", (post_id,)
        )
        row = next(iter(rows), None)
        return _post(row) if row is not None else None

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
