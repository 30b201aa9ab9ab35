"""Servers that removed the bot and when their data goes: the bookkeeping half of privacy.

Why a base class: each backend's privacy store (bot/storage/sqlite/privacy.py,
bot/storage/pg/privacy.py) deletes and exports with its own steps (plain sqlite3
functions on SQLite's database thread, asyncpg statements on PostgreSQL:
bot/storage/member_data.py lists them), but records, cancels and lists pending removals
with the same three statements, written once here over `Executor` (bot/storage/sql.py).
`delete_due` walks the due servers here too; how one server is deleted, with its
`due_at` checked again inside the deletion's transaction, is each backend's
(`_delete_if_due`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from bot.storage.records import PendingRemoval
from bot.storage.sql import Executor, Query

__all__ = ["PendingRemovals"]

_MARK = Query(
    "INSERT INTO guild_removals (guild_id, removed_at, due_at) VALUES (:guild, :now, :due)"
    " ON CONFLICT (guild_id) DO NOTHING"
)
_PENDING_ONE = Query("SELECT 1 FROM guild_removals WHERE guild_id = :guild")
_CANCEL = Query("DELETE FROM guild_removals WHERE guild_id = :guild")
_PENDING = Query(
    "SELECT guild_id, removed_at, due_at FROM guild_removals ORDER BY due_at, guild_id"
)


class PendingRemovals(ABC):
    """`mark_removed`, `cancel_removal`, `pending_removals` and `delete_due` of
    PrivacyContract."""

    def __init__(self, executor: Executor) -> None:
        self._removals = executor

    async def mark_removed(self, guild_id: int, now_ms: int, due_ms: int) -> None:
        """The bot was removed from the server: delete its data at `due_ms`.

        A second removal event (a replayed GUILD_DELETE) keeps the first, earlier date.
        """
        await self._removals.execute(_MARK, guild=guild_id, now=now_ms, due=due_ms)

    async def cancel_removal(self, guild_id: int) -> bool:
        """The bot is in the server again: keep its data. True if a deletion was pending.

        Called for every server at each start: a read first, a write only when needed.
        """
        if await self._removals.fetch_one(_PENDING_ONE, guild=guild_id) is None:
            return False
        return await self._removals.execute(_CANCEL, guild=guild_id) > 0

    async def pending_removals(self) -> list[PendingRemoval]:
        rows = await self._removals.fetch(_PENDING)
        return [PendingRemoval(int(r[0]), int(r[1]), int(r[2])) for r in rows]

    async def delete_due(
        self, now_ms: int, *, owns: Callable[[int], bool] | None = None
    ) -> list[int]:
        """Delete every server whose removal is due at `now_ms`; the servers deleted.

        One transaction per server, so a large server does not hold a write lock for all
        of them; `due_at` is checked again inside it, so a GUILD_CREATE that cancelled the
        removal in between (in this process or another) wins. `owns` (a process's shards,
        bot/infra/shards.py) skips the servers another process deletes.
        """
        deleted = []
        for pending in await self.pending_removals():
            if pending.due_at > now_ms:
                break
            if owns is not None and not owns(pending.guild_id):
                continue
            if await self._delete_if_due(pending.guild_id, now_ms):
                deleted.append(pending.guild_id)
        return deleted

    @abstractmethod
    async def _delete_if_due(self, guild_id: int, now_ms: int) -> bool:
        """In one transaction: delete the server if its removal is still due; whether it was."""
