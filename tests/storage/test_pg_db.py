"""PgDatabase (bot/storage/pg/db.py) on the session's real PostgreSQL server."""

from __future__ import annotations

import asyncio
import logging
import sqlite3

import asyncpg
import pytest

from bot.infra.config import DatabaseUrl
from bot.storage.errors import WriteFailed
from bot.storage.pg import db as pgdb
from bot.storage.pg.db import VERSION_TABLE, PgDatabase, pg_migrations
from bot.storage.problems import DatabaseUnusable
from bot.storage.sqlite.migrate import migrations
from tests.pg_server import PgServer

NEWEST = len(pg_migrations())


async def _tables(url: str) -> set[str]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        )
    finally:
        await conn.close()
    return {r[0] for r in rows}


async def test_open_applies_every_migration_once(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url)
    try:
        assert await db.schema_version() == len(pg_migrations()) == len(migrations())
        assert await db.migrate() == []
        rows = await db.fetch(f"SELECT version, name FROM {VERSION_TABLE} ORDER BY version")
        assert [(r["version"], r["name"]) for r in rows] == [(v, n) for v, n, _ in pg_migrations()]
    finally:
        await db.close()
    assert {"answers", "posts", "cards", "guild_removals", VERSION_TABLE} <= await _tables(pg_url)
    again = await PgDatabase.open(pg_url)
    await again.close()


async def test_two_processes_starting_together_migrate_once(pg_url: str) -> None:
    first, second = await asyncio.gather(PgDatabase.open(pg_url), PgDatabase.open(pg_url))
    try:
        rows = await first.fetch(f"SELECT count(*) AS n FROM {VERSION_TABLE}")
        assert rows[0]["n"] == NEWEST
        assert await second.schema_version() == NEWEST
    finally:
        await first.close()
        await second.close()


async def test_the_migration_log_line_hides_the_password(
    pg_url: str, pg_server: PgServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    db = await PgDatabase.open(pg_url)
    await db.close()
    assert "applying PostgreSQL migration 0001_initial.sql on postgresql://tpquiz:***@" in (
        caplog.text
    )
    assert pg_server.password not in caplog.text


async def test_a_wrong_password_is_one_sentence_without_it(pg_server: PgServer) -> None:
    url = pg_server.url().replace(pg_server.password, "not-the-password-42")
    with pytest.raises(DatabaseUnusable) as caught:
        await PgDatabase.open(url)
    message = str(caught.value)
    assert message.startswith("cannot connect to PostgreSQL at postgresql://tpquiz:***@127.0.0.1")
    assert "not-the-password-42" not in message
    assert "password authentication failed" in message


async def test_someone_elses_database_is_refused(pg_url: str) -> None:
    conn = await asyncpg.connect(pg_url)
    await conn.execute("CREATE TABLE invoices (id int)")
    await conn.close()
    with pytest.raises(DatabaseUnusable, match=r"holds tables that are not tpquiz's \(invoices\)"):
        await PgDatabase.open(pg_url)
    assert await _tables(pg_url) == {"invoices"}


async def test_a_newer_schema_is_refused(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url)
    await db.fetch(f"INSERT INTO {VERSION_TABLE} (version, name) VALUES (99, '0099_future.sql')")
    await db.close()
    with pytest.raises(DatabaseUnusable, match="is at schema 99, newer than this tpquiz knows"):
        await PgDatabase.open(pg_url)
    with pytest.raises(DatabaseUnusable, match="is at schema 99"):
        await PgDatabase.open(pg_url, migrate=False)


async def test_a_failing_migration_is_rolled_back_whole(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = "CREATE TABLE half (x int);\nSELECT no_such_function();\n"
    known = pg_migrations()
    name = f"{NEWEST + 1:04d}_broken.sql"
    monkeypatch.setattr(pgdb, "pg_migrations", lambda: [*known, (NEWEST + 1, name, broken)])
    with pytest.raises(DatabaseUnusable, match=f"migration {name} failed .* rolled back"):
        await PgDatabase.open(pg_url)
    monkeypatch.undo()
    db = await PgDatabase.open(pg_url)
    try:
        assert await db.schema_version() == NEWEST
        assert "half" not in await _tables(pg_url)
    finally:
        await db.close()


async def test_a_transaction_commits_or_rolls_back_whole(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url)
    try:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
        with pytest.raises(ZeroDivisionError):
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO meta (key, value) VALUES ('b', '2')")
                raise ZeroDivisionError
        rows = await db.fetch("SELECT key FROM meta ORDER BY key")
        assert [r["key"] for r in rows] == ["a"]
    finally:
        await db.close()


async def test_a_database_url_object_is_accepted(pg_url: str) -> None:
    db = await PgDatabase.open(DatabaseUrl(pg_url))
    await db.close()
    assert "***" in repr(db.url)


# -- 0003 fills the summaries from existing answers the same way on both backends -------

ANSWERS = [
    # guild, user, question, correct, first, points, answered_at (ms UTC)
    (1, 10, "q1", 1, 1, 1, 1_700_000_000_000),  # a Tuesday, November 2023
    (1, 10, "q2", 0, 1, 0, 1_700_600_000_000),
    (1, 11, "q1", 1, 1, 1, 1_701_388_800_000),  # 2023-12-01 00:00 UTC: a month's first ms
    (1, 11, "q3", 1, 1, 1, 1_701_388_799_999),  # the last ms of November
    (2, 10, "q1", 1, 1, 1, 1_704_067_200_000),  # 2024-01-01, a Monday
    (2, 12, "q4", 0, 1, 0, 86_400_000 * 4 - 1),  # the Sunday before the epoch's Monday
]
MEMBERS = [
    (1, 10, "a", 1, 2, 1),
    (1, 11, "b", 2, 2, 2),
    (2, 10, "a", 1, 1, 1),
    (2, 12, "c", 0, 1, 0),
]


def _sqlite_summaries() -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    conn = sqlite3.connect(":memory:")
    sqls = {v: sql for v, _, sql in migrations()}
    conn.executescript(sqls[1] + sqls[2])
    conn.executemany(
        "INSERT INTO posts (id, guild_id, channel_id, question_id, choice_order, language,"
        " created_at) VALUES (?, 1, 1, 'q', '0', 'en', 0)",
        [(i,) for i in range(1, len(ANSWERS) + 1)],
    )
    conn.executemany(
        "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id, choice_index,"
        " correct, first, points, answered_at) VALUES (?, ?, ?, 't', ?, 0, ?, ?, ?, ?)",
        [(g, u, q, i, c, f, p, t) for i, (g, u, q, c, f, p, t) in enumerate(ANSWERS, 1)],
    )
    conn.executemany(
        "INSERT INTO members (guild_id, user_id, name, points, answered, correct)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        MEMBERS,
    )
    conn.executescript(sqls[3])
    periods = conn.execute("SELECT * FROM member_periods ORDER BY 1, 2, 3, 4").fetchall()
    counts = conn.execute("SELECT * FROM score_counts ORDER BY 1, 2, 3, 4, 5").fetchall()
    return periods, counts


async def test_the_summaries_backfill_agrees_with_sqlite(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url, migrate=False)
    try:
        await db.migrate(target=2)
        async with db.transaction() as conn:
            await conn.executemany(
                "INSERT INTO posts (id, guild_id, channel_id, question_id, choice_order,"
                " language, created_at) VALUES ($1, 1, 1, 'q', '0', 'en', 0)",
                [(i,) for i in range(1, len(ANSWERS) + 1)],
            )
            await conn.executemany(
                "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
                " choice_index, correct, first, points, answered_at)"
                " VALUES ($1, $2, $3, 't', $4, 0, $5, $6, $7, $8)",
                [(g, u, q, i, c, f, p, t) for i, (g, u, q, c, f, p, t) in enumerate(ANSWERS, 1)],
            )
            await conn.executemany(
                "INSERT INTO members (guild_id, user_id, name, points, answered, correct)"
                " VALUES ($1, $2, $3, $4, $5, $6)",
                MEMBERS,
            )
        assert await db.migrate(target=3) == ["0003_leaderboard_summaries.sql"]
        periods = await db.fetch("SELECT * FROM member_periods ORDER BY 1, 2, 3, 4")
        counts = await db.fetch("SELECT * FROM score_counts ORDER BY 1, 2, 3, 4, 5")
    finally:
        await db.close()
    want_periods, want_counts = _sqlite_summaries()
    assert [tuple(r) for r in periods] == want_periods
    assert [tuple(r) for r in counts] == want_counts
    assert len(want_periods) == 10  # each answer's week and month, some shared


async def test_review_cards_refuses_answers_it_cannot_seed(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url, migrate=False)
    try:
        await db.migrate(target=4)
        async with db.transaction() as conn:
            await conn.execute(
                "INSERT INTO test_runs (guild_id, user_id, question_ids, orders, started_at)"
                " VALUES (1, 1, '[]', '[]', 0)"
            )
            await conn.execute(
                "INSERT INTO answers (guild_id, user_id, question_id, topic, test_run_id,"
                " choice_index, correct, first, points, answered_at)"
                " VALUES (1, 1, 'q', 't', 1, 0, 1, 1, 1, 0)"
            )
        with pytest.raises(DatabaseUnusable, match="cannot be seeded in SQL"):
            await db.migrate()
        assert await db.schema_version() == 4
    finally:
        await db.close()


async def test_a_connection_killed_mid_transaction_is_write_failed(pg_url: str) -> None:
    """The server ends the session (a restart, a failover): nothing saved, pool usable."""
    db = await PgDatabase.open(pg_url)
    try:
        # Which error asyncpg meets first depends on when it notices the closed socket
        # (the server's 57P01, a closed connection, a proxy already released): each is
        # a storage fault.
        with pytest.raises(WriteFailed, match=r"\(\w+\)$"):
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO meta (key, value) VALUES ('lost', '1')")
                pid = conn.get_server_pid()
                killer = await asyncpg.connect(pg_url)
                try:
                    assert await killer.fetchval("SELECT pg_terminate_backend($1)", pid)
                finally:
                    await killer.close()
                await conn.execute("INSERT INTO meta (key, value) VALUES ('after', '1')")
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('next', '1')")
        rows = await db.fetch("SELECT key FROM meta ORDER BY key")
        assert [r["key"] for r in rows] == ["next"]
    finally:
        await db.close()


async def test_a_constraint_violation_passes_unchanged(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url)
    try:
        with pytest.raises(asyncpg.UniqueViolationError):
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO meta (key, value) VALUES ('a', '1'), ('a', '2')")
    finally:
        await db.close()


async def test_a_released_connection_is_not_reset_by_a_trip_but_its_transaction_is_closed(
    pg_url: str,
) -> None:
    """The pool sends no reset query on release (`_keep_session`: one trip a transaction
    saved), yet a transaction left open is still rolled back before the next acquirer."""
    db = await PgDatabase.open(pg_url, min_size=1, max_size=1)
    try:
        async with db.pool.acquire() as conn:
            await conn.execute("SET statement_timeout = '123s'")
            pid = await conn.fetchval("SELECT pg_backend_pid()")
        async with db.pool.acquire() as conn:
            assert await conn.fetchval("SELECT pg_backend_pid()") == pid  # the same session
            assert await conn.fetchval("SHOW statement_timeout") == "123s"  # no RESET ALL
            await conn.execute("RESET statement_timeout")
            await conn.execute("BEGIN")
            await conn.execute("CREATE TEMP TABLE left_open (x int)")
        async with db.pool.acquire() as conn:
            assert not conn.is_in_transaction()
            assert await conn.fetchval("SELECT to_regclass('pg_temp.left_open')") is None
    finally:
        await db.close()


async def test_reads_while_the_server_is_down_are_write_failed_and_work_after(
    own_pg_server: PgServer,
) -> None:
    """Issue 31, defect 8: a read the server cannot answer is a storage fault as a write
    is (WriteFailed, one line, no password), not a driver error; a bad query is not."""
    url = own_pg_server.url()
    db = await PgDatabase.open(url)
    try:
        own_pg_server.halt()
        for read in (db.fetch, db.fetchrow):
            with pytest.raises(WriteFailed) as raised:
                await read("SELECT key FROM meta")
            assert "\n" not in raised.value.reason
            assert DatabaseUrl(url).password not in raised.value.reason
        own_pg_server.resume()
        assert await db.fetch("SELECT key FROM meta") == []
        with pytest.raises(asyncpg.UndefinedTableError):
            await db.fetchrow("SELECT * FROM no_such_table")
    finally:
        await db.close()
