"""Members' opt-in review reminders (migration 0005 "review cards"), issue #12.

Claiming works as for daily posts: `claim` sets the reminder's last local date in a
transaction before the DM goes out and succeeds for one caller only, so two ticks (or
two processes) never send one member two reminders on one day. The plain functions at
the end take a `sqlite3.Connection` for the member-deletion and export commands.
"""

from __future__ import annotations

import sqlite3

from bot.storage.records import ReminderRow
from bot.storage.sqlite.db import Database


class ReminderStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def set(
        self,
        guild_id: int,
        user_id: int,
        *,
        enabled: bool,
        remind_time: str | None,
        language: str,
        now_ms: int,
    ) -> None:
        """Turn the member's reminder on (at `remind_time`) or off. Turning it on clears
        a pending DM-refused notice: the member has just seen the reminder settings."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO review_reminders (guild_id, user_id, enabled, remind_time,"
                " language, set_at) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id, user_id) DO UPDATE SET enabled = excluded.enabled,"
                " remind_time = COALESCE(excluded.remind_time, remind_time),"
                " language = excluded.language, set_at = excluded.set_at,"
                " refused_at = CASE WHEN excluded.enabled = 1 THEN NULL ELSE refused_at END",
                (guild_id, user_id, int(enabled), remind_time, language, now_ms),
            )

    async def get(self, guild_id: int, user_id: int) -> tuple[bool, str | None] | None:
        """(enabled, remind_time) of the member's reminder, or None if never set."""
        async with self.db.conn.execute(
            "SELECT enabled, remind_time FROM review_reminders WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else (bool(row[0]), row[1])

    async def enabled(self) -> list[ReminderRow]:
        """Every reminder that is on, with its server's time zone and daily post time."""
        async with self.db.conn.execute(
            "SELECT r.guild_id, r.user_id, r.remind_time, r.language, r.set_at, r.last_date,"
            " COALESCE(d.timezone, 'UTC'), COALESCE(d.post_time, '09:00')"
            " FROM review_reminders AS r INDEXED BY review_reminders_enabled"
            " LEFT JOIN daily_settings AS d ON d.guild_id = r.guild_id WHERE r.enabled = 1"
        ) as cur:
            return [ReminderRow(*row) for row in await cur.fetchall()]

    async def due_cards(self, guild_id: int, user_id: int, now_ms: int) -> int:
        """How many of the member's cards are due at `now_ms` (one index range)."""
        async with self.db.conn.execute(
            "SELECT COUNT(*) FROM cards WHERE guild_id = ? AND user_id = ? AND due <= ?",
            (guild_id, user_id, now_ms),
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def claim(self, guild_id: int, user_id: int, local_date: str) -> bool:
        """Take the member's reminder for `local_date`; False if it was taken already."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE review_reminders SET last_date = ? WHERE guild_id = ? AND user_id = ?"
                " AND enabled = 1 AND (last_date IS NULL OR last_date < ?)",
                (local_date, guild_id, user_id, local_date),
            )
            return cur.rowcount == 1

    async def refused(self, guild_id: int, user_id: int, now_ms: int) -> None:
        """Discord refused the DM (50007): the reminder goes off, to be said next time."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE review_reminders SET enabled = 0, refused_at = ?"
                " WHERE guild_id = ? AND user_id = ?",
                (now_ms, guild_id, user_id),
            )

    async def take_refusal(self, guild_id: int, user_id: int) -> bool:
        """True once after a refused DM: the caller tells the member now."""
        async with self.db.conn.execute(
            "SELECT 1 FROM review_reminders WHERE guild_id = ? AND user_id = ?"
            " AND refused_at IS NOT NULL",
            (guild_id, user_id),
        ) as cur:
            if await cur.fetchone() is None:  # the common case: a read, no write
                return False
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE review_reminders SET refused_at = NULL WHERE guild_id = ?"
                " AND user_id = ? AND refused_at IS NOT NULL",
                (guild_id, user_id),
            )
            return cur.rowcount == 1


# -- for member deletion and export (another branch wires these in) -------------------


def delete_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    return conn.execute(
        "DELETE FROM review_reminders WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    ).rowcount


def delete_guild(conn: sqlite3.Connection, guild_id: int) -> int:
    return conn.execute("DELETE FROM review_reminders WHERE guild_id = ?", (guild_id,)).rowcount


def export_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> list[dict[str, object]]:
    cur = conn.execute(
        "SELECT enabled, remind_time, language, set_at, last_date, refused_at"
        " FROM review_reminders WHERE guild_id = ? AND user_id = ?",
        (guild_id, user_id),
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, tuple(row), strict=True)) for row in cur.fetchall()]
