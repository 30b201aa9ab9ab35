"""Forget and export a member, forget a server, and servers pending deletion.

The async face of `bot.storage.sqlite.members` (which lists what is deleted and exported): each
operation is one trip to the database thread, a deletion one transaction. Pending
removals are recorded, cancelled and listed as on PostgreSQL (`PendingRemovals`,
bot/storage/stores/removals.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
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

    async def delete_due(
        self, now_ms: int, *, owns: Callable[[int], bool] | None = None
    ) -> list[int]:
        """Delete every server whose removal is due at `now_ms`; the servers deleted.

        One transaction per server, so a large server does not hold the write lock for
        all of them; the check of `due_at` is inside it, so a GUILD_CREATE that cancelled
        the removal in between wins. `owns` (a process's shards, bot/infra/shards.py) skips
        the servers another process deletes.
        """
        deleted = []
        for pending in await self.pending_removals():
            if pending.due_at > now_ms:
                break
            if owns is not None and not owns(pending.guild_id):
                continue

            def work(conn: sqlite3.Connection, guild_id: int = pending.guild_id) -> bool:
                due = conn.execute(
                    "SELECT 1 FROM guild_removals WHERE guild_id = ? AND due_at <= ?",
                    (guild_id, now_ms),
                ).fetchone()
                if due is None:
                    return False
                members.delete_guild(conn, guild_id)
                return True

            if await self.db.run_transaction(work):
                deleted.append(pending.guild_id)
        return deleted
