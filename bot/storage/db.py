"""The SQLite database: one file, WAL, numbered migrations applied at open.

One aiosqlite connection serves the whole bot. Writes go through `transaction()`, which
holds an asyncio lock for the whole BEGIN IMMEDIATE..COMMIT, so statements of two
coroutines never interleave inside one transaction.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import TypeVar

import aiosqlite

log = logging.getLogger(__name__)
T = TypeVar("T")

_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
#: How long a write waits for another process's lock (a backup, say) before failing.
BUSY_TIMEOUT_MS = 30_000


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every bundled migration, in order."""
    found = []
    for entry in resources.files("bot.storage").joinpath("migrations").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 0001, 0002, ... without gaps: {versions}")
    return found


class Database:
    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._write_lock = asyncio.Lock()
        #: Wall-clock time of the last COMMIT, for the health heartbeat.
        self.last_write_at: float | None = None
        #: Called with each committed transaction's duration in seconds (metrics).
        self.on_commit: Callable[[float], None] | None = None

    @classmethod
    async def open(cls, path: Path | str) -> Database:
        path = Path(path)
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(path, isolation_level=None)
        conn.row_factory = aiosqlite.Row
        db = cls(conn, path)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
            await db.migrate()
        except BaseException:
            await conn.close()
            raise
        return db

    async def close(self) -> None:
        async with self._write_lock:
            await self.conn.close()

    async def schema_version(self) -> int:
        async with self.conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def migrate(self) -> list[str]:
        """Apply every migration newer than the file's user_version; return their names."""
        current = await self.schema_version()
        applied = []
        for version, name, sql in migrations():
            if version <= current:
                continue
            log.info("applying migration %s", name)
            async with self.transaction() as conn:
                # executescript would COMMIT on its own; run statement by statement instead.
                for statement in _split_sql(sql):
                    await conn.execute(statement)
                await conn.execute(f"PRAGMA user_version = {version:d}")
            applied.append(name)
        return applied

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE .. COMMIT (ROLLBACK on error), serialised within this process."""
        async with self._write_lock:
            started = time.perf_counter()
            await self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                await self.conn.execute("ROLLBACK")
                raise
            else:
                await self.conn.execute("COMMIT")
                self.last_write_at = time.time()
                if self.on_commit is not None:
                    self.on_commit(time.perf_counter() - started)

    async def run_transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work(connection)` in BEGIN IMMEDIATE..COMMIT as one trip to the database thread.

        For the hot path (recording a click). Every statement sent through aiosqlite is a
        round trip between the event loop and aiosqlite's worker thread: two thread
        wake-ups and a GIL hand-off, about 0.1 ms, against microseconds of SQL, and the
        write lock is held across all of them. Here the whole transaction is one plain
        `sqlite3` function run on that thread, so it is one trip (docs/performance.md has
        the figures). `work` runs on the database thread: it must not touch the event loop
        or anything else shared, only the connection it is given. An exception in it rolls
        the transaction back and is raised here.

        aiosqlite has no public way to run a callable on its thread, so this uses its
        `_execute` (present from 0.17 to 0.22; `tests/storage/test_db.py` pins it).
        """

        def transaction(conn: sqlite3.Connection) -> T:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return result

        async with self._write_lock:
            started = time.perf_counter()
            result: T = await self.conn._execute(transaction, self.conn._conn)
            self.last_write_at = time.time()
            if self.on_commit is not None:
                self.on_commit(time.perf_counter() - started)
            return result


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements (our migrations hold no ';' inside literals)."""
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
