"""The maintainer commands on PostgreSQL print what they print on SQLite (issue 15).

Each test plays one history into a real SQLite file, copies it into a database of the
session's real PostgreSQL server (tests/conftest.py `pg_url`), runs the real `tpquiz`
command once with TPQUIZ_DB and once with TPQUIZ_DATABASE_URL, and compares what it printed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import asyncpg
import pytest

from bot.infra.config import DatabaseUrl
from bot.storage.copy import copy_from_sqlite
from bot.storage.migration_files import bundled
from bot.storage.pg.db import PgDatabase
from bot.storage.sqlite.schema import read_status
from tests.storage.test_schema import at_schema
from tests.test_cli import tpquiz
from tests.test_db_commands import _played

GUILD, OTHER, X = 77, 78, 999
NEWEST = len(bundled())


@pytest.fixture
async def both(tmp_path: Path, pg_url: str) -> tuple[Path, str]:
    """(a played SQLite file, a PostgreSQL database holding a copy of it)."""
    db = await _played(tmp_path / "q.sqlite3")
    pg = await PgDatabase.open(pg_url)
    try:
        await copy_from_sqlite(db, pg)
    finally:
        await pg.close()
    return db, pg_url


def _on(backend: str, both: tuple[Path, str], *args: str, cwd: Path) -> tuple[int, str, str]:
    db, url = both
    env = {"TPQUIZ_DB": str(db)} if backend == "sqlite" else {"TPQUIZ_DATABASE_URL": url}
    result = tpquiz(*args, cwd=cwd, **env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout, result.stderr


def _same(both: tuple[Path, str], *args: str, cwd: Path) -> tuple[int, str, str]:
    """Run the command on both backends; assert the same status, stdout and stderr."""
    lite = _on("sqlite", both, *args, cwd=cwd)
    pg = _on("postgresql", both, *args, cwd=cwd)
    assert pg == lite
    return lite


def _password(url: str) -> str:
    secret = DatabaseUrl(url).password
    assert secret
    return secret


async def test_leaderboard_is_the_same_on_both(both: tuple[Path, str], tmp_path: Path) -> None:
    for period in ("all", "week", "month"):
        for extra in ((), ("--json",)):
            status, out, _ = _same(
                both, "leaderboard", "--guild", str(GUILD), "--period", period, *extra, cwd=tmp_path
            )
            assert status == 0
    status, out, _ = _same(both, "leaderboard", "--guild", str(GUILD), "--json", cwd=tmp_path)
    rows = json.loads(out)
    assert len(rows) == 16 and X in {r["user_id"] for r in rows}
    empty = _same(both, "leaderboard", "--guild", "5", cwd=tmp_path)
    assert empty == (0, "no answers in guild 5 for period all\n", "")


async def test_export_and_forget_user_and_guild_are_the_same_on_both(
    both: tuple[Path, str], tmp_path: Path
) -> None:
    status, out, _ = _same(both, "export-user", "--user", str(X), cwd=tmp_path)
    assert status == 0 and len(json.loads(out)["servers"]) == 2
    status, out, _ = _same(
        both, "forget-user", "--user", str(X), "--guild", str(GUILD), cwd=tmp_path
    )
    assert status == 0 and out.startswith(f"forget-user: user {X} in server {GUILD}: deleted ")
    # The deletion happened in each database: the standings no longer hold X, alike.
    _, board, _ = _same(both, "leaderboard", "--guild", str(GUILD), "--json", cwd=tmp_path)
    assert X not in {r["user_id"] for r in json.loads(board)}
    _, export, _ = _same(both, "export-user", "--user", str(X), cwd=tmp_path)
    assert len(json.loads(export)["servers"]) == 1
    status, out, _ = _same(both, "forget-guild", "--guild", str(OTHER), cwd=tmp_path)
    assert status == 0 and out.startswith(f"forget-guild: server {OTHER}: deleted ")
    again = _same(both, "forget-user", "--user", str(X), cwd=tmp_path)
    assert again == (0, f"forget-user: nothing stored about user {X} in any server\n", "")


async def test_db_status_on_postgresql(both: tuple[Path, str], tmp_path: Path) -> None:
    db, url = both
    _, lite, _ = _on("sqlite", both, "db", "status", cwd=tmp_path)
    status, out, err = _on("postgresql", both, "db", "status", cwd=tmp_path)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"database: {DatabaseUrl(url).redacted}" and "***" in lines[0]
    assert lines[1].startswith("size: ") and lines[2] == "bot running on it: no"
    assert _password(url) not in out
    # From the schema line on, the same lines as on SQLite: schema, pending, rows per table.
    assert lines[3:] == lite.splitlines()[3:]
    rows = dict(line.split() for line in lines[lines.index("rows:") + 1 :])
    assert rows == {t: str(n) for t, n in read_status(db).rows.items()}


async def test_db_status_names_the_bots_holding_shard_locks(
    both: tuple[Path, str], tmp_path: Path
) -> None:
    from bot.storage.pg.shard_locks import PgShardLocks

    locks = PgShardLocks(DatabaseUrl(both[1]))
    await locks.claim((0,), 1, "tpquiz test-host pid 1")
    try:
        status, out, err = _on("postgresql", both, "db", "status", cwd=tmp_path)
    finally:
        await locks.release()
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[2] == "bot running on it: yes (1 shard locks held)"
    assert lines[3].startswith("  shard 0: ")
    _, after, _ = _on("postgresql", both, "db", "status", cwd=tmp_path)
    assert after.splitlines()[2] == "bot running on it: no"


async def test_db_upgrade_and_dry_run_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    old = at_schema(tmp_path / "q.sqlite3", 1)
    pg = await PgDatabase.open(pg_url, migrate=False)
    try:
        await pg.migrate(target=1)
    finally:
        await pg.close()
    redacted = DatabaseUrl(pg_url).redacted
    files = (old, pg_url)
    _, lite_status, _ = _on("sqlite", files, "db", "status", cwd=tmp_path)
    _, pg_status, _ = _on("postgresql", files, "db", "status", cwd=tmp_path)
    pending = [line for line in pg_status.splitlines() if line.startswith("  0")]
    assert len(pending) == NEWEST - 1
    assert pending == [line for line in lite_status.splitlines() if line.startswith("  0")]

    status, dry, err = _on("postgresql", files, "db", "upgrade", "--dry-run", cwd=tmp_path)
    assert (status, err) == (0, "")
    assert dry.startswith(f"-- {redacted}: schema 1 -> {NEWEST}\n")
    for m in bundled()[1:]:
        assert f"-- {m.name}: schema {m.version - 1} -> {m.version}: {m.title}" in dry
        assert f"VALUES ({m.version}, '{m.name}');" in dry
    assert _password(pg_url) not in dry
    assert await _pg_version(pg_url) == 1  # the dry run changed nothing

    _, lite_up, _ = _on("sqlite", files, "db", "upgrade", cwd=tmp_path)
    status, up, err = _on("postgresql", files, "db", "upgrade", cwd=tmp_path)
    assert (status, err) == (0, "")
    assert up.replace(redacted, "DB") == lite_up.replace(str(old), "DB")
    assert up.splitlines()[-1] == f"db upgrade: {redacted} is now at schema {NEWEST}"
    assert await _pg_version(pg_url) == NEWEST
    again = _on("postgresql", files, "db", "upgrade", cwd=tmp_path)
    assert again == (
        0,
        f"db upgrade: {redacted} is at schema {NEWEST}, the newest: nothing to do\n",
        "",
    )
    nothing = _on("postgresql", files, "db", "upgrade", "--dry-run", cwd=tmp_path)
    assert nothing[1] == f"-- {redacted} is at schema {NEWEST}, the newest: nothing to run\n"


async def _pg_version(url: str) -> int:
    db = await PgDatabase.open(url, migrate=False)
    try:
        return await db.schema_version()
    finally:
        await db.close()


async def test_db_status_on_an_unreachable_server_is_one_line_without_password(
    tmp_path: Path,
) -> None:
    url = "postgresql://tpquiz:s3cret-pw@127.0.0.1:1/tpquiz"
    for args in (("status",), ("upgrade",), ("upgrade", "--dry-run")):
        result = tpquiz("db", *args, cwd=tmp_path, TPQUIZ_DATABASE_URL=url)
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and "cannot connect to PostgreSQL" in result.stderr
        assert "s3cret-pw" not in result.stderr


async def test_db_copy_leaves_the_target_vacuumed_and_analysed(tmp_path: Path, pg_url: str) -> None:
    db = await _played(tmp_path / "q.sqlite3")
    copy = ("db", "copy", "--from", f"sqlite://{db}", "--to-env", "PG_TARGET")
    result = tpquiz(*copy, cwd=tmp_path, PG_TARGET=pg_url)
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout.splitlines()[-1].startswith("db copy: ran VACUUM (ANALYZE) on the target")
    conn = await asyncpg.connect(pg_url)
    try:
        stats = {
            r["relname"]: r
            for r in await conn.fetch(
                "SELECT relname, last_vacuum, last_analyze, n_live_tup FROM pg_stat_user_tables"
            )
        }
        # pg_class.reltuples is set by ANALYZE itself (the stats view may lag behind).
        tuples = await conn.fetchval("SELECT reltuples FROM pg_class WHERE relname = 'answers'")
    finally:
        await conn.close()
    answers = read_status(db).rows["answers"]
    assert tuples == answers
    assert stats["answers"]["last_analyze"] is not None
    assert stats["answers"]["last_vacuum"] is not None


async def test_restore_refuses_on_postgresql_and_says_pg_restore(
    tmp_path: Path, pg_url: str
) -> None:
    dump = tmp_path / "tpquiz-20261203T020000Z.dump"
    dump.write_bytes(b"PGDMP")
    lite = tmp_path / "q.sqlite3"
    result = tpquiz(
        "restore", str(dump), cwd=tmp_path, TPQUIZ_DB=str(lite), TPQUIZ_DATABASE_URL=pg_url
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("tpquiz restore: TPQUIZ_DATABASE_URL is set (")
    assert "pg_restore --clean --if-exists --single-transaction --no-owner" in result.stderr
    assert str(dump) in result.stderr and "psql" in result.stderr
    assert _password(pg_url) not in result.stderr and "PGPASSWORD=***" in result.stderr
    assert not lite.exists() and sorted(os.listdir(tmp_path)) == [dump.name]


async def test_reads_refuse_an_empty_or_older_postgresql_database_in_one_line(
    tmp_path: Path, pg_url: str
) -> None:
    redacted = DatabaseUrl(pg_url).redacted
    for version in (0, NEWEST - 1):
        if version:
            pg = await PgDatabase.open(pg_url, migrate=False)
            try:
                await pg.migrate(target=version)
            finally:
                await pg.close()
        # The exit statuses of SQLite's refusal of an older file: 2 and 1.
        for code, args in (
            (2, ("leaderboard", "--guild", str(GUILD))),
            (1, ("export-user", "--user", str(X))),
        ):
            result = tpquiz(*args, cwd=tmp_path, TPQUIZ_DATABASE_URL=pg_url)
            assert result.returncode == code and result.stdout == "", result.stderr
            assert result.stderr.count("\n") == 1, result.stderr
            assert (
                f"the PostgreSQL database {redacted} is at schema {version}, this tpquiz reads"
                f" schema {NEWEST}: start the bot once (tpquiz run)" in result.stderr
            )
        assert await _pg_version(pg_url) == version  # never migrated by a read


def test_the_pg_restore_command_has_no_password(tmp_path: Path) -> None:
    from bot.storage.sqlite.backup import pg_restore_command

    url = "postgresql://tpquiz:p%40ss-9@db.internal:5433/tpquiz?sslmode=require&password=p%40ss-9"
    command = pg_restore_command(DatabaseUrl(url), tmp_path / "my dump")
    assert command == (
        "PGPASSWORD=*** pg_restore --clean --if-exists --single-transaction --no-owner"
        " --dbname='postgresql://tpquiz@db.internal:5433/tpquiz?sslmode=require'"
        f" '{tmp_path / 'my dump'}'"
    )
    plain = pg_restore_command(DatabaseUrl("postgresql://u@h/d"), "b.dump")
    assert plain.endswith(" --dbname=postgresql://u@h/d b.dump")
    assert not plain.startswith("PGPASSWORD")
