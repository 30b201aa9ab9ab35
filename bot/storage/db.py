"""The SQLite database: one file, WAL, numbered migrations applied at open.

One aiosqlite connection serves the whole bot. Writes go through `transaction()`, which
holds an asyncio lock for the whole BEGIN IMMEDIATE..COMMIT, so statements of two
coroutines never interleave inside one transaction.

A write that does not commit (disk full, a lock held past the busy timeout, an I/O
error, even at COMMIT) is rolled back, so the connection stays usable, and raises
`WriteFailed`: the caller knows that nothing of it was saved and can say so.

The bot keeps one connection open for days, so the file under it can change: an
operator deletes it, or a restore without the run lock swaps it. SQLite would go on
writing into the open, unlinked file, and every answer after that would vanish at the
next restart. Before each write transaction the path is therefore compared with the
file that was opened (one `os.stat`, about a microsecond, beside a transaction's tens of
microseconds): the open file keeps its inode allocated, so the same device and inode at
the path means the same file, and anything else (no file, another inode) means ours is
gone. From then on every write fails with `WriteFailed` and `fault` says why; the
heartbeat's own write every 15 s makes that visible even when nobody clicks.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from importlib import resources
from pathlib import Path
from typing import TypeVar

import aiosqlite

from . import preflight, problems
from .problems import DatabaseUnusable
from .steps import migration_step

__all__ = ["BUSY_TIMEOUT_MS", "Database", "DatabaseUnusable", "WriteFailed", "migrations"]

log = logging.getLogger(__name__)
T = TypeVar("T")

_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
#: How long a write waits for another process's lock (a backup, say) before failing.
BUSY_TIMEOUT_MS = 30_000

#: Primary SQLite result codes that mean the storage failed, not the program: the write
#: can succeed later (lock released, space freed) or needs the operator.
_STORAGE_FAULTS = {
    sqlite3.SQLITE_BUSY,
    sqlite3.SQLITE_LOCKED,
    sqlite3.SQLITE_NOMEM,
    sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_CORRUPT,
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_PROTOCOL,
    sqlite3.SQLITE_NOTADB,
}


class WriteFailed(Exception):
    """A write transaction did not commit and was rolled back: nothing of it was saved.

    `reason` is one line for the log, e.g. "database or disk is full (SQLITE_FULL)".
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _storage_fault(exc: BaseException) -> WriteFailed | None:
    """The WriteFailed an sqlite3 error stands for, or None for a programming error."""
    if not isinstance(exc, sqlite3.Error) or isinstance(exc, sqlite3.IntegrityError):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in _STORAGE_FAULTS:
        return None
    return WriteFailed(f"{exc} ({getattr(exc, 'sqlite_errorname', code)})")


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
        self._last_write_at: float | None = None
        #: Called with each committed transaction's duration in seconds (metrics).
        self.on_commit: Callable[[float], None] | None = None
        #: (st_dev, st_ino) of the file opened; None for an in-memory database.
        self._identity: tuple[int, int] | None = None
        self._where = path.absolute()
        self._fault: str | None = None

    @property
    def last_write_at(self) -> float | None:
        """Wall-clock time of the last COMMIT that is still in the file at `path`.

        None once the file was lost (see `fault`): what was committed went with it, and
        the heartbeat then reports the database as not written.
        """
        return None if self._fault else self._last_write_at

    @property
    def fault(self) -> str | None:
        """Why this database takes no more writes (its file was deleted or replaced)."""
        return self._fault

    @classmethod
    async def open(
        cls, path: Path | str, *, readonly: bool = False, busy_timeout_ms: int = BUSY_TIMEOUT_MS
    ) -> Database:
        """Open (and, unless `readonly`, create and migrate) the database at `path`.

        Raises `DatabaseUnusable` with one sentence (bot.storage.problems) when the path
        cannot serve: a directory, not SQLite, a schema newer than this code, and so on.
        `readonly` opens an existing file without changing it (no migration, no journal
        mode switch) and also refuses a schema older than the code, which it could not read.
        """
        path = Path(path)
        memory = str(path) == ":memory:"
        if not memory:
            problem = preflight.path_problem(path, write=not readonly)
            if problem:
                raise DatabaseUnusable(problem)
            if not readonly:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise DatabaseUnusable(problems.cannot_open(path, exc)) from None
        target: str | Path = path
        if readonly and not memory:
            target = preflight.readonly_uri(path)
        try:
            conn = await aiosqlite.connect(target, isolation_level=None, uri=readonly)
        except (sqlite3.Error, OSError) as exc:
            raise DatabaseUnusable(problems.cannot_open(path, exc)) from None
        conn.row_factory = aiosqlite.Row
        db = cls(conn, path)
        try:
            await db._prepare(readonly=readonly, busy_timeout_ms=busy_timeout_ms)
        except BaseException:
            await conn.close()
            raise
        return db

    async def _prepare(self, *, readonly: bool, busy_timeout_ms: int) -> None:
        conn, path = self.conn, self.path
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
            version = await self.schema_version()
            newest = len(migrations())
            if await self._foreign():
                raise DatabaseUnusable(problems.not_tpquiz(path, version))
            if version > newest:
                raise DatabaseUnusable(problems.schema_too_new(path, version, newest))
            if readonly:
                if version < newest:
                    raise DatabaseUnusable(problems.schema_too_old_to_read(path, version, newest))
            else:
                await conn.execute("PRAGMA journal_mode = WAL")
                await conn.execute("PRAGMA synchronous = NORMAL")
                await conn.execute("PRAGMA foreign_keys = ON")
                await self.migrate()
        except sqlite3.DatabaseError as exc:
            code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
            if code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT):
                raise DatabaseUnusable(problems.unreadable_sqlite(path, exc)) from None
            raise DatabaseUnusable(problems.cannot_open(path, exc)) from None
        except WriteFailed as exc:  # a migration that could not commit
            raise DatabaseUnusable(problems.cannot_open(path, exc)) from None
        if str(path) != ":memory:":
            st = os.stat(self._where)
            self._identity = (st.st_dev, st.st_ino)

    async def _foreign(self) -> bool:
        """Whether the file holds tables but not tpquiz's (someone else's database)."""
        async with self.conn.execute(
            "SELECT COUNT(*), COUNT(*) FILTER (WHERE name = 'answers') FROM sqlite_master"
            " WHERE type = 'table'"
        ) as cur:
            row = await cur.fetchone()
        return row is not None and row[0] > 0 and row[1] == 0

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
            step = migration_step(name)
            async with self.transaction() as conn:
                # executescript would COMMIT on its own; run statement by statement instead.
                for statement in _split_sql(sql):
                    await conn.execute(statement)
                if step is not None:
                    # On the database thread, inside this migration's transaction.
                    done = await self.conn._execute(step.run, self.conn._conn)
                    log.info("migration %s: %s: %s", name, step.what, done)
                await conn.execute(f"PRAGMA user_version = {version:d}")
            applied.append(name)
        return applied

    def check_file(self) -> None:
        """Raise WriteFailed if the file at `path` is no longer the one this connection has.

        Logs one error the first time; see the module docstring for why this works.
        """
        if self._fault is not None:
            raise WriteFailed(self._fault)
        if self._identity is None:
            return
        try:
            st = os.stat(self._where)
        except (FileNotFoundError, NotADirectoryError):
            how = "deleted"
        except OSError:
            return  # cannot tell (a permission change on the directory): SQLite will say
        else:
            if (st.st_dev, st.st_ino) == self._identity:
                return
            how = "replaced by another file"
        self._fault = problems.file_lost(self.path, how)
        log.error("%s", self._fault)
        raise WriteFailed(self._fault)

    def _committed(self, started: float) -> None:
        self._last_write_at = time.time()
        if self.on_commit is not None:
            self.on_commit(time.perf_counter() - started)

    async def _rollback(self) -> None:
        """Roll back whatever is open; a failed COMMIT may have left the transaction open."""
        if self.conn.in_transaction:
            with suppress(sqlite3.Error):
                await self.conn.execute("ROLLBACK")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE .. COMMIT (ROLLBACK on error), serialised within this process.

        Raises WriteFailed for a storage fault (see the module docstring), anywhere from
        BEGIN to COMMIT; other exceptions (including the body's own) pass unchanged.
        """
        async with self._write_lock:
            self.check_file()
            started = time.perf_counter()
            try:
                await self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                fault = _storage_fault(exc)
                if fault is not None:
                    raise fault from exc
                raise
            try:
                yield self.conn
                await self.conn.execute("COMMIT")
            except BaseException as exc:
                await self._rollback()
                fault = _storage_fault(exc)
                if fault is not None:
                    raise fault from exc
                raise
            self._committed(started)

    async def run_transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work(connection)` in BEGIN IMMEDIATE..COMMIT as one trip to the database thread.

        For the hot path (recording a click). Every statement sent through aiosqlite is a
        round trip between the event loop and aiosqlite's worker thread: two thread
        wake-ups and a GIL hand-off, about 0.1 ms, against microseconds of SQL, and the
        write lock is held across all of them. Here the whole transaction is one plain
        `sqlite3` function run on that thread, so it is one trip (docs/performance.md has
        the figures). `work` runs on the database thread: it must not touch the event loop
        or anything else shared, only the connection it is given. An exception in it rolls
        the transaction back and is raised here (a storage fault as WriteFailed).

        aiosqlite has no public way to run a callable on its thread, so this uses its
        `_execute` (present from 0.17 to 0.22; `tests/storage/test_db.py` pins it).
        """

        def transaction(conn: sqlite3.Connection) -> T:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # a failed COMMIT can leave it open
                    with suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
            return result

        async with self._write_lock:
            self.check_file()
            started = time.perf_counter()
            try:
                result: T = await self.conn._execute(transaction, self.conn._conn)
            except sqlite3.Error as exc:
                fault = _storage_fault(exc)
                if fault is not None:
                    raise fault from exc
                raise
            self._committed(started)
            return result

    async def run_read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read-only `work(connection)` on the database thread in one trip.

        For reads that walk many rows in plain sqlite3 (item statistics, report lists, a
        member's export); `work` must not write. Outside a transaction it runs in one
        read transaction, so several tables are read from one snapshot (an export); it
        also works on a read-only connection, where BEGIN IMMEDIATE fails. Inside a
        write transaction of `transaction()` (another coroutine between two of its
        statements) it reads as the other reads do, without touching that transaction.
        """

        def read(conn: sqlite3.Connection) -> T:
            if conn.in_transaction:
                return work(conn)
            conn.execute("BEGIN")
            try:
                return work(conn)
            finally:
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")

        result: T = await self.conn._execute(read, self.conn._conn)
        return result


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements (our migrations hold no ';' inside literals)."""
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
