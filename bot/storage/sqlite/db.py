"""The SQLite database: one file, WAL, numbered migrations applied at open.

Two connections to the one file serve the whole bot, and one asyncio lock serialises
their writes, so statements of two coroutines never interleave inside one transaction:

- `conn`, an aiosqlite connection, for the stores' statement-by-statement async code;
  its writes go through `transaction()`, which holds the lock for the whole
  BEGIN IMMEDIATE..COMMIT;
- a plain `sqlite3` connection owned by this class on its own single-worker thread, for
  work written as one plain function (`run_transaction`, `run_read`, the migrations):
  the click path, member deletion, exports, item statistics. One function is one trip
  to that thread however many statements it runs. aiosqlite has no public way to run a
  callable on its own thread, so rather than reaching into its internals the database
  keeps a thread of its own (docs/performance.md says what a trip costs).

In WAL mode each connection reads the last committed state, so a read on one never sees
the other's uncommitted writes.

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
import sqlite3
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from functools import partial
from pathlib import Path
from typing import TypeVar

import aiosqlite

from bot.storage import problems
from bot.storage.errors import WriteFailed
from bot.storage.problems import DatabaseUnusable
from bot.storage.sqlite import preflight
from bot.storage.sqlite.checkpoints import SAFETY_NET_PAGES, Checkpointer
from bot.storage.sqlite.migrate import apply_migration, migration_step, migrations

__all__ = ["BUSY_TIMEOUT_MS", "Database", "storage_fault"]

log = logging.getLogger(__name__)
T = TypeVar("T")

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


def storage_fault(exc: BaseException) -> WriteFailed | None:
    """The WriteFailed an sqlite3 error stands for, or None for a programming error."""
    if not isinstance(exc, sqlite3.Error) or isinstance(exc, sqlite3.IntegrityError):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in _STORAGE_FAULTS:
        return None
    return WriteFailed(f"{exc} ({getattr(exc, 'sqlite_errorname', code)})")


class Database:
    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        #: The plain sqlite3 connection and the one thread that uses it (`_open_direct`).
        self._direct: sqlite3.Connection | None = None
        self._thread: ThreadPoolExecutor | None = None
        #: A temporary directory standing in for ":memory:" (two connections must share
        #: one database, and a private in-memory one is per connection).
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self._write_lock = asyncio.Lock()
        self._last_write_at: float | None = None
        #: Called with each committed transaction's duration in seconds (metrics).
        self.on_commit: Callable[[float], None] | None = None
        #: (st_dev, st_ino) of the file opened; None for an in-memory database.
        self._identity: tuple[int, int] | None = None
        self._where = path.absolute()
        self._fault: str | None = None
        #: The WAL's checkpoints, off the click path (bot/storage/sqlite/checkpoints.py);
        #: None for a read-only or in-memory database.
        self.checkpointer: Checkpointer | None = None

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
        scratch = None
        target: str | Path = path
        if memory:
            # Nothing is kept (as ":memory:" promises): the file goes at close.
            scratch = tempfile.TemporaryDirectory(prefix="tpquiz-memory-")
            target = Path(scratch.name) / "memory.sqlite3"
        elif readonly:
            target = preflight.readonly_uri(path)
        uri = readonly and not memory
        try:
            conn = await aiosqlite.connect(target, isolation_level=None, uri=uri)
        except (sqlite3.Error, OSError) as exc:
            if scratch is not None:
                scratch.cleanup()
            raise DatabaseUnusable(problems.cannot_open(path, exc)) from None
        conn.row_factory = aiosqlite.Row
        db = cls(conn, path)
        db._scratch = scratch
        if memory:
            db._where = Path(target)
        try:
            await db._open_direct(target, uri=uri, busy_timeout_ms=busy_timeout_ms)
            await db._prepare(readonly=readonly, busy_timeout_ms=busy_timeout_ms)
            if not readonly and not memory:
                db.checkpointer = Checkpointer(target, lambda: db._last_write_at)
                await db.checkpointer.start()
        except BaseException:
            await db._close_all()
            raise
        return db

    async def _open_direct(self, target: str | Path, *, uri: bool, busy_timeout_ms: int) -> None:
        """Open the plain sqlite3 connection on the database's own thread."""
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tpquiz-sqlite")

        def connect() -> sqlite3.Connection:
            conn = sqlite3.connect(target, isolation_level=None, uri=uri)
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
            return conn

        try:
            self._direct = await self.call(lambda _: connect(), connected=False)
        except (sqlite3.Error, OSError) as exc:
            raise DatabaseUnusable(problems.cannot_open(self.path, exc)) from None

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
                for pragma in (
                    "PRAGMA synchronous = NORMAL",
                    "PRAGMA foreign_keys = ON",
                    f"PRAGMA wal_autocheckpoint = {SAFETY_NET_PAGES:d}",
                ):
                    await conn.execute(pragma)  # each is per connection
                    await self.call(partial(_execute_on, pragma))
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
            await self._close_all()

    async def _close_all(self) -> None:
        if self.checkpointer is not None:
            checkpointer, self.checkpointer = self.checkpointer, None
            await checkpointer.stop()
        with suppress(sqlite3.Error):
            await self.conn.close()
        if self._direct is not None:
            direct, self._direct = self._direct, None
            with suppress(sqlite3.Error):
                await self.call(lambda _: direct.close(), connected=False)
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    async def call(self, work: Callable[[sqlite3.Connection], T], *, connected: bool = True) -> T:
        """Run `work(connection)` on the database's own thread, as it is (no transaction).

        The building block of `run_transaction` and `run_read`; also what a test uses to
        reach the plain connection (an authorizer, a pragma). `work` must only touch the
        connection it is given. One call is one trip: a hand-off to the thread and back,
        the asyncio future resolved through `call_soon_threadsafe`.
        """
        if self._thread is None or (connected and self._direct is None):
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        direct = self._direct
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, work, direct)  # type: ignore[arg-type]

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

            done = await self.run_transaction(partial(apply_migration, sql, version, step))
            if step is not None:
                log.info("migration %s: %s: %s", name, step.what, done)
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
                fault = storage_fault(exc)
                if fault is not None:
                    raise fault from exc
                raise
            try:
                yield self.conn
                await self.conn.execute("COMMIT")
            except BaseException as exc:
                await self._rollback()
                fault = storage_fault(exc)
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

        It runs on the database's own connection and thread (`call`), not aiosqlite's.
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
                result: T = await self.call(transaction)
            except sqlite3.Error as exc:
                fault = storage_fault(exc)
                if fault is not None:
                    raise fault from exc
                raise
            self._committed(started)
            return result

    async def run_read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read-only `work(connection)` on the database thread in one trip.

        For reads that walk many rows in plain sqlite3 (item statistics, report lists, a
        member's export); `work` must not write. It runs in one read transaction, so
        several tables are read from one snapshot (an export); it also works on a
        read-only database, where BEGIN IMMEDIATE fails. It sees what was committed: a
        write transaction open on `conn` (another coroutine between two of its
        statements) is invisible to it until it commits.
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

        result: T = await self.call(read)
        return result


def _execute_on(sql: str, conn: sqlite3.Connection) -> None:
    conn.execute(sql)
