"""Fixtures for the storage tests: `backend` runs a test once per storage backend.

The PostgreSQL server itself (`pg_server`, `pg_url`) is in tests/conftest.py, so that
the end-to-end and command tests can use it too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.storage.contract import (
    AnswersContract,
    CardsContract,
    DailyContract,
    GuildBankContract,
    GuildsContract,
    LiveContract,
    MetaContract,
    PostsContract,
    PrivacyContract,
    ProgressContract,
    RemindersContract,
    ReportsContract,
    StandingsContract,
    SuggestionsContract,
    TestRunsContract,
)
from bot.storage.pg.answers import PgAnswerStore
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.executor import PgExecutor
from bot.storage.pg.live import PgLiveStore
from bot.storage.pg.privacy import PgPrivacyStore
from bot.storage.pg.standings import PgStandings
from bot.storage.sqlite.answers import AnswerStore
from bot.storage.sqlite.db import Database
from bot.storage.sqlite.executor import SqliteExecutor
from bot.storage.sqlite.live import LiveStore
from bot.storage.sqlite.privacy import PrivacyStore
from bot.storage.sqlite.standings import Standings
from bot.storage.stores.bundle import SharedStores


@dataclass
class Backend:
    """The stores ported to both databases, over one of them (`name`)."""

    name: str
    guilds: GuildsContract
    meta: MetaContract
    posts: PostsContract
    test_runs: TestRunsContract
    reminders: RemindersContract
    progress: ProgressContract
    cards: CardsContract
    privacy: PrivacyContract
    reports: ReportsContract
    answers: AnswersContract
    daily: DailyContract
    standings: StandingsContract
    #: Quiz night sessions (issue 26).
    live: LiveContract
    guild_bank: GuildBankContract
    suggestions: SuggestionsContract
    #: Runs one statement written with `?` placeholders (for a test's own rows).
    execute: Callable[[str, tuple[object, ...]], Awaitable[None]]
    #: The first column of the first row of a query written with `?` placeholders.
    scalar: Callable[[str, tuple[object, ...]], Awaitable[Any]]
    #: Every row of a query written with `?` placeholders, as plain tuples.
    rows: Callable[[str, tuple[object, ...]], Awaitable[list[tuple[Any, ...]]]]
    #: The database itself (a `Database` or a `PgDatabase`), for backend-only checks.
    db: Any = None


@pytest.fixture(params=["sqlite", "postgresql"])
def backend_target(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """("sqlite", a file path) or ("postgresql", a URL): `backend` opens it.

    Synchronous, so that it can ask for `pg_url` (and so start the server) only for the
    PostgreSQL run: the SQLite run needs no server.
    """
    if request.param == "sqlite":
        return "sqlite", str(tmp_path / "backend.sqlite3")
    return "postgresql", str(request.getfixturevalue("pg_url"))


def _numbered(sql: str) -> str:
    """`?` placeholders as PostgreSQL's $1, $2, ... (tests' SQL has no '?' in literals)."""
    parts = sql.split("?")
    return parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], 1))


@pytest.fixture
async def backend(backend_target: tuple[str, str]) -> AsyncIterator[Backend]:
    """Each test that takes it runs twice: on a SQLite file and on a PostgreSQL database."""
    name, target = backend_target
    if name == "sqlite":
        db = await Database.open(target)

        async def lite(sql: str, args: tuple[object, ...]) -> None:
            async with db.transaction() as conn:
                await conn.execute(sql, args)

        async def lite_scalar(sql: str, args: tuple[object, ...]) -> Any:
            async with db.conn.execute(sql, args) as cur:
                row = await cur.fetchone()
            return None if row is None else row[0]

        async def lite_rows(sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
            async with db.conn.execute(sql, args) as cur:
                return [tuple(r) for r in await cur.fetchall()]

        try:
            yield Backend(
                name,
                **vars(SharedStores(SqliteExecutor(db))),
                privacy=PrivacyStore(db),
                answers=AnswerStore(db),
                standings=Standings(db),
                execute=lite,
                scalar=lite_scalar,
                rows=lite_rows,
                db=db,
                live=LiveStore(db),
            )
        finally:
            await db.close()
        return
    pg = await PgDatabase.open(target)

    async def post(sql: str, args: tuple[object, ...]) -> None:
        async with pg.transaction() as conn:
            await conn.execute(_numbered(sql), *args)

    async def pg_scalar(sql: str, args: tuple[object, ...]) -> Any:
        row = await pg.fetchrow(_numbered(sql), *args)
        return None if row is None else row[0]

    async def pg_rows(sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await pg.fetch(_numbered(sql), *args)]

    try:
        yield Backend(
            name,
            **vars(SharedStores(PgExecutor(pg))),
            privacy=PgPrivacyStore(pg),
            answers=PgAnswerStore(pg),
            standings=PgStandings(pg),
            execute=post,
            scalar=pg_scalar,
            rows=pg_rows,
            db=pg,
            live=PgLiveStore(pg),
        )
    finally:
        await pg.close()
