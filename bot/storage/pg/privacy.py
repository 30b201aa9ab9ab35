"""Forget and export a member, forget a server, servers pending deletion: on PostgreSQL.

The twin of bot/storage/sqlite/privacy.py over bot/storage/pg/members.py. Each deletion is one
transaction, so a member's data goes whole or not at all; an export reads every table in
one REPEATABLE READ snapshot, so a click landing meanwhile cannot make it disagree with
itself (an answer counted in the totals but missing from the answers). Several bot
processes share the database here: `delete_due` re-checks `due_at` inside each server's
transaction, so a server added back in between (another process's GUILD_CREATE) keeps its
data, and two processes deleting the same server delete it once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.storage.pg import members
from bot.storage.pg.db import PgDatabase
from bot.storage.records import PendingRemoval


class PgPrivacyStore:
    def __init__(self, db: PgDatabase) -> None:
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

    async def mark_removed(self, guild_id: int, now_ms: int, due_ms: int) -> None:
        """The bot was removed from the server: delete its data at `due_ms` (a replayed
        removal keeps the first, earlier date)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO guild_removals (guild_id, removed_at, due_at) VALUES ($1, $2, $3)"
                " ON CONFLICT (guild_id) DO NOTHING",
                guild_id,
                now_ms,
                due_ms,
            )

    async def cancel_removal(self, guild_id: int) -> bool:
        """The bot is in the server again: keep its data. True if a deletion was pending.

        Called for every server at each start: a read first, a write only when needed."""
        if await self.db.fetchrow("SELECT 1 FROM guild_removals WHERE guild_id = $1", guild_id):
            async with self.db.transaction() as conn:
                status = await conn.execute(
                    "DELETE FROM guild_removals WHERE guild_id = $1", guild_id
                )
            return status != "DELETE 0"
        return False

    async def pending_removals(self) -> list[PendingRemoval]:
        rows = await self.db.fetch(
            "SELECT guild_id, removed_at, due_at FROM guild_removals ORDER BY due_at, guild_id"
        )
        return [PendingRemoval(int(r[0]), int(r[1]), int(r[2])) for r in rows]

    async def delete_due(
        self, now_ms: int, *, owns: Callable[[int], bool] | None = None
    ) -> list[int]:
        """Delete every server whose removal is due at `now_ms`; the servers deleted.

        One transaction per server; its removal row is locked (FOR UPDATE) and its
        `due_at` checked inside, so a cancellation or another process's deletion in
        between wins. `owns` skips the servers of other processes' shards."""
        deleted = []
        for pending in await self.pending_removals():
            if pending.due_at > now_ms:
                break
            if owns is not None and not owns(pending.guild_id):
                continue
            async with self.db.transaction() as conn:
                due = await conn.fetchrow(
                    "SELECT 1 FROM guild_removals WHERE guild_id = $1 AND due_at <= $2 FOR UPDATE",
                    pending.guild_id,
                    now_ms,
                )
                if due is not None:
                    await members.delete_guild(conn, pending.guild_id)
                    deleted.append(pending.guild_id)
        return deleted
