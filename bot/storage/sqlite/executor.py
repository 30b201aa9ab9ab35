"""SQLite's `Executor` (bot/storage/sql.py): the shared stores' statements on aiosqlite.

A thin adapter over `Database`: reads go to its aiosqlite connection as one trip each
(`execute_fetchall`: execute, fetch and close in one hop to aiosqlite's thread), writes
through `Database.transaction()`, which holds the write lock from BEGIN IMMEDIATE to
COMMIT and turns a storage fault into `WriteFailed`. The click path does not come here
(bot/storage/sqlite/clicks.py runs on the database's own thread, in a group commit).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import cast

import aiosqlite

from bot.storage.sql import Dialect, Executor, Query, Row
from bot.storage.sqlite.db import Database

__all__ = ["SqliteExecutor"]


class SqliteExecutor:
    """`Executor` over one SQLite `Database`; inside `transaction()`, over its open
    transaction."""

    def __init__(self, db: Database, conn: aiosqlite.Connection | None = None) -> None:
        self.db = db
        #: The connection of the open transaction; None outside one.
        self._conn = conn

    @property
    def dialect(self) -> Dialect:
        return Dialect.SQLITE

    async def fetch(self, query: Query, /, **params: object) -> list[Row]:
        sql, args = _bind(query, params)
        conn = self.db.conn if self._conn is None else self._conn
        rows = await conn.execute_fetchall(sql, args)
        # sqlite3.Row reads by position, unpacks and iterates: the `Row` of sql.py.
        return cast("list[Row]", list(rows))

    async def fetch_one(self, query: Query, /, **params: object) -> Row | None:
        rows = await self.fetch(query, **params)
        return rows[0] if rows else None

    async def execute(self, query: Query, /, **params: object) -> int:
        if self._conn is None:
            async with self.transaction() as tx:
                return await tx.execute(query, **params)
        sql, args = _bind(query, params)
        # One trip; the cursor holds nothing once a write has run (not closed: a trip more).
        cursor = await self._conn.execute(sql, args)
        return cursor.rowcount

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Executor]:
        if self._conn is not None:
            raise RuntimeError("SqliteExecutor.transaction: already in a transaction")
        async with self.db.transaction() as conn:
            yield SqliteExecutor(self.db, conn)


def _bind(query: Query, params: dict[str, object]) -> tuple[str, list[object]]:
    """The statement in sqlite3's form; a list value as JSON text (SQLite has no arrays)."""
    sql, args = query.bind(Dialect.SQLITE, params)
    return sql, [json.dumps(a) if isinstance(a, list) else a for a in args]
