"""Members' review reminders on PostgreSQL: the twin of bot/storage/sqlite/reminders.py.

Claiming holds across processes here too: `claim` is one UPDATE whose WHERE requires an
older last_date. At READ COMMITTED a second, concurrent claim waits for the first's row
lock, then re-checks the WHERE against the row the first committed and updates nothing,
so one member gets one reminder a day however many processes tick.
"""

from __future__ import annotations

from bot.storage.pg.db import PgDatabase
from bot.storage.records import ReminderRow


def _count(status: str) -> int:
    """The row count of an asyncpg command status ("UPDATE 1" -> 1)."""
    return int(status.rsplit(" ", 1)[-1])


class PgReminderStore:
    def __init__(self, db: PgDatabase) -> None:
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
        """Turn the member's reminder on (at `remind_time`) or off; on clears a refusal."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO review_reminders AS r (guild_id, user_id, enabled, remind_time,"
                " language, set_at) VALUES ($1, $2, $3, $4, $5, $6)"
                " ON CONFLICT (guild_id, user_id) DO UPDATE SET enabled = excluded.enabled,"
                " remind_time = COALESCE(excluded.remind_time, r.remind_time),"
                " language = excluded.language, set_at = excluded.set_at,"
                " refused_at = CASE WHEN excluded.enabled = 1 THEN NULL ELSE r.refused_at END",
                guild_id,
                user_id,
                int(enabled),
                remind_time,
                language,
                now_ms,
            )

    async def get(self, guild_id: int, user_id: int) -> tuple[bool, str | None] | None:
        row = await self.db.fetchrow(
            "SELECT enabled, remind_time FROM review_reminders"
            " WHERE guild_id = $1 AND user_id = $2",
            guild_id,
            user_id,
        )
        return None if row is None else (bool(row[0]), row[1])

    async def enabled(self) -> list[ReminderRow]:
        """Every reminder that is on, with its server's time zone and daily post time."""
        rows = await self.db.fetch(
            "SELECT r.guild_id, r.user_id, r.remind_time, r.language, r.set_at, r.last_date,"
            " COALESCE(d.timezone, 'UTC'), COALESCE(d.post_time, '09:00')"
            " FROM review_reminders AS r"
            " LEFT JOIN daily_settings AS d ON d.guild_id = r.guild_id WHERE r.enabled = 1"
        )
        return [ReminderRow(*row) for row in rows]

    async def due_cards(self, guild_id: int, user_id: int, now_ms: int) -> int:
        count = await self.db.fetchrow(
            "SELECT COUNT(*) FROM cards WHERE guild_id = $1 AND user_id = $2 AND due <= $3",
            guild_id,
            user_id,
            now_ms,
        )
        return int(count[0]) if count else 0

    async def claim(self, guild_id: int, user_id: int, local_date: str) -> bool:
        """Take the member's reminder for `local_date`; False if it was taken already."""
        async with self.db.transaction() as conn:
            status = await conn.execute(
                "UPDATE review_reminders SET last_date = $1 WHERE guild_id = $2"
                " AND user_id = $3 AND enabled = 1 AND (last_date IS NULL OR last_date < $1)",
                local_date,
                guild_id,
                user_id,
            )
        return _count(status) == 1

    async def refused(self, guild_id: int, user_id: int, now_ms: int) -> None:
        """Discord refused the DM (50007): the reminder goes off, to be said next time."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE review_reminders SET enabled = 0, refused_at = $1"
                " WHERE guild_id = $2 AND user_id = $3",
                now_ms,
                guild_id,
                user_id,
            )

    async def take_refusal(self, guild_id: int, user_id: int) -> bool:
        """True once after a refused DM: the caller tells the member now."""
        pending = await self.db.fetchrow(
            "SELECT 1 FROM review_reminders WHERE guild_id = $1 AND user_id = $2"
            " AND refused_at IS NOT NULL",
            guild_id,
            user_id,
        )
        if pending is None:  # the common case: a read, no write
            return False
        async with self.db.transaction() as conn:
            status = await conn.execute(
                "UPDATE review_reminders SET refused_at = NULL WHERE guild_id = $1"
                " AND user_id = $2 AND refused_at IS NOT NULL",
                guild_id,
                user_id,
            )
        return _count(status) == 1
