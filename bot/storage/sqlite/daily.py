"""Daily question posts: schedules, per-day slots, delivery errors and daily streaks.

The one rule this store enforces on its own is "one post per server and local day":
`claim` takes the day's slot (a primary key on (guild, local date), plus a conditional
UPDATE of the server's last date) and creates the post row in the same transaction,
before anything is sent to Discord. Whoever loses the race gets None and sends nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import date

from bot.quiz.click import DailyStreak
from bot.quiz.schedule import current_daily_streak
from bot.storage.records import (
    DAILY_SETTINGS_COLUMNS,
    POST_COLUMNS,
    DailySettings,
    Post,
    daily_settings_of,
    post_of,
)
from bot.storage.sqlite.db import Database


class DailyStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- settings --------------------------------------------------------------------

    async def get(self, guild_id: int) -> DailySettings | None:
        async with self.db.conn.execute(
            f"SELECT {DAILY_SETTINGS_COLUMNS} FROM daily_settings WHERE guild_id = ?", (guild_id,)
        ) as cur:
            row = await cur.fetchone()
        return daily_settings_of(row) if row else None

    async def enabled(self) -> list[DailySettings]:
        """Every server with daily posts on (read each tick; the due check is in Python)."""
        async with self.db.conn.execute(
            f"SELECT {DAILY_SETTINGS_COLUMNS} FROM daily_settings WHERE enabled = 1"
            " ORDER BY guild_id"
        ) as cur:
            return [daily_settings_of(row) for row in await cur.fetchall()]

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
        """Turn daily posts on with this channel, time and zone.

        The previous delivery error is cleared (it was about the old settings). An open
        daily post gets `open_closes_at`, so it closes when the new schedule's next post
        goes out rather than at the old time.
        """
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO daily_settings (guild_id, channel_id, enabled, post_time, timezone,"
                " schedule_set_at) VALUES (?, ?, 1, ?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id,"
                " enabled = 1, post_time = excluded.post_time, timezone = excluded.timezone,"
                " schedule_set_at = excluded.schedule_set_at, error_code = NULL,"
                " error_status = NULL, error_text = NULL, error_channel = NULL, error_at = NULL",
                (guild_id, channel_id, post_time, timezone, now_ms),
            )
            if open_closes_at is not None:
                await conn.execute(
                    "UPDATE posts SET closes_at = ? WHERE guild_id = ? AND kind = 'daily'"
                    " AND closed_at IS NULL",
                    (open_closes_at, guild_id),
                )

    async def disable(self, guild_id: int, *, close_after_ms: int) -> bool:
        """Turn daily posts off; True if they were on. With no next post to close it, an
        open daily post closes `close_after_ms` after it was posted."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE daily_settings SET enabled = 0 WHERE guild_id = ? AND enabled = 1",
                (guild_id,),
            )
            changed = cur.rowcount == 1
            await conn.execute(
                "UPDATE posts SET closes_at = created_at + ? WHERE guild_id = ?"
                " AND kind = 'daily' AND closed_at IS NULL",
                (close_after_ms, guild_id),
            )
        return changed

    async def set_role(self, guild_id: int, role_id: int | None) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO daily_settings (guild_id, role_id) VALUES (?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET role_id = excluded.role_id",
                (guild_id, role_id),
            )

    # -- slots -----------------------------------------------------------------------

    async def history(self, guild_id: int) -> list[tuple[str, int]]:
        """(question id, round) of the server's delivered daily posts, newest first."""
        async with self.db.conn.execute(
            "SELECT question_id, round FROM daily_slots WHERE guild_id = ? AND status = 'sent'"
            " ORDER BY local_date DESC",
            (guild_id,),
        ) as cur:
            return [(str(q), int(r)) for q, r in await cur.fetchall()]

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
        """Take the slot of (server, local date) and create its post, or return None.

        None when the day (or a later one) was already claimed: by an earlier tick, by
        `daily now`, or by an overlapping tick that got here first. The conditional
        UPDATE and the slot's primary key each make a second claim fail; both run in one
        transaction with the post's INSERT, so a claim never exists without its post.
        """
        try:
            async with self.db.transaction() as conn:
                cur = await conn.execute(
                    "UPDATE daily_settings SET last_date = ? WHERE guild_id = ?"
                    " AND (last_date IS NULL OR last_date < ?)",
                    (local_date, guild_id, local_date),
                )
                if cur.rowcount != 1:
                    return None
                await conn.execute(
                    "INSERT INTO daily_slots (guild_id, local_date, question_id, round, status,"
                    " claimed_at) VALUES (?, ?, ?, ?, 'claimed', ?)",
                    (guild_id, local_date, question_id, round_, now_ms),
                )
                cur = await conn.execute(
                    "INSERT INTO posts (guild_id, channel_id, question_id, choice_order, language,"
                    " kind, created_at, closes_at, daily_date, params)"
                    " VALUES (?, ?, ?, ?, ?, 'daily', ?, ?, ?, ?)",
                    (
                        guild_id,
                        channel_id,
                        question_id,
                        ",".join(map(str, order)),
                        language,
                        now_ms,
                        closes_at,
                        local_date,
                        params,
                    ),
                )
                post_id = int(cur.lastrowid or 0)
                await conn.execute(
                    "UPDATE daily_slots SET post_id = ? WHERE guild_id = ? AND local_date = ?",
                    (post_id, guild_id, local_date),
                )
        except sqlite3.IntegrityError:
            return None  # the slot's primary key: someone else holds this day
        return await self._post(post_id)

    async def delivered(self, post: Post, message_id: int) -> list[Post]:
        """The post reached Discord: remember its message, clear the server's error, and
        return the server's older open daily posts (which this one closes)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE posts SET message_id = ? WHERE id = ?", (message_id, post.id)
            )
            await conn.execute(
                "UPDATE daily_slots SET status = 'sent' WHERE post_id = ?", (post.id,)
            )
            await conn.execute(
                "UPDATE daily_settings SET error_code = NULL, error_status = NULL,"
                " error_text = NULL, error_channel = NULL, error_at = NULL WHERE guild_id = ?",
                (post.guild_id,),
            )
        async with self.db.conn.execute(
            f"SELECT {POST_COLUMNS} FROM posts WHERE guild_id = ? AND kind = 'daily'"
            " AND closed_at IS NULL AND id < ? ORDER BY id",
            (post.guild_id, post.id),
        ) as cur:
            return [post_of(row) for row in await cur.fetchall()]

    async def failed(
        self,
        post: Post,
        *,
        code: int | None,
        status: int | None,
        text: str,
        now_ms: int,
    ) -> None:
        """The post could not be sent: keep the day's slot (so the day is not posted
        twice), forget the post row (it has no message and no answers), and store the
        error for `/tpquiz-admin settings`."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE daily_slots SET status = 'failed', post_id = NULL WHERE post_id = ?",
                (post.id,),
            )
            await conn.execute(
                "DELETE FROM posts WHERE id = ? AND answer_count = 0 AND message_id IS NULL",
                (post.id,),
            )
            await conn.execute(
                "UPDATE daily_settings SET error_code = ?, error_status = ?, error_text = ?,"
                " error_channel = ?, error_at = ? WHERE guild_id = ?",
                (code, status, text[:500], post.channel_id, now_ms, post.guild_id),
            )

    async def slot(self, guild_id: int, local_date: str) -> tuple[str, int | None] | None:
        """(status, post id) of one day's slot, or None when the day was never claimed."""
        async with self.db.conn.execute(
            "SELECT status, post_id FROM daily_slots WHERE guild_id = ? AND local_date = ?",
            (guild_id, local_date),
        ) as cur:
            row = await cur.fetchone()
        return (str(row[0]), row[1]) if row else None

    # -- closing ---------------------------------------------------------------------

    async def due_to_close(self, now_ms: int) -> list[Post]:
        """Open daily posts whose closing time has come, in every server."""
        async with self.db.conn.execute(
            f"SELECT {POST_COLUMNS} FROM posts WHERE kind = 'daily' AND closed_at IS NULL"
            " AND closes_at <= ? ORDER BY id",
            (now_ms,),
        ) as cur:
            return [post_of(row) for row in await cur.fetchall()]

    async def close(self, post_id: int, now_ms: int) -> tuple[Post, dict[int, int]] | None:
        """Close a daily post: the closed post and how many members chose each choice
        index, read in the transaction that closes it (clicks check "closed" in their
        own transactions, so no click is recorded after these counts). None when it was
        already closed (so of two closers only one edits the message)."""

        def work(conn: sqlite3.Connection) -> tuple[Post, dict[int, int]] | None:
            cur = conn.execute(
                "UPDATE posts SET closed_at = ? WHERE id = ? AND closed_at IS NULL",
                (now_ms, post_id),
            )
            if cur.rowcount != 1:
                return None
            row = conn.execute(
                f"SELECT {POST_COLUMNS} FROM posts WHERE id = ?", (post_id,)
            ).fetchone()
            counts = conn.execute(
                "SELECT choice_index, COUNT(*) FROM answers WHERE post_id = ?"
                " GROUP BY choice_index",
                (post_id,),
            ).fetchall()
            return post_of(row), {int(c): int(n) for c, n in counts}

        return await self.db.run_transaction(work)

    async def latest_open(self, guild_id: int) -> Post | None:
        async with self.db.conn.execute(
            f"SELECT {POST_COLUMNS} FROM posts WHERE guild_id = ? AND kind = 'daily'"
            " AND closed_at IS NULL ORDER BY id DESC LIMIT 1",
            (guild_id,),
        ) as cur:
            row = await cur.fetchone()
        return post_of(row) if row else None

    # -- streaks ---------------------------------------------------------------------

    async def streak(self, guild_id: int, user_id: int) -> DailyStreak | None:
        async with self.db.conn.execute(
            "SELECT last_date, streak, best FROM daily_streaks WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        ) as cur:
            row = await cur.fetchone()
        return DailyStreak(str(row[0]), int(row[1]), int(row[2])) if row else None

    async def streaks(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, DailyStreak]:
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        async with self.db.conn.execute(
            "SELECT user_id, last_date, streak, best FROM daily_streaks"
            f" WHERE guild_id = ? AND user_id IN ({marks})",
            (guild_id, *ids),
        ) as cur:
            return {
                int(u): DailyStreak(str(d), int(s), int(b)) for u, d, s, b in await cur.fetchall()
            }

    async def current_streaks(
        self, guild_id: int, user_ids: Iterable[int]
    ) -> dict[int, tuple[int, int]]:
        """user id -> (current daily streak, best), for members with a daily answer.

        The stored streak is only rewritten on an answer; a daily question that closed
        without the member's answer makes the current streak 0 from then on.
        """
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
        async with self.db.conn.execute(
            "SELECT MAX(s.local_date) FROM daily_slots s JOIN posts p ON p.id = s.post_id"
            " WHERE s.guild_id = ? AND s.status = 'sent' AND p.closed_at IS NOT NULL",
            (guild_id,),
        ) as cur:
            row = await cur.fetchone()
        return row[0] if row else None

    async def _post(self, post_id: int) -> Post | None:
        async with self.db.conn.execute(
            f"SELECT {POST_COLUMNS} FROM posts WHERE id = ?", (post_id,)
        ) as cur:
            row = await cur.fetchone()
        return post_of(row) if row else None
