"""Fixtures for the storage tests: one real PostgreSQL server per test session.

`pg_server` starts it (tests/pg_server.py) the first time a test asks, and stops it when
the session ends. Without PostgreSQL binaries the tests that use it skip with the
reason, except in CI (CI=true), where they fail: see `tests.pg_server.availability`.
`pg_url` gives each test an empty database of its own on that server, dropped after.
`backend` runs a test once per storage backend, with the stores both have so far.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.storage.contract import GuildsContract, MetaContract
from bot.storage.db import Database
from bot.storage.guilds import GuildSettingsStore, MetaStore
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.guilds import PgGuildSettingsStore, PgMetaStore
from tests.pg_server import PgServer, availability, find_bin_dir


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    bin_dir = find_bin_dir()
    verdict = availability(bin_dir, os.environ)
    if verdict.action == "fail":
        pytest.fail(verdict.reason, pytrace=False)
    if verdict.action == "skip":
        pytest.skip(verdict.reason)
    assert bin_dir is not None
    server = PgServer(bin_dir)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def pg_url(pg_server: PgServer) -> AsyncIterator[str]:
    """The URL of a new, empty database on the session's server (dropped after the test)."""
    import asyncpg

    name = "t_" + secrets.token_hex(6)
    admin = await asyncpg.connect(pg_server.url())
    try:
        await admin.execute(f"CREATE DATABASE {name}")
    finally:
        await admin.close()
    try:
        yield pg_server.url(name)
    finally:
        admin = await asyncpg.connect(pg_server.url())
        try:
            await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await admin.close()


@dataclass
class Backend:
    """The stores ported to both databases, over one of them (`name`)."""

    name: str
    guilds: GuildsContract
    meta: MetaContract


@pytest.fixture(params=["sqlite", "postgresql"])
def backend_target(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """("sqlite", a file path) or ("postgresql", a URL): `backend` opens it.

    Synchronous, so that it can ask for `pg_url` (and so start the server) only for the
    PostgreSQL run: the SQLite run needs no server.
    """
    if request.param == "sqlite":
        return "sqlite", str(tmp_path / "backend.sqlite3")
    return "postgresql", str(request.getfixturevalue("pg_url"))


@pytest.fixture
async def backend(backend_target: tuple[str, str]) -> AsyncIterator[Backend]:
    """Each test that takes it runs twice: on a SQLite file and on a PostgreSQL database."""
    name, target = backend_target
    if name == "sqlite":
        db = await Database.open(target)
        try:
            yield Backend(name, GuildSettingsStore(db), MetaStore(db))
        finally:
            await db.close()
        return
    pg = await PgDatabase.open(target)
    try:
        yield Backend(name, PgGuildSettingsStore(pg), PgMetaStore(pg))
    finally:
        await pg.close()
