"""The PostgreSQL database: an asyncpg pool, numbered migrations applied at open.

Why it differs from the SQLite `Database`: PostgreSQL is shared by any number of bot
processes (issue 15), so nothing may rely on an in-process lock. Each write is one
transaction on a pooled connection (`transaction()`), and correctness under concurrency
comes from the schema's keys and unique indexes (the same as SQLite's: one answer per
member per post, one daily slot per server and day), so the stores write with
`INSERT ... ON CONFLICT` at READ COMMITTED rather than retrying SERIALIZABLE conflicts.

Migrations: bot/storage/pg/migrations/ holds one `NNNN_name.sql` per SQLite migration, same
numbers and names. Each runs as one transaction (PostgreSQL's DDL is transactional, so a
failed migration leaves nothing behind) that also records its version in `tpquiz_schema`
(PostgreSQL has no `user_version`). Two processes starting together take turns on an
advisory lock, so a migration runs once. The password of the URL appears in no log line
and no error: they show `DatabaseUrl.redacted`, and a driver's error text is scrubbed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from bot.infra.config import DatabaseUrl
from bot.storage.errors import WriteFailed
from bot.storage.migration_files import numbered
from bot.storage.problems import DatabaseUnusable

__all__ = [
    "MIGRATION_LOCK",
    "VERSION_TABLE",
    "PgDatabase",
    "pending_pg_migrations",
    "pg_migrations",
]

log = logging.getLogger(__name__)

#: The table holding one row per applied migration (SQLite keeps PRAGMA user_version).
VERSION_TABLE = "tpquiz_schema"
#: pg_advisory_lock key held while migrating ('tpqz' as an integer): one migrator at a time.
MIGRATION_LOCK = 0x7470717A
#: Seconds to wait for a connection before saying the server cannot be reached.
CONNECT_TIMEOUT = 10.0


async def _keep_session(conn: asyncpg.Connection) -> None:
    """The pool's reset when a connection comes back: nothing to send.

    asyncpg's default sends `pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET
    ALL` on every release: one more round trip per transaction, a fifth of a click's
    trips. tpquiz leaves none of that behind on a pooled connection: no session settings,
    cursors or LISTEN, and the one session advisory lock (the migration lock) is given
    back in a `finally` (the shard locks live on connections of their own). asyncpg still
    rolls back a transaction left open before calling this (its `reset` contract).
    """


def pg_migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every bundled PostgreSQL migration, in order."""
    return numbered("pg")


def pending_pg_migrations(version: int) -> list[tuple[int, str, str]]:
    """The bundled migrations `PgDatabase.migrate` would apply to a database at `version`,
    in order: what `tpquiz db status` lists and `db upgrade --dry-run` prints."""
    return [m for m in pg_migrations() if m[0] > version]


def cannot_connect(url: DatabaseUrl, exc: BaseException) -> str:
    detail = url.scrub(str(exc)) or type(exc).__name__
    return (
        f"cannot connect to PostgreSQL at {url.redacted} ({detail}): check that the server "
        "runs and accepts connections from here, and the user, password and database name "
        "in TPQUIZ_DATABASE_URL"
    )


def not_tpquiz(url: DatabaseUrl, tables: list[str]) -> str:
    shown = ", ".join(tables[:5]) + (" ..." if len(tables) > 5 else "")
    return (
        f"the PostgreSQL database {url.redacted} holds tables that are not tpquiz's "
        f"({shown}) and no {VERSION_TABLE} table: give tpquiz a database of its own "
        "(CREATE DATABASE tpquiz)"
    )


def schema_too_new(url: DatabaseUrl, version: int, newest: int) -> str:
    return (
        f"the PostgreSQL database {url.redacted} is at schema {version}, newer than this "
        f"tpquiz knows ({newest}): run the newer tpquiz that wrote it"
    )


def migration_failed(url: DatabaseUrl, name: str, exc: BaseException) -> str:
    return (
        f"migration {name} failed on {url.redacted} and was rolled back "
        f"({url.scrub(str(exc)) or type(exc).__name__}): nothing of it was applied"
    )


class PgDatabase:
    """A pool of connections to one PostgreSQL database at the current schema."""

    def __init__(self, pool: asyncpg.Pool, url: DatabaseUrl) -> None:
        self.pool = pool
        self.url = url
        #: As SQLite's `Database`: called with each committed write transaction's
        #: duration (metrics), and the wall-clock time of the last one (the heartbeat).
        self.on_commit: Callable[[float], None] | None = None
        self.last_write_at: float | None = None
        #: SQLite's lost-file fault has no PostgreSQL counterpart: a failing server shows
        #: as WriteFailed on each write instead (the heartbeat's probe write logs it).
        self.fault: str | None = None

    @classmethod
    async def open(
        cls,
        url: DatabaseUrl | str,
        *,
        migrate: bool = True,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> PgDatabase:
        """Connect and (unless `migrate` is False) apply the pending migrations.

        Raises `DatabaseUnusable` with one sentence that never shows the password: the
        server cannot be reached or refuses the login, the database is someone else's,
        its schema is newer than this code, or a migration failed (it was rolled back).
        """
        url = url if isinstance(url, DatabaseUrl) else DatabaseUrl(url)
        try:
            pool = await asyncpg.create_pool(
                url.dsn,
                min_size=min_size,
                max_size=max_size,
                timeout=connect_timeout,
                reset=_keep_session,
            )
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise DatabaseUnusable(cannot_connect(url, exc)) from None
        db = cls(pool, url)
        try:
            if migrate:
                await db.migrate()
            else:
                await db._check_version()
        except BaseException:
            await pool.close()
            raise
        return db

    async def close(self) -> None:
        await self.pool.close()

    async def schema_version(self) -> int:
        """The newest migration applied; 0 for an empty database."""
        async with self.pool.acquire() as conn:
            return await _version(conn)

    async def _check_version(self) -> int:
        async with self.pool.acquire() as conn:
            version = await _version(conn)
            if version == 0:
                foreign = await _foreign_tables(conn)
                if foreign:
                    raise DatabaseUnusable(not_tpquiz(self.url, foreign))
        newest = len(pg_migrations())
        if version > newest:
            raise DatabaseUnusable(schema_too_new(self.url, version, newest))
        return version

    async def migrate(self, *, target: int | None = None) -> list[str]:
        """Apply every migration newer than the database's (up to `target`); their names.

        Holds an advisory lock for the whole run, so concurrent starts migrate once.
        """
        applied: list[str] = []
        async with self.pool.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
            try:
                current = await _version(conn)
                if current == 0:
                    foreign = await _foreign_tables(conn)
                    if foreign:
                        raise DatabaseUnusable(not_tpquiz(self.url, foreign))
                known = pg_migrations()
                if current > len(known):
                    raise DatabaseUnusable(schema_too_new(self.url, current, len(known)))
                for version, name, sql in known:
                    if version <= current or (target is not None and version > target):
                        continue
                    log.info("applying PostgreSQL migration %s on %s", name, self.url.redacted)
                    try:
                        async with conn.transaction():
                            await _ensure_version_table(conn)
                            # No arguments: the simple protocol runs the whole script.
                            await conn.execute(sql)
                            await conn.execute(
                                f"INSERT INTO {VERSION_TABLE} (version, name) VALUES ($1, $2)",
                                version,
                                name,
                            )
                    except asyncpg.PostgresError as exc:
                        raise DatabaseUnusable(migration_failed(self.url, name, exc)) from None
                    applied.append(name)
            finally:
                try:
                    await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
                except BaseException:
                    # The pool does not reset sessions (`_keep_session`): a connection
                    # that may still hold the lock must not go back to it.
                    conn.terminate()
                    raise
        return applied

    @asynccontextmanager
    async def transaction(
        self, *, isolation: str = "read_committed", readonly: bool = False
    ) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection inside BEGIN .. COMMIT (ROLLBACK when the body raises).

        Raises `WriteFailed` (nothing was saved) when the server or the connection
        fails anywhere from BEGIN to COMMIT; other exceptions, the body's own and
        constraint violations included, pass unchanged.

        `isolation` is asyncpg's ('read_committed', 'repeatable_read', 'serializable').
        The stores rely on unique constraints and ON CONFLICT, which hold at READ
        COMMITTED across processes; a multi-table read that needs one snapshot (an
        export) asks for 'repeatable_read' with `readonly`.
        """
        started = time.perf_counter()
        try:
            async with (
                self.pool.acquire() as conn,
                conn.transaction(isolation=isolation, readonly=readonly),
            ):
                yield conn
            if not readonly:
                self.last_write_at = time.time()
                if self.on_commit is not None:
                    self.on_commit(time.perf_counter() - started)
        except BaseException as exc:
            self._raise_fault(exc)
            raise

    async def fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        """One read outside any transaction (autocommit), on a pooled connection.

        A server that cannot be reached raises `WriteFailed`, as a write does: whatever
        the read was for (a click on a post not in memory, a command) saves nothing, and
        the member is told so in one line rather than "something went wrong" (issue 31).
        """
        try:
            async with self.pool.acquire() as conn:
                return list(await conn.fetch(sql, *args))
        except BaseException as exc:
            self._raise_fault(exc)
            raise

    async def fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        """As `fetch`, the first row or None."""
        try:
            async with self.pool.acquire() as conn:
                row: asyncpg.Record | None = await conn.fetchrow(sql, *args)
                return row
        except BaseException as exc:
            self._raise_fault(exc)
            raise

    def _raise_fault(self, exc: BaseException) -> None:
        """Raise `WriteFailed` for a storage fault (`_FAULTS`); return for anything else.

        Not logged here: the caller says it once (the member's reply, or a loop's
        `bot.infra.fault_log.FaultLog`), so a database that is down costs one line, not two.
        """
        fault = _storage_fault(exc)
        if fault is None:
            return
        reason = self.url.scrub(fault)
        log.debug("PostgreSQL: nothing saved: %s", reason)
        raise WriteFailed(reason) from exc


#: asyncpg's errors that mean the server or the connection failed, not the program: the
#: transaction was rolled back and may succeed later. Constraint violations (23xxx) and
#: programming errors pass unchanged, as on SQLite (bot/storage/sqlite/db.py).
_FAULTS: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,  # 08: the connection is gone
    asyncpg.InterfaceError,  # the connection closed under asyncpg
    asyncpg.InsufficientResourcesError,  # 53: disk full, out of memory, too many clients
    asyncpg.OperatorInterventionError,  # 57: shutdown, cancelled, terminated
    asyncpg.ReadOnlySQLTransactionError,  # a standby, or default_transaction_read_only
    asyncpg.TransactionRollbackError,  # 40: serialization failure, deadlock
)


def _storage_fault(exc: BaseException) -> str | None:
    """One line for a storage fault (see `_FAULTS`), or None for any other exception."""
    if not isinstance(exc, _FAULTS):
        return None
    # A lost connection also fails the ROLLBACK (InterfaceError): name the first fault.
    while isinstance(exc.__context__, _FAULTS) and isinstance(exc, asyncpg.InterfaceError):
        exc = exc.__context__
    sqlstate = getattr(exc, "sqlstate", None)
    detail = str(exc) or type(exc).__name__
    return f"{detail} ({sqlstate})" if sqlstate else f"{detail} ({type(exc).__name__})"


async def _version(conn: asyncpg.Connection) -> int:
    exists = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", VERSION_TABLE)
    if not exists:
        return 0
    return int(await conn.fetchval(f"SELECT COALESCE(MAX(version), 0) FROM {VERSION_TABLE}"))


async def _ensure_version_table(conn: asyncpg.Connection) -> None:
    await conn.execute(
        f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} ("
        " version    INTEGER PRIMARY KEY,"
        " name       TEXT NOT NULL,"
        " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )


async def _foreign_tables(conn: asyncpg.Connection) -> list[str]:
    """Tables in the current schema of a database without tpquiz's version table."""
    rows = await conn.fetch(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        " ORDER BY table_name"
    )
    return [str(r[0]) for r in rows]
