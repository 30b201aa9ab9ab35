"""Fixtures for every test: one real PostgreSQL server per test session.

`pg_server` starts it (tests/pg_server.py) the first time a test asks, and stops it when
the session ends. Without PostgreSQL binaries the tests that use it skip with the
reason, except in CI (CI=true), where they fail: see `tests.pg_server.availability`.
`pg_url` gives each test an empty database of its own on that server, dropped after.
`own_pg_server` is a server for one test alone, for the tests that restart it.
They live here, not in tests/storage/, so the storage, command and end-to-end tests all
share the one server.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator

import pytest

from tests.pg_server import PgServer, availability, find_bin_dir


def _serve_pg() -> Iterator[PgServer]:
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


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    yield from _serve_pg()


@pytest.fixture
def own_pg_server() -> Iterator[PgServer]:
    """A server of the test's own, which it may restart, stop and start again (an
    outage) without disturbing the session's server and the tests that share it."""
    yield from _serve_pg()


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
