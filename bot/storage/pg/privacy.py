"""Forget and export a member, forget a server, servers pending deletion: on PostgreSQL.

The twin of bot/storage/sqlite/privacy.py over bot/storage/pg/members.py; pending
removals are recorded, cancelled, listed and walked as on SQLite (`PendingRemovals`,
bot/storage/stores/removals.py). Each deletion is one transaction, so a member's data
goes whole or not at all; an export reads every table in one REPEATABLE READ snapshot, so a click landing meanwhile cannot make it disagree with
itself (an answer counted in the totals but missing from the answers). Several bot
processes share the database here: `delete_due` re-checks `due_at` inside each server's
transaction, so a server added back in between (another process's GUILD_CREATE) keeps its
data, and two processes deleting the same server delete it once.
"""

from __future__ import annotations

from typing import Any

from bot.storage.pg import members
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.executor import PgExecutor
from bot.storage.stores.removals import PendingRemovals


class PgPrivacyStore(PendingRemovals):
    def __init__(self, db: PgDatabase) -> None:
        super().__init__(PgExecutor(db))
        self.db = db

    async def forget_member(self, guild_id: int, user_id: int) -> dict[str, int]:
        """Delete everything about the member in the server; rows deleted per table."""
        async with self.db.transaction() as conn:
            return await members.delete_member(conn, guild_id, user_id)

    async def export_member(self, guild_id: int, user_id: int) -> dict[str, Any]:
        async with self.db.transaction(isolation="repeatable_read", readonly=True) as conn:
            return await members.export_member(conn, guild_id, user_id)

    async def member_guilds(self, user_id: int) -> list[int]:
        """The servers where anything is stored about the member."""
        async with self.db.pool.acquire() as conn:
            return await members.member_guilds(conn, user_id)

    async def forget_guild(self, guild_id: int) -> dict[str, int]:
        """Delete everything about the server and its members, its pending removal too."""
        async with self.db.transaction() as conn:
            return await members.delete_guild(conn, guild_id)

    async def _delete_if_due(self, guild_id: int, now_ms: int) -> bool:
        """The removal row is locked (FOR UPDATE) before `due_at` is checked, so a
        cancellation or another process's deletion in between wins."""
        async with self.db.transaction() as conn:
            due = await conn.fetchrow(
                "SELECT 1 FROM guild_removals WHERE guild_id = $1 AND due_at <= $2 FOR UPDATE",
                guild_id,
                now_ms,
            )
            if due is None:
                return False
            await members.delete_guild(conn, guild_id)
            return True
