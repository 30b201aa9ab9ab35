"""PostgreSQL's `Executor` (bot/storage/sql.py): the shared stores' statements on asyncpg.

A thin adapter over `PgDatabase`: outside a transaction each statement runs on a pooled
connection in autocommit (`PgDatabase.fetch`), inside `transaction()` on the
transaction's connection at READ COMMITTED (`PgDatabase.transaction`, which also turns a
server or connection failure into `WriteFailed`). asyncpg prepares each statement once
per connection; the `$n` text comes from `Query`'s cache, so it is the same every call.
The click path does not come here (bot/storage/pg/clicks.py, one server function).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from bot.storage.pg.db import PgDatabase
from bot.storage.sql import Dialect, Executor, Query, Row

__all__ = ["PgExecutor", "rowcount"]


class PgExecutor:
    """`Executor` over one `PgDatabase`; inside `transaction()`, over its connection."""

    def __init__(self, db: PgDatabase, conn: asyncpg.Connection | None = None) -> None:
        self.db = db
        #: The connection of the open transaction; None outside one.
        self._conn = conn

    @property
    def dialect(self) -> Dialect:
        return Dialect.POSTGRESQL

    async def fetch(self, query: Query, /, **params: object) -> list[Row]:
        sql, args = query.bind(Dialect.POSTGRESQL, params)
        if self._conn is None:
            return await self.db.fetch(sql, *args)
        return list(await self._conn.fetch(sql, *args))

    async def fetch_one(self, query: Query, /, **params: object) -> Row | None:
        sql, args = query.bind(Dialect.POSTGRESQL, params)
        if self._conn is None:
            return await self.db.fetchrow(sql, *args)
        row: Row | None = await self._conn.fetchrow(sql, *args)
        return row

    async def execute(self, query: Query, /, **params: object) -> int:
        if self._conn is None:
            async with self.transaction() as tx:
                return await tx.execute(query, **params)
        sql, args = query.bind(Dialect.POSTGRESQL, params)
        return rowcount(await self._conn.execute(sql, *args))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Executor]:
        if self._conn is not None:
            raise RuntimeError("PgExecutor.transaction: already in a transaction")
        async with self.db.transaction() as conn:
            yield PgExecutor(self.db, conn)


def rowcount(status: str) -> int:
    """The row count of asyncpg's command status ('UPDATE 1' -> 1, 'INSERT 0 1' -> 1)."""
    return int(status.rsplit(" ", 1)[-1])
