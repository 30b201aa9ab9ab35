"""SQLite behind the storage contract. `Storage` bundles the stores over one database file.

The stores whose SQL both backends share (bot/storage/stores/, `SharedStores`) run over
`SqliteExecutor` (aiosqlite); the click, the standings, member deletion and export and
the item statistics are SQLite's own, here beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.storage.records import StorageHealth
from bot.storage.sqlite.answers import AnswerStore
from bot.storage.sqlite.db import Database
from bot.storage.sqlite.executor import SqliteExecutor
from bot.storage.sqlite.items import ItemStatsStore
from bot.storage.sqlite.privacy import PrivacyStore
from bot.storage.sqlite.standings import Standings
from bot.storage.stores.bundle import SharedStores

__all__ = ["Database", "Storage"]


class Storage(SharedStores):
    """Every store over one SQLite database file, and the contract's hooks."""

    def __init__(self, db: Database) -> None:
        super().__init__(SqliteExecutor(db))
        self.db = db
        self.answers = AnswerStore(db)
        self.standings = Standings(db)
        self.privacy = PrivacyStore(db)
        self.items = ItemStatsStore(db)

    @classmethod
    async def open(cls, path: Path | str, *, readonly: bool = False) -> Storage:
        """Open the database (see `Database.open`; DatabaseUnusable says what is wrong)."""
        return cls(await Database.open(path, readonly=readonly))

    @property
    def file(self) -> Path:
        """The database file, which the heartbeat is written beside (StorageContract)."""
        return self.db.path

    def health(self) -> StorageHealth:
        """The last committed write still in the file, and why writes stop if the file
        was lost (`Database.last_write_at`, `Database.fault`)."""
        return StorageHealth(last_write_at=self.db.last_write_at, fault=self.db.fault)

    def observe(
        self,
        *,
        on_commit: Callable[[float], None] | None = None,
        on_click_batch: Callable[[int], None] | None = None,
    ) -> None:
        """Each commit's duration (`Database.on_commit`) and each group commit's number
        of clicks (`GroupCommit.on_batch`), for the metrics (StorageContract)."""
        self.db.on_commit = on_commit
        self.answers.clicks.on_batch = on_click_batch

    async def close(self) -> None:
        await self.db.close()
