"""Forget and export a member, forget a server, and servers pending deletion.

The async face of `bot.storage.sqlite.members` (which lists what is deleted and exported): each
operation is one trip to the database thread, a deletion one transaction. Pending
removals are recorded, cancelled, listed and walked as on PostgreSQL (`PendingRemovals`,
bot/storage/stores/removals.py).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from bot.storage.sqlite import members
from bot.storage.sqlite.db import Database
from bot.storage.sqlite.executor import SqliteExecutor
from bot.storage.stores.removals import PendingRemovals


class PrivacyStore(PendingRemovals):
    def __init__(self, db: Database) -> None:
        super().__init__(SqliteExecutor(db))
        self.db = db

    async def forget_member(self, guild_id: int, user_id: int) -> dict[str, int]:
        """Delete everything about the member in the server; rows deleted per table."""
        return await self.db.run_transaction(
            lambda conn: members.delete_member(conn, guild_id, user_id)
        )

    async def export_member(self, guild_id: int, user_id: int) -> dict[str, Any]:
        return await self.db.run_read(lambda conn: members.export_member(conn, guild_id, user_id))

    async def member_guilds(self, user_id: int) -> list[int]:
        """The servers where anything is stored about the member (for the CLI without
        --guild)."""
        return await self.db.run_read(lambda conn: members.member_guilds(conn, user_id))

    async def forget_guild(self, guild_id: int) -> dict[str, int]:
        """Delete everything about the server and its members, its pending removal too."""
        return await self.db.run_transaction(lambda conn: members.delete_guild(conn, guild_id))

    async def _delete_if_due(self, guild_id: int, now_ms: int) -> bool:
        """One trip to the database thread: the check and the deletion's steps."""

        def work(conn: sqlite3.Connection) -> bool:
            due = conn.execute(
                "SELECT 1 FROM guild_removals WHERE guild_id = ? AND due_at <= ?",
                (guild_id, now_ms),
            ).fetchone()
            if due is None:
                return False
            members.delete_guild(conn, guild_id)
            return True

        return await self.db.run_transaction(work)
