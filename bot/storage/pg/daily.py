"""Daily question posts on PostgreSQL: the twin of bot/storage/sqlite/daily.py (DailyContract).

Why it is safe with several processes ticking at once (issue 15: every process runs the
daily scheduler for its shards, and a shard may move between processes):

- `claim`: the conditional `UPDATE daily_settings ... WHERE last_date < day` takes the
  server's settings row lock; a second claimer waits for the first to commit and then,
  at READ COMMITTED, re-checks the condition against the committed row, finds the day
  taken and gets no row: None, nothing sent. The slot's primary key is the second guard
  (a unique violation is answered None, as SQLite's IntegrityError is).
- `close`: `UPDATE posts SET closed_at ... WHERE closed_at IS NULL` takes the post's row
  lock, which every click on the post takes first (bot/storage/pg/clicks.py). So the
  choice counts, read after it in the same transaction, include every click committed
  before the close, and no click is recorded after it: of two closers only one gets the
  counts, the other None.

The rows and objects are bot/storage/records.py's (`DailySettings`, `Post`) and the
rules' (`DailyStreak`), so both backends return equal values for equal rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

import asyncpg

from bot.quiz.click import DailyStreak
from bot.quiz.schedule import current_daily_streak
from bot.storage.pg.db import PgDatabase
from bot.storage.records import (
    DAILY_SETTINGS_COLUMNS,
    POST_COLUMNS,
    DailySettings,
    Post,
    daily_settings_of,
    post_of,
)

_CLEAR_ERROR = (
    "error_code = NULL, error_status = NULL, error_text = NULL, error_channel = NULL,"
    " error_at = NULL"
)


class PgDailyStore:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    # -- settings --------------------------------------------------------------------

    async def get(self, guild_id: int) -> DailySettings | None:
        row = await self.db.fetchrow(
            f"SELECT {DAILY_SETTINGS_COLUMNS} FROM daily_settings WHERE guild_id = $1", guild_id
        )
        return daily_settings_of(row) if row is not None else None

    async def enabled(self) -> list[DailySettings]:
        """Every server with daily posts on (read each tick; the due check is in Python)."""
        rows = await self.db.fetch(
            f"SELECT {DAILY_SETTINGS_COLUMNS} FROM daily_settings WHERE enabled = 1"
            " ORDER BY guild_id"
        )
        return [daily_settings_of(row) for row in rows]

    async def set_schedule(
        self,
        guild_id: int,
        *,
        channel_id: int,
        post_time: str,
        timezone: str,
        now_ms: int,
        open_closes_at: int | None = None,
    ) -> None:
        """Turn daily posts on with this channel, time and zone (see DailyStore)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO daily_settings (guild_id, channel_id, enabled, post_time, timezone,"
                " schedule_set_at) VALUES ($1, $2, 1, $3, $4, $5)"
                " ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id,"
                " enabled = 1, post_time = excluded.post_time, timezone = excluded.timezone,"
                f" schedule_set_at = excluded.schedule_set_at, {_CLEAR_ERROR}",
                guild_id,
                channel_id,
                post_time,
                timezone,
                now_ms,
            )
            if open_closes_at is not None:
                await conn.execute(
                    "UPDATE posts SET closes_at = $1 WHERE guild_id = $2 AND kind = 'daily'"
                    " AND closed_at IS NULL",
                    open_closes_at,
                    guild_id,
                )

    async def disable(self, guild_id: int, *, close_after_ms: int) -> bool:
        """Turn daily posts off; True if they were on (see DailyStore)."""
        async with self.db.transaction() as conn:
            status = await conn.execute(
                "UPDATE daily_settings SET enabled = 0 WHERE guild_id = $1 AND enabled = 1",
                guild_id,
            )
            await conn.execute(
                "UPDATE posts SET closes_at = created_at + $1 WHERE guild_id = $2"
                " AND kind = 'daily' AND closed_at IS NULL",
                close_after_ms,
                guild_id,
            )
        return _rowcount(status) == 1

    async def set_role(self, guild_id: int, role_id: int | None) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO daily_settings (guild_id, role_id) VALUES ($1, $2)"
                " ON CONFLICT (guild_id) DO UPDATE SET role_id = excluded.role_id",
                guild_id,
                role_id,
            )

    # -- slots -----------------------------------------------------------------------

    async def history(self, guild_id: int) -> list[tuple[str, int]]:
        """(question id, round) of the server's delivered daily posts, newest first."""
        rows = await self.db.fetch(
            "SELECT question_id, round FROM daily_slots WHERE guild_id = $1 AND status = 'sent'"
            " ORDER BY local_date DESC",
            guild_id,
        )
        return [(str(q), int(r)) for q, r in rows]

    async def claim(
        self,
        guild_id: int,
        local_date: str,
        *,
        channel_id: int,
        question_id: str,
        round_: int,
        order: tuple[int, ...],
        language: str,
        now_ms: int,
        closes_at: int,
        params: str | None = None,
    ) -> Post | None:
        """Take the slot of (server, local date) and create its post, or return None
        (the day or a later one was claimed already, by this process or another)."""
        try:
            async with self.db.transaction() as conn:
                status = await conn.execute(
                    "UPDATE daily_settings SET last_date = $1 WHERE guild_id = $2"
                    " AND (last_date IS NULL OR last_date < $1)",
                    local_date,
                    guild_id,
                )
                if _rowcount(status) != 1:
                    return None
                await conn.execute(
                    "INSERT INTO daily_slots (guild_id, local_date, question_id, round, status,"
                    " claimed_at) VALUES ($1, $2, $3, $4, 'claimed', $5)",
                    guild_id,
                    local_date,
                    question_id,
                    round_,
                    now_ms,
                )
                row = await conn.fetchrow(
                    "INSERT INTO posts (guild_id, channel_id, question_id, choice_order, language,"
                    " kind, created_at, closes_at, daily_date, params)"
                    " VALUES ($1, $2, $3, $4, $5, 'daily', $6, $7, $8, $9)"
                    f" RETURNING {POST_COLUMNS}",
                    guild_id,
                    channel_id,
                    question_id,
                    ",".join(map(str, order)),
                    language,
                    now_ms,
                    closes_at,
                    local_date,
                    params,
                )
                assert row is not None
                post = post_of(row)
                await conn.execute(
                    "UPDATE daily_slots SET post_id = $1 WHERE guild_id = $2 AND local_date = $3",
                    post.id,
                    guild_id,
                    local_date,
                )
        except asyncpg.UniqueViolationError:
            return None  # the slot's primary key: someone else holds this day
        return post

    async def delivered(self, post: Post, message_id: int) -> list[Post]:
        """The post reached Discord: remember its message, clear the server's error, and
        return the server's older open daily posts (which this one closes)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE posts SET message_id = $1 WHERE id = $2", message_id, post.id
            )
            await conn.execute("UPDATE daily_slots SET status = 'sent' WHERE post_id = $1", post.id)
            await conn.execute(
                f"UPDATE daily_settings SET {_CLEAR_ERROR} WHERE guild_id = $1", post.guild_id
            )
        rows = await self.db.fetch(
            f"SELECT {POST_COLUMNS} FROM posts WHERE guild_id = $1 AND kind = 'daily'"
            " AND closed_at IS NULL AND id < $2 ORDER BY id",
            post.guild_id,
            post.id,
        )
        return [post_of(row) for row in rows]

    async def failed(
        self,
        post: Post,
        *,
        code: int | None,
        status: int | None,
        text: str,
        now_ms: int,
    ) -> None:
        """The post could not be sent: keep the day's slot, forget the post row, and
        store the error for `/tpquiz-admin settings` (see DailyStore)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE daily_slots SET status = 'failed', post_id = NULL WHERE post_id = $1",
                post.id,
            )
            await conn.execute(
                "DELETE FROM posts WHERE id = $1 AND answer_count = 0 AND message_id IS NULL",
                post.id,
            )
            await conn.execute(
                "UPDATE daily_settings SET error_code = $1, error_status = $2, error_text = $3,"
                " error_channel = $4, error_at = $5 WHERE guild_id = $6",
                code,
                status,
                text[:500],
                post.channel_id,
                now_ms,
                post.guild_id,
            )

    async def slot(self, guild_id: int, local_date: str) -> tuple[str, int | None] | None:
        """(status, post id) of one day's slot, or None when the day was never claimed."""
        row = await self.db.fetchrow(
            "SELECT status, post_id FROM daily_slots WHERE guild_id = $1 AND local_date = $2",
            guild_id,
            local_date,
        )
        return (str(row[0]), row[1]) if row is not None else None

    # -- closing ---------------------------------------------------------------------

    async def due_to_close(self, now_ms: int) -> list[Post]:
        """Open daily posts whose closing time has come, in every server."""
        rows = await self.db.fetch(
            f"SELECT {POST_COLUMNS} FROM posts WHERE kind = 'daily' AND closed_at IS NULL"
            " AND closes_at <= $1 ORDER BY id",
            now_ms,
        )
        return [post_of(row) for row in rows]

    async def close(self, post_id: int, now_ms: int) -> tuple[Post, dict[int, int]] | None:
        """Close a daily post: the closed post and how many members chose each choice
        index, read in the transaction that closes it. None when it was already closed
        (so of two closers, in any processes, only one edits the message)."""
        async with self.db.transaction() as conn:
            row = await conn.fetchrow(
                "UPDATE posts SET closed_at = $1 WHERE id = $2 AND closed_at IS NULL"
                f" RETURNING {POST_COLUMNS}",
                now_ms,
                post_id,
            )
            if row is None:
                return None
            # A new statement: at READ COMMITTED it sees every click committed before
            # this transaction took the post's row lock (the clicks take it first).
            counts = await conn.fetch(
                "SELECT choice_index, COUNT(*) FROM answers WHERE post_id = $1"
                " GROUP BY choice_index",
                post_id,
            )
        return post_of(row), {int(c): int(n) for c, n in counts}

    async def latest_open(self, guild_id: int) -> Post | None:
        row = await self.db.fetchrow(
            f"SELECT {POST_COLUMNS} FROM posts WHERE guild_id = $1 AND kind = 'daily'"
            " AND closed_at IS NULL ORDER BY id DESC LIMIT 1",
            guild_id,
        )
        return post_of(row) if row is not None else None

    # -- streaks ---------------------------------------------------------------------

    async def streak(self, guild_id: int, user_id: int) -> DailyStreak | None:
        row = await self.db.fetchrow(
            "SELECT last_date, streak, best FROM daily_streaks WHERE guild_id = $1"
            " AND user_id = $2",
            guild_id,
            user_id,
        )
        return DailyStreak(str(row[0]), int(row[1]), int(row[2])) if row is not None else None

    async def streaks(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, DailyStreak]:
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        rows = await self.db.fetch(
            "SELECT user_id, last_date, streak, best FROM daily_streaks"
            " WHERE guild_id = $1 AND user_id = ANY($2::bigint[])",
            guild_id,
            ids,
        )
        return {int(u): DailyStreak(str(d), int(s), int(b)) for u, d, s, b in rows}

    async def current_streaks(
        self, guild_id: int, user_ids: Iterable[int]
    ) -> dict[int, tuple[int, int]]:
        """user id -> (current daily streak, best), for members with a daily answer
        (see DailyStore.current_streaks: a missed closed day makes it 0)."""
        stored = await self.streaks(guild_id, user_ids)
        if not stored:
            return {}
        closed = await self.last_closed_date(guild_id)
        last_closed = date.fromisoformat(closed) if closed else None
        return {
            user_id: (
                current_daily_streak(s.streak, date.fromisoformat(s.last_date), last_closed),
                s.best,
            )
            for user_id, s in stored.items()
        }

    async def last_closed_date(self, guild_id: int) -> str | None:
        """Local date of the server's latest delivered daily post that has closed."""
        row = await self.db.fetchrow(
            "SELECT MAX(s.local_date) FROM daily_slots s JOIN posts p ON p.id = s.post_id"
            " WHERE s.guild_id = $1 AND s.status = 'sent' AND p.closed_at IS NOT NULL",
            guild_id,
        )
        return row[0] if row is not None else None


def _rowcount(status: str) -> int:
    """The row count of asyncpg's command status ('UPDATE 1' -> 1)."""
    return int(status.rsplit(" ", 1)[-1])
