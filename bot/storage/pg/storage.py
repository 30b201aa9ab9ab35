"""The PostgreSQL bundle of stores and hooks: the `StorageContract` SQLite's bundle also fulfils.

Opened through `bot.storage.factory.open_storage`, the one place that chooses a backend.

The stores whose SQL both backends share (bot/storage/stores/, `SharedStores`) run over
`PgExecutor` (asyncpg); the click, the standings, member deletion and export and the
item statistics are PostgreSQL's own, in this package.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.infra.config import DatabaseUrl
from bot.storage.pg.answers import PgAnswerStore
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.executor import PgExecutor
from bot.storage.pg.itemstats import PgItemStatsStore
from bot.storage.pg.live import PgLiveStore
from bot.storage.pg.privacy import PgPrivacyStore
from bot.storage.pg.standings import PgStandings
from bot.storage.records import StorageHealth
from bot.storage.stores.bundle import SharedStores

__all__ = ["PgStorage"]


class PgStorage(SharedStores):
    """Every store over one PostgreSQL database, and the contract's hooks."""

    def __init__(self, db: PgDatabase) -> None:
        super().__init__(PgExecutor(db))
        self.db = db
        self.answers = PgAnswerStore(db)
        self.standings = PgStandings(db)
        self.privacy = PgPrivacyStore(db)
        self.live = PgLiveStore(db)
        self.items = PgItemStatsStore(db)

    @classmethod
    async def open(cls, url: DatabaseUrl | str, *, migrate: bool = True) -> PgStorage:
        """Connect, migrate (unless `migrate` is False) and bundle the stores.

        DatabaseUnusable (one sentence, no password) when the database cannot be used
        (`PgDatabase.open`)."""
        url = url if isinstance(url, DatabaseUrl) else DatabaseUrl(url)
        db = await PgDatabase.open(url, migrate=migrate)
        try:
            return cls(db)
        except BaseException:
            await db.close()
            raise

    @property
    def file(self) -> Path | None:
        """None: the database lives on a server, not in a file (StorageContract)."""
        return None

    def health(self) -> StorageHealth:
        """The last committed write of this process (`PgDatabase.last_write_at`); no
        fault, which has no PostgreSQL counterpart (`PgDatabase.fault`)."""
        return StorageHealth(last_write_at=self.db.last_write_at, fault=self.db.fault)

    def observe(
        self,
        *,
        on_commit: Callable[[float], None] | None = None,
        on_click_batch: Callable[[int], None] | None = None,
    ) -> None:
        """Each commit's duration (`PgDatabase.on_commit`) and each click batch's size
        (bot/storage/pg/group_commit.py), for the metrics."""
        self.db.on_commit = on_commit
        self.answers.clicks.on_batch = on_click_batch

    async def close(self) -> None:
        await self.db.close()
