"""One SQL text for both databases (bot/storage/sql.py) and the executors that run it.

The `Query` half needs no database: what each dialect's text and argument order become.
The executor half runs on a real SQLite file and a real PostgreSQL server (`backend`),
since the shared stores rely on both executors behaving alike: rows by position, row
counts, a transaction that rolls back whole, a list bound as an array.
"""

from __future__ import annotations

import pytest

from bot.storage.pg.executor import PgExecutor, rowcount
from bot.storage.sql import Dialect, Executor, Fragment, Query, numbered
from bot.storage.sqlite.executor import SqliteExecutor
from tests.storage.conftest import Backend


def test_each_name_gets_one_number_in_order_of_first_use() -> None:
    query = Query("SELECT :b, :a, :b WHERE x = :c")
    assert query.bind(Dialect.SQLITE, {"a": 1, "b": 2, "c": 3, "unused": 4}) == (
        "SELECT ?1, ?2, ?1 WHERE x = ?3",
        [2, 1, 3],
    )
    assert query.bind(Dialect.POSTGRESQL, {"a": 1, "b": 2, "c": 3}) == (
        "SELECT $1, $2, $1 WHERE x = $3",
        [2, 1, 3],
    )


def test_casts_and_quoted_text_are_not_parameters() -> None:
    sql = "SELECT :a::bigint, '09:00', 'it''s :not', COALESCE(:b, 'x:y')"
    assert Query(sql).compile(Dialect.POSTGRESQL).sql == (
        "SELECT $1::bigint, '09:00', 'it''s :not', COALESCE($2, 'x:y')"
    )


def test_a_fragment_is_each_dialects_own_text() -> None:
    query = Query(
        "SELECT 1 FROM t {hint} WHERE {among}",
        hint=Fragment(sqlite="INDEXED BY t_ids", postgresql=""),
        among=Fragment(
            sqlite="id IN (SELECT value FROM json_each(:ids))", postgresql="id = ANY(:ids)"
        ),
    )
    assert query.compile(Dialect.SQLITE).sql == (
        "SELECT 1 FROM t INDEXED BY t_ids WHERE id IN (SELECT value FROM json_each(?1))"
    )
    assert query.compile(Dialect.POSTGRESQL).sql == "SELECT 1 FROM t  WHERE id = ANY($1)"


def test_a_fragment_not_given_is_refused() -> None:
    with pytest.raises(ValueError, match="hint"):
        Query("SELECT 1 FROM t {hint}").compile(Dialect.SQLITE)


def test_a_missing_value_is_refused() -> None:
    with pytest.raises(KeyError):
        Query("SELECT :a").bind(Dialect.SQLITE, {})


def test_each_query_is_compiled_once_per_dialect() -> None:
    query = Query("SELECT :a")
    assert query.compile(Dialect.SQLITE) is query.compile(Dialect.SQLITE)
    assert numbered("SELECT :a", Dialect.POSTGRESQL) is numbered("SELECT :a", Dialect.POSTGRESQL)


def test_the_command_status_gives_the_row_count() -> None:
    assert (rowcount("UPDATE 3"), rowcount("INSERT 0 1"), rowcount("DELETE 0")) == (3, 1, 0)


def _executor(backend: Backend) -> Executor:
    if backend.name == "sqlite":
        return SqliteExecutor(backend.db)
    return PgExecutor(backend.db)


_PUT = Query("INSERT INTO meta (key, value) VALUES (:key, :value)")
_RENAME = Query("UPDATE meta SET value = :value WHERE key LIKE :like")
_READ = Query("SELECT key, value FROM meta WHERE key LIKE :like ORDER BY key")
_AMONG = Query(
    "SELECT key FROM meta WHERE {among} ORDER BY key",
    among=Fragment(
        sqlite="key IN (SELECT value FROM json_each(:keys))", postgresql="key = ANY(:keys)"
    ),
)


async def test_both_executors_read_write_and_count_alike(backend: Backend) -> None:
    db = _executor(backend)
    assert db.dialect is (Dialect.SQLITE if backend.name == "sqlite" else Dialect.POSTGRESQL)
    assert await db.execute(_PUT, key="t.a", value="1") == 1
    async with db.transaction() as tx:
        await tx.execute(_PUT, key="t.b", value="2")
        assert [tuple(r) for r in await tx.fetch(_READ, like="t.%")] == [("t.a", "1"), ("t.b", "2")]
    assert await db.execute(_RENAME, value="3", like="t.%") == 2
    row = await db.fetch_one(_READ, like="t.b")
    assert row is not None and (row[0], row[1]) == ("t.b", "3")
    assert await db.fetch_one(_READ, like="none") is None
    assert [r[0] for r in await db.fetch(_AMONG, keys=["t.b", "t.z", "t.a"])] == ["t.a", "t.b"]


async def test_a_transaction_that_raises_leaves_nothing(backend: Backend) -> None:
    db = _executor(backend)
    with pytest.raises(RuntimeError, match="boom"):
        async with db.transaction() as tx:
            await tx.execute(_PUT, key="u.a", value="1")
            raise RuntimeError("boom")
    assert await db.fetch(_READ, like="u.%") == []


async def test_transactions_do_not_nest(backend: Backend) -> None:
    db = _executor(backend)
    async with db.transaction() as tx:
        with pytest.raises(RuntimeError, match="already in a transaction"):
            async with tx.transaction():
                pass
