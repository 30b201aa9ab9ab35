"""The heartbeat's view of the database: a probe row written each tick, the last write, a fault.

Why a module of its own: the heartbeat (cogs/health.py) must prove that the database
takes writes, but a cog reaches no store itself (tests/test_layers_house.py): this is
the one object, built in bot/runtime/compose.py over the storage contract, through which
it writes its probe and reads what storage knows of its own health, on either backend.
"""

from __future__ import annotations

from pathlib import Path

from bot.storage.contract import StorageContract
from bot.storage.records import StorageHealth

__all__ = ["DB_PROBE_KEY", "DatabaseProbe"]

#: The metadata key the probe row is written under (its value: the tick's Unix time).
DB_PROBE_KEY = "health:heartbeat"


class DatabaseProbe:
    def __init__(self, storage: StorageContract) -> None:
        self._storage = storage

    @property
    def file(self) -> Path | None:
        """The SQLite file (the heartbeat is written beside it); None on PostgreSQL."""
        return self._storage.file

    async def write(self, now: float) -> None:
        """Write the probe row; raises what the write raises (the caller logs changes)."""
        await self._storage.meta.set(DB_PROBE_KEY, str(int(now)))

    def health(self) -> StorageHealth:
        """The last committed write and the current fault, as storage saw them."""
        return self._storage.health()
