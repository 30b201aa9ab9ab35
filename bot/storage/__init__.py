"""All SQL lives in this package. `Storage` bundles the stores over one database."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .answers import AnswerStore
from .cards import CardStore
from .daily import DailyStore
from .db import Database
from .guilds import GuildSettingsStore, MetaStore
from .items import ItemStatsStore
from .posts import Post, PostStore
from .privacy import PrivacyStore
from .progress import ProgressStore
from .reminders import ReminderStore
from .reports import ReportStore
from .standings import MemberStats, RankedScore, Standings
from .test_runs import TestRun, TestRunStore

if TYPE_CHECKING:
    from bot.config import Settings

    from .pg.storage import PgStorage

__all__ = [
    "Storage",
    "Database",
    "Post",
    "TestRun",
    "RankedScore",
    "MemberStats",
    "open_storage",
]


class Storage:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.posts = PostStore(db)
        self.answers = AnswerStore(db)
        self.standings = Standings(db)
        self.test_runs = TestRunStore(db)
        self.guilds = GuildSettingsStore(db)
        self.meta = MetaStore(db)
        self.daily = DailyStore(db)
        self.cards = CardStore(db)
        self.progress = ProgressStore(db)
        self.reminders = ReminderStore(db)
        self.privacy = PrivacyStore(db)
        self.reports = ReportStore(db)
        self.items = ItemStatsStore(db)

    @classmethod
    async def open(cls, path: Path | str, *, readonly: bool = False) -> Storage:
        """Open the database (see `Database.open`; DatabaseUnusable says what is wrong)."""
        return cls(await Database.open(path, readonly=readonly))

    async def close(self) -> None:
        await self.db.close()


async def open_storage(settings: Settings, *, readonly: bool = False) -> Storage | PgStorage:
    """The storage the settings name: PostgreSQL (TPQUIZ_DATABASE_URL) or the SQLite file
    (TPQUIZ_DB); see bot/storage/pg/storage.py. PostgreSQL's driver is imported only then."""
    from .pg.storage import open_storage as opener

    return await opener(settings, readonly=readonly)
