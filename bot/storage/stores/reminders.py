"""Members' opt-in review reminders (migration 0005 "review cards"), issue #12.

One store for both backends over `Executor` (bot/storage/sql.py), RemindersContract.
Claiming works as for daily posts: `claim` is one UPDATE whose WHERE requires an older
last_date, run before the DM goes out, and it succeeds for one caller only, so two ticks
(or two processes) never send one member two reminders on one day. On SQLite the single
writer decides; on PostgreSQL at READ COMMITTED a second, concurrent claim waits for the
first's row lock, then re-checks the WHERE against the committed row and updates nothing.
Member deletion and export of reminders are each backend's own (bot/storage/member_data.py).
"""

from __future__ import annotations

from bot.storage.records import ReminderRow
from bot.storage.sql import Executor, Fragment, Query

__all__ = ["ReminderStore"]

_SET = Query(
    "INSERT INTO review_reminders AS r (guild_id, user_id, enabled, remind_time, language,"
    " set_at) VALUES (:guild, :user, :enabled, :time, :language, :now)"
    " ON CONFLICT (guild_id, user_id) DO UPDATE SET enabled = excluded.enabled,"
    " remind_time = COALESCE(excluded.remind_time, r.remind_time),"
    " language = excluded.language, set_at = excluded.set_at,"
    " refused_at = CASE WHEN excluded.enabled = 1 THEN NULL ELSE r.refused_at END"
)
_GET = Query(
    "SELECT enabled, remind_time FROM review_reminders WHERE guild_id = :guild AND user_id = :user"
)
_ENABLED = Query(
    "SELECT r.guild_id, r.user_id, r.remind_time, r.language, r.set_at, r.last_date,"
    " COALESCE(d.timezone, 'UTC'), COALESCE(d.post_time, '09:00')"
    " FROM review_reminders AS r {enabled_index}"
    " LEFT JOIN daily_settings AS d ON d.guild_id = r.guild_id WHERE r.enabled = 1",
    # SQLite is told to read the partial index of the reminders that are on (INDEXED
    # BY pins that plan); PostgreSQL has no such hint, its planner chooses.
    enabled_index=Fragment(sqlite="INDEXED BY review_reminders_enabled", postgresql=""),
)
_DUE_CARDS = Query(
    "SELECT COUNT(*) FROM cards WHERE guild_id = :guild AND user_id = :user AND due <= :now"
)
_CLAIM = Query(
    "UPDATE review_reminders SET last_date = :date WHERE guild_id = :guild AND user_id = :user"
    " AND enabled = 1 AND (last_date IS NULL OR last_date < :date)"
)
_REFUSED = Query(
    "UPDATE review_reminders SET enabled = 0, refused_at = :now"
    " WHERE guild_id = :guild AND user_id = :user"
)
_REFUSAL_PENDING = Query(
    "SELECT 1 FROM review_reminders WHERE guild_id = :guild AND user_id = :user"
    " AND refused_at IS NOT NULL"
)
_TAKE_REFUSAL = Query(
    "UPDATE review_reminders SET refused_at = NULL WHERE guild_id = :guild"
    " AND user_id = :user AND refused_at IS NOT NULL"
)


class ReminderStore:
    def __init__(self, db: Executor) -> None:
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
        await self.db.execute(
            _SET,
            guild=guild_id,
            user=user_id,
            enabled=int(enabled),
            time=remind_time,
            language=language,
            now=now_ms,
        )

    async def get(self, guild_id: int, user_id: int) -> tuple[bool, str | None] | None:
        """(enabled, remind_time) of the member's reminder, or None if never set."""
        row = await self.db.fetch_one(_GET, guild=guild_id, user=user_id)
        return None if row is None else (bool(row[0]), row[1])

    async def enabled(self) -> list[ReminderRow]:
        """Every reminder that is on, with its server's time zone and daily post time."""
        return [ReminderRow(*row) for row in await self.db.fetch(_ENABLED)]

    async def due_cards(self, guild_id: int, user_id: int, now_ms: int) -> int:
        """How many of the member's cards are due at `now_ms` (one index range)."""
        row = await self.db.fetch_one(_DUE_CARDS, guild=guild_id, user=user_id, now=now_ms)
        return int(row[0]) if row else 0

    async def claim(self, guild_id: int, user_id: int, local_date: str) -> bool:
        """Take the member's reminder for `local_date`; False if it was taken already."""
        return await self.db.execute(_CLAIM, date=local_date, guild=guild_id, user=user_id) == 1

    async def refused(self, guild_id: int, user_id: int, now_ms: int) -> None:
        """Discord refused the DM (50007): the reminder goes off, to be said next time."""
        await self.db.execute(_REFUSED, now=now_ms, guild=guild_id, user=user_id)

    async def take_refusal(self, guild_id: int, user_id: int) -> bool:
        """True once after a refused DM: the caller tells the member now."""
        if await self.db.fetch_one(_REFUSAL_PENDING, guild=guild_id, user=user_id) is None:
            return False  # the common case: a read, no write
        return await self.db.execute(_TAKE_REFUSAL, guild=guild_id, user=user_id) == 1
