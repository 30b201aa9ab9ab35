"""The PostgreSQL bundle of stores, and the one place that opens the storage a setting names.

Why one place: `tpquiz run`, the CLI commands and the tests must not each decide between
SQLite (TPQUIZ_DB) and PostgreSQL (TPQUIZ_DATABASE_URL); `open_storage(settings)` does,
and returns a bundle with the same store attributes either way (`bot.storage.Storage` or
`PgStorage`, both `StorageContract`), so the services see only the contract.

The answers (click path) and daily stores on PostgreSQL are written in parallel (issue
15): they are looked up here by module (`bot.storage.pg.answers`, `bot.storage.pg.daily`)
when the bundle is built, so that once they land `tpquiz run` on PostgreSQL works with no
change here; until then opening PostgreSQL storage fails at once with one sentence naming
what is missing, rather than at the first click.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from bot.config import DatabaseUrl

from ..problems import DatabaseUnusable
from .db import PgDatabase
from .guilds import PgGuildSettingsStore, PgMetaStore
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
    from ..contract import AnswersContract, DailyContract

__all__ = ["LATER_STORES", "PgStorage", "missing_stores", "open_storage"]

#: attribute -> (module, class) of the stores written on another branch (issue 15).
LATER_STORES: dict[str, tuple[str, str]] = {
    "answers": ("bot.storage.pg.answers", "PgAnswerStore"),
    "daily": ("bot.storage.pg.daily", "PgDailyStore"),
}


def _later_store(attribute: str) -> type[Any] | None:
    """The class of a store from `LATER_STORES`, or None while it does not exist."""
    module_name, class_name = LATER_STORES[attribute]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise  # the module exists and imports something missing: a real bug
        return None
    found = getattr(module, class_name, None)
    return found if isinstance(found, type) else None


def _later_store_module_exists(module_name: str) -> bool:
    """Whether the module of a later store is installed (without importing it)."""
    return importlib.util.find_spec(module_name) is not None


def missing_stores() -> list[str]:
    """The PostgreSQL stores not written yet ("answers", "daily"), for the error and doctor."""
    return [name for name in LATER_STORES if _later_store(name) is None]


def stores_missing(url: DatabaseUrl, missing: list[str]) -> str:
    modules = ", ".join(f"{LATER_STORES[m][0]}.{LATER_STORES[m][1]}" for m in missing)
    return (
        f"PostgreSQL storage is not complete yet: TPQUIZ_DATABASE_URL is set ({url.redacted}) "
        f"but this tpquiz has no PostgreSQL store for {', '.join(missing)} ({modules}); "
        "unset TPQUIZ_DATABASE_URL to run on the SQLite file named by TPQUIZ_DB"
    )


class PgStorage:
    """Every store over one PostgreSQL database: the attributes of `bot.storage.Storage`."""

    def __init__(self, db: PgDatabase) -> None:
        missing = missing_stores()
        if missing:
            raise DatabaseUnusable(stores_missing(db.url, missing))
        answers, daily = _later_store("answers"), _later_store("daily")
        assert answers is not None and daily is not None
        self.db = db
        self.posts = PgPostStore(db)
        self.answers: AnswersContract = answers(db)
        self.standings = PgStandings(db)
        self.test_runs = PgTestRunStore(db)
        self.guilds = PgGuildSettingsStore(db)
        self.meta = PgMetaStore(db)
        self.daily: DailyContract = daily(db)
        self.cards = PgCardStore(db)
        self.progress = PgProgressStore(db)
        self.reminders = PgReminderStore(db)
        self.privacy = PgPrivacyStore(db)
        self.reports = PgReportStore(db)

    @classmethod
    async def open(cls, url: DatabaseUrl | str, *, migrate: bool = True) -> PgStorage:
        """Connect, migrate (unless `migrate` is False) and bundle the stores.

        DatabaseUnusable (one sentence, no password) when a store is missing, checked
        before connecting, or the database cannot be used (`PgDatabase.open`)."""
        url = url if isinstance(url, DatabaseUrl) else DatabaseUrl(url)
        missing = missing_stores()
        if missing:
            raise DatabaseUnusable(stores_missing(url, missing))
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
