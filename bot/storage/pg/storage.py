"""The PostgreSQL bundle of stores, and the one place that opens the storage a setting names.

Why one place: `tpquiz run`, the CLI commands and the tests must not each decide between
SQLite (TPQUIZ_DB) and PostgreSQL (TPQUIZ_DATABASE_URL); `open_storage(settings)` does,
and returns a bundle with the same store attributes either way (`bot.storage.Storage` or
`PgStorage`, both `StorageContract`), so the services see only the contract.

Every store has its PostgreSQL twin now (issue 15), imported here directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.config import DatabaseUrl

from .answers import PgAnswerStore
from .daily import PgDailyStore
from .db import PgDatabase
from .guilds import PgGuildSettingsStore, PgMetaStore
from .itemstats import PgItemStatsStore
from .posts import PgPostStore
from .privacy import PgPrivacyStore
from .reads import PgCardStore, PgProgressStore
from .reminders import PgReminderStore
from .reports import PgReportStore
from .standings import PgStandings
from .test_runs import PgTestRunStore

if TYPE_CHECKING:
    from bot.config import Settings

    from .. import Storage

__all__ = ["PgStorage", "open_storage"]


class PgStorage:
    """Every store over one PostgreSQL database: the attributes of `bot.storage.Storage`."""

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

    async def close(self) -> None:
        await self.db.close()


async def open_storage(settings: Settings, *, readonly: bool = False) -> Storage | PgStorage:
    """The storage the settings name: PostgreSQL when TPQUIZ_DATABASE_URL is set, else the
    SQLite file TPQUIZ_DB. `readonly` opens SQLite read-only and does not migrate
    PostgreSQL (its schema must then be current or older, never newer)."""
    if settings.database_url is not None:
        return await PgStorage.open(settings.database_url, migrate=not readonly)
    from .. import Storage

    return await Storage.open(settings.db_path, readonly=readonly)
