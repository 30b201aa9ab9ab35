"""The one place that opens the storage a setting names, and so knows there are two backends.

Why one place: `tpquiz run`, the command line and the tests must not each decide between
SQLite (TPQUIZ_DB) and PostgreSQL (TPQUIZ_DATABASE_URL). `open_storage(settings)` does, and
returns a bundle with the same store attributes either way (`bot.storage.sqlite.Storage` or
`bot.storage.pg.storage.PgStorage`, both `StorageContract`), so the rest sees only the
contract. It lives outside both backends so that neither imports the other; PostgreSQL's
driver is imported only when the settings name PostgreSQL.

Being the one module that sees both bundles, it also holds `_conforms`, mypy's proof that
every store (the shared ones of bot/storage/stores/ over any `Executor`, and each
backend's own), both executors and both bundles satisfy bot/storage/contract.py and
bot/storage/sql.py (so the contract itself imports neither backend).

`open_for_run` is what `tpquiz run` holds while it serves: the stores and what keeps a
second process out, SQLite's run lock on the file or PostgreSQL's shard locks (claimed
before anything else, bot/storage/pg/run.py). What the command line does besides opening
the stores (`db status`, backup, doctor, ...) goes through `bot.storage.admin`, the one
other module that looks at which backend the settings name.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from bot.infra.config import Settings
    from bot.storage.contract import StorageContract
    from bot.storage.pg.storage import PgStorage
    from bot.storage.sqlite import Storage

__all__ = ["Running", "open_for_run", "open_readonly", "open_storage"]


async def open_storage(settings: Settings, *, readonly: bool = False) -> Storage | PgStorage:
    """The storage the settings name: PostgreSQL when TPQUIZ_DATABASE_URL is set, else the
    SQLite file TPQUIZ_DB. `readonly` opens SQLite read-only and does not migrate
    PostgreSQL (its schema must then be current or older, never newer)."""
    if settings.database_url is not None:
        from bot.storage.pg.storage import PgStorage

        return await PgStorage.open(settings.database_url, migrate=not readonly)
    from bot.storage.sqlite import Storage

    return await Storage.open(settings.db_path, readonly=readonly)


async def open_readonly(settings: Settings) -> Storage | PgStorage:
    """`open_storage(settings, readonly=True)` for the commands that only read
    (`leaderboard`, `export-user`), refusing what SQLite's read-only open refuses.

    Why: SQLite's read-only open refuses a file at an older schema (its tables may lack
    what the reads need); PostgreSQL opened without migrating would instead fail at the
    first query with a driver error. So a PostgreSQL database below the newest schema,
    an empty one included, is refused here with one sentence, the same as SQLite's."""
    storage = await open_storage(settings, readonly=True)
    if settings.database_url is not None:
        from bot.storage.migration_files import bundled
        from bot.storage.pg.status import schema_too_old_to_read
        from bot.storage.problems import DatabaseUnusable

        pg = cast("PgStorage", storage)
        version, newest = await pg.db.schema_version(), len(bundled())
        if version < newest:
            await pg.close()
            raise DatabaseUnusable(schema_too_old_to_read(pg.db.url, version, newest))
    return storage


if TYPE_CHECKING:
    from bot.storage.contract import (
        AnswersContract,
        CardsContract,
        DailyContract,
        GuildBankContract,
        GuildsContract,
        ItemStatsContract,
        LiveContract,
        MetaContract,
        PostsContract,
        PrivacyContract,
        ProgressContract,
        RemindersContract,
        ReportsContract,
        StandingsContract,
        StorageContract,
        SuggestionsContract,
        TestRunsContract,
    )
    from bot.storage.pg.answers import PgAnswerStore
    from bot.storage.pg.db import PgDatabase
    from bot.storage.pg.executor import PgExecutor
    from bot.storage.pg.itemstats import PgItemStatsStore
    from bot.storage.pg.live import PgLiveStore
    from bot.storage.pg.privacy import PgPrivacyStore
    from bot.storage.pg.standings import PgStandings
    from bot.storage.sql import Executor
    from bot.storage.sqlite.answers import AnswerStore
    from bot.storage.sqlite.db import Database
    from bot.storage.sqlite.executor import SqliteExecutor
    from bot.storage.sqlite.items import ItemStatsStore
    from bot.storage.sqlite.live import LiveStore
    from bot.storage.sqlite.privacy import PrivacyStore
    from bot.storage.sqlite.standings import Standings
    from bot.storage.stores.daily import DailyStore
    from bot.storage.stores.guild_bank import GuildBankStore
    from bot.storage.stores.guilds import GuildSettingsStore, MetaStore
    from bot.storage.stores.posts import PostStore
    from bot.storage.stores.reads import CardStore, ProgressStore
    from bot.storage.stores.reminders import ReminderStore
    from bot.storage.stores.reports import ReportStore
    from bot.storage.stores.suggestions import SuggestionStore
    from bot.storage.stores.test_runs import TestRunStore

    def _conforms(db: Database, pg: PgDatabase, shared: Executor) -> None:
        """Never called: mypy checks that each store satisfies its contract (the shared
        ones over any executor), and that both backends' executors are executors."""
        executor: Executor = SqliteExecutor(db)
        executor = PgExecutor(pg)
        del executor
        guilds: GuildsContract = GuildSettingsStore(shared)
        meta: MetaContract = MetaStore(shared)
        posts: PostsContract = PostStore(shared)
        test_runs: TestRunsContract = TestRunStore(shared)
        daily: DailyContract = DailyStore(shared)
        cards: CardsContract = CardStore(shared)
        progress: ProgressContract = ProgressStore(shared)
        reminders: RemindersContract = ReminderStore(shared)
        reports: ReportsContract = ReportStore(shared)
        del guilds, meta, posts, test_runs, daily, cards, progress, reminders, reports
        guild_bank: GuildBankContract = GuildBankStore(shared)
        suggestions: SuggestionsContract = SuggestionStore(shared)
        del guild_bank, suggestions
        answers: AnswersContract = AnswerStore(db)
        standings: StandingsContract = Standings(db)
        privacy: PrivacyContract = PrivacyStore(db)
        items: ItemStatsContract = ItemStatsStore(db)
        answers = PgAnswerStore(pg)
        live: LiveContract = LiveStore(db)
        live = PgLiveStore(pg)
        del live
        standings = PgStandings(pg)
        privacy = PgPrivacyStore(pg)
        items = PgItemStatsStore(pg)
        del answers, standings, privacy, items
        bundle: StorageContract = Storage(db)
        bundle = PgStorage(pg)
        del bundle


@dataclass(frozen=True)
class Running:
    """The storage `tpquiz run` serves on, from `open_for_run`."""

    storage: StorageContract
    #: Done when the process lost what lets it run (PostgreSQL's shard locks: its result
    #: raises `ShardsLost`), so the bot stops; None on SQLite, whose run lock cannot be lost.
    stopped: asyncio.Future[None] | None


@asynccontextmanager
async def open_for_run(settings: Settings) -> AsyncIterator[Running]:
    """Hold what keeps a second `tpquiz run` out, open (and migrate) the storage, and yield
    it: on SQLite under the file's run lock (RunLockHeld when another process holds it;
    it also tells `tpquiz restore` a bot runs), on PostgreSQL under this process's shard
    locks (ShardHeld). The caller closes the storage; the lock or the shard locks are
    given back on the way out. The file's own checks (`run_problem`) come before, from
    `bot.storage.admin.run_problem`, so a wrong setting is refused before the bank loads."""
    if settings.database_url is not None:
        from bot.storage.pg.run import claimed_storage

        async with claimed_storage(settings) as (pg, watch):
            yield Running(pg, watch)
        return
    from bot.infra.runlock import START_WAIT_SECONDS, hold_run_lock
    from bot.storage.sqlite import Storage

    with hold_run_lock(settings.db_path, wait=START_WAIT_SECONDS):
        yield Running(await Storage.open(settings.db_path), None)
