"""The SQLite and PostgreSQL schemas agree, table by table (issue 15).

Every SQLite migration (bot/storage/sqlite/migrations/) has a PostgreSQL twin with the same
file name (bot/storage/pg/migrations/); after all of them, both databases hold the same
tables, columns (types through tests/storage/schema_shape.TYPE_FAMILIES), nullability,
defaults, primary keys, indexes (unique or not, columns, order, partial predicate) and
foreign keys. A new SQLite migration without its twin fails here with the missing path.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg
import pytest

from bot.storage.migration_files import header_problem
from bot.storage.pg.db import PgDatabase, pg_migrations
from bot.storage.sqlite.db import Database
from bot.storage.sqlite.migrate import migrations
from tests.storage.schema_shape import differences, pg_shape, sqlite_shape

SQLITE_DIR = "bot/storage/sqlite/migrations"
PG_DIR = "bot/storage/pg/migrations"


@pytest.mark.parametrize("name", [name for _, name, _ in migrations()])
def test_every_sqlite_migration_has_a_postgresql_twin(name: str) -> None:
    twins = {n for _, n, _ in pg_migrations()}
    assert name in twins, (
        f"{PG_DIR}/{name} is missing: write the PostgreSQL twin of {SQLITE_DIR}/{name} "
        f"(same number and name; PostgreSQL has {', '.join(sorted(twins))})"
    )


def test_no_postgresql_migration_lacks_a_sqlite_one() -> None:
    sqlite = {n for _, n, _ in migrations()}
    extra = [n for _, n, _ in pg_migrations() if n not in sqlite]
    assert extra == [], f"{PG_DIR} has migrations {SQLITE_DIR} has not: {extra}"


@pytest.mark.parametrize("name", [name for _, name, _ in pg_migrations()])
def test_every_postgresql_migration_has_the_header(name: str) -> None:
    sql = {n: s for _, n, s in pg_migrations()}[name]
    problem = header_problem(name, sql)
    assert problem is None, f"{PG_DIR}/{problem}"


async def _both(tmp_path: Path, pg_url: str) -> list[str]:
    db = await Database.open(tmp_path / "schema.sqlite3")
    await db.close()
    with sqlite3.connect(tmp_path / "schema.sqlite3") as conn:
        lite = sqlite_shape(conn)
    pg = await PgDatabase.open(pg_url)
    await pg.close()
    conn_ = await asyncpg.connect(pg_url)
    try:
        post = await pg_shape(conn_)
    finally:
        await conn_.close()
    assert len(lite) >= 15, sorted(lite)  # the comparison compares something
    return differences(lite, post)


async def test_the_two_schemas_agree_table_by_table(tmp_path: Path, pg_url: str) -> None:
    problems = await _both(tmp_path, pg_url)
    assert problems == [], "the PostgreSQL schema differs from SQLite's:\n" + "\n".join(problems)


async def test_a_difference_is_named(tmp_path: Path, pg_url: str) -> None:
    """The comparison can fail: a dropped index, a nullable column, a new table, a type."""
    pg = await PgDatabase.open(pg_url)
    try:
        async with pg.transaction() as conn:
            await conn.execute("DROP INDEX answers_first")
            await conn.execute("ALTER TABLE members ALTER COLUMN name DROP NOT NULL")
            await conn.execute("ALTER TABLE cards ALTER COLUMN stability TYPE real")
            await conn.execute("CREATE TABLE stray (id int PRIMARY KEY)")
    finally:
        await pg.close()
    problems = await _both(tmp_path, pg_url)
    assert "table stray: in PostgreSQL, missing in SQLite" in problems
    assert "members.name: NOT NULL in SQLite, nullable in PostgreSQL" in problems
    assert "cards.stability: SQLite REAL is PostgreSQL real" in problems
    assert any(p.startswith("answers: index answers_first is Index(unique=True") for p in problems)
