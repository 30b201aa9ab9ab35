"""Copy every row of a SQLite database into an empty PostgreSQL one (issue 15's move).

The foundation of `tpquiz db copy --from sqlite:///... --to-file PATH`
(bot/storage/copy_verify.py runs it, with the helpers at the end of this module), and
what the storage tests use to run one data set on both backends. Why it can be this
plain: the two schemas are the same table by table (tests/storage/test_pg_schema.py), so
each table's rows go across as they are, ids included, with asyncpg's COPY. Why it sits
beside the factory rather than in either backend: it reads one and writes the other, so
it and copy_verify.py are the modules besides the factory and the admin port that import
both, and neither backend imports the other.

The copy is one PostgreSQL transaction: it lands whole or not at all. It refuses a
target at another schema version than the source, or one that already holds rows.
Tables go parents first (foreign keys), and each identity sequence is then moved past
the largest id copied, so the next post or answer gets a fresh id. The SQLite file is
read in one read transaction (a consistent snapshot, safe while a bot runs on it) in
batches on a worker thread, so a million answers never sit in memory at once.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from bot.storage.pg.db import VERSION_TABLE, PgDatabase
from bot.storage.problems import DatabaseUnusable
from bot.storage.sqlite.preflight import readonly_uri

__all__ = ["BATCH", "copy_from_sqlite", "vacuum_analyze"]

#: Rows read from SQLite and sent to PostgreSQL at a time.
BATCH = 20_000


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _tables_parents_first(conn: sqlite3.Connection) -> list[str]:
    names = [
        str(r[0])
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    parents = {
        name: {str(r[2]) for r in conn.execute(f"PRAGMA foreign_key_list({_quoted(name)})")}
        for name in names
    }
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and parents[n] <= {*ordered, n}]
        if not ready:  # a cycle: no tpquiz schema has one
            raise DatabaseUnusable(f"the foreign keys of {sorted(parents)} form a cycle")
        ordered.extend(ready)
    return ordered


async def copy_from_sqlite(source: Path, target: PgDatabase) -> dict[str, int]:
    """Copy every table of the SQLite file `source` into `target`; rows per table.

    Raises DatabaseUnusable (one sentence) when the versions differ or the target holds
    rows; nothing is written then.
    """
    conn = sqlite3.connect(readonly_uri(source), uri=True, check_same_thread=False)
    try:
        conn.execute("BEGIN")  # one snapshot for every table
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = _tables_parents_first(conn)
        copied: dict[str, int] = {}
        async with target.transaction() as pg:
            pg_version = await pg.fetchval(f"SELECT COALESCE(MAX(version), 0) FROM {VERSION_TABLE}")
            if pg_version != version:
                raise DatabaseUnusable(
                    f"{source} is at schema {version} and {target.url.redacted} at "
                    f"{pg_version}: bring both to the same tpquiz version first"
                )
            for table in tables:
                if await pg.fetchval(f"SELECT EXISTS (SELECT 1 FROM {_quoted(table)})"):
                    raise DatabaseUnusable(
                        f"{target.url.redacted} already holds rows (table {table}): copy "
                        "into an empty database"
                    )
            for table in tables:
                cur = conn.execute(f"SELECT * FROM {_quoted(table)}")
                columns = [d[0] for d in cur.description]
                copied[table] = 0
                while rows := await asyncio.to_thread(cur.fetchmany, BATCH):
                    await pg.copy_records_to_table(table, records=rows, columns=columns)
                    copied[table] += len(rows)
            identities = await pg.fetch(
                "SELECT table_name, column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND is_identity = 'YES'"
            )
            for row in identities:
                table, column = _quoted(row["table_name"]), _quoted(row["column_name"])
                await pg.execute(
                    f"SELECT setval(pg_get_serial_sequence($1, $2),"
                    f" (SELECT COALESCE(MAX({column}), 0) + 1 FROM {table}), false)",
                    row["table_name"],
                    row["column_name"],
                )
            for table, count in copied.items():
                found = await pg.fetchval(f"SELECT COUNT(*) FROM {_quoted(table)}")
                if found != count:  # pragma: no cover - COPY is all or nothing
                    raise DatabaseUnusable(f"table {table}: {count} rows read, {found} written")
    finally:
        conn.close()
    return copied


# What `tpquiz db copy` (bot/storage/copy_verify.py) needs around the copy: whether the target
# is empty, emptying it for --force, and the servers whose leaderboards it compares.


async def held_rows(db: PgDatabase) -> dict[str, int]:
    """The tables of the target that hold rows, and how many (its version table aside)."""
    held = {}
    for row in await db.fetch(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1"
    ):
        table = str(row[0])
        if table == VERSION_TABLE:
            continue
        found = await db.fetchrow(f"SELECT COUNT(*) FROM {_quoted(table)}")
        if found is not None and found[0]:
            held[table] = int(found[0])
    return held


async def empty_target(db: PgDatabase) -> None:
    """Drop every table of this (tpquiz's own: `PgDatabase.open` refuses any other)
    database in one transaction, then migrate it afresh: `db copy --force`."""
    async with db.transaction() as conn:
        for row in await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        ):
            await conn.execute(f"DROP TABLE IF EXISTS {_quoted(str(row[0]))} CASCADE")
    await db.migrate()


async def vacuum_analyze(db: PgDatabase) -> None:
    """VACUUM (ANALYZE) the whole target after a copy (`tpquiz db copy`).

    Why: rows written by COPY have no planner statistics until autovacuum gets round to
    them, and no visibility map, so index-only scans (the leaderboard summaries',
    docs/performance.md section 8) fall back to the heap. Run once here, the first
    leaderboard after the switch is planned and served as it will be later. VACUUM
    cannot run in a transaction: it gets a pooled connection of its own (autocommit).
    """
    async with db.pool.acquire() as conn:
        await conn.execute("VACUUM (ANALYZE)")


def source_guilds(source: Path) -> list[int]:
    """The servers with members in the SQLite file (read-only), whose leaderboards a
    copy is checked against."""
    conn = sqlite3.connect(readonly_uri(source), uri=True)
    try:
        return [int(r[0]) for r in conn.execute("SELECT DISTINCT guild_id FROM members ORDER BY 1")]
    finally:
        conn.close()
