"""The PostgreSQL bundle of stores and hooks: the `StorageContract` SQLite's bundle also fulfils.

Opened through `bot.storage.factory.open_storage`, the one place that chooses a backend.

Every store has its PostgreSQL twin now (issue 15), imported here directly.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.infra.config import DatabaseUrl
from bot.storage.pg.answers import PgAnswerStore
from bot.storage.pg.daily import PgDailyStore
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.guilds import PgGuildSettingsStore, PgMetaStore
from bot.storage.pg.itemstats import PgItemStatsStore
from bot.storage.pg.live import PgLiveStore
from bot.storage.pg.posts import PgPostStore
from bot.storage.pg.privacy import PgPrivacyStore
from bot.storage.pg.reads import PgCardStore, PgProgressStore
from bot.storage.pg.reminders import PgReminderStore
from bot.storage.pg.reports import PgReportStore
from bot.storage.pg.standings import PgStandings
from bot.storage.pg.test_runs import PgTestRunStore
from bot.storage.records import StorageHealth

__all__ = ["PgStorage"]


class PgStorage:
    """Every store over one PostgreSQL database, and the contract's hooks."""

    def __init__(self, db: PgDatabase) -> None:
        self.db = db
        self.posts = PgPostStore(db)
        self.answers = PgAnswerStore(db)
        self.standings = PgStandings(db)
        self.test_runs = PgTestRunStore(db)
        self.guilds = PgGuildSettingsStore(db)
        self.meta = PgMetaStore(db)
        self.daily = PgDailyStore(db)
        self.cards = PgCardStore(db)
        self.progress = PgProgressStore(db)
        self.reminders = PgReminderStore(db)
        self.privacy = PgPrivacyStore(db)
        self.reports = PgReportStore(db)
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
        """Each commit's duration (`PgDatabase.on_commit`), for the metrics. Clicks are
        never batched here (bot/storage/pg/clicks.py), so `on_click_batch` is not called."""
        self.db.on_commit = on_commit

    async def close(self) -> None:
        await self.db.close()
