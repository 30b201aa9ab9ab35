"""`tpquiz db status` and `tpquiz db upgrade [--dry-run]`, each the real command."""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from bot.infra.runlock import hold_run_lock
from bot.storage import problems
from bot.storage.migration_files import bundled
from bot.storage.pg.db import PgDatabase
from bot.storage.sqlite.schema import read_status
from tests.storage.test_schema import at_schema
from tests.test_cli import tpquiz

NEWEST = len(bundled())


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def test_status_prints_file_size_schema_pending_and_rows(tmp_path: Path) -> None:
    db = at_schema(tmp_path / "q.sqlite3", 1)
    with sqlite3.connect(db) as conn:
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, 'v')", [("a",), ("b",)])
    before = _digest(db)
    result = tpquiz("db", "status", cwd=tmp_path, TPQUIZ_DB=str(db))
    assert (result.returncode, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[:4] == [
        f"file: {db}",
        f"size: {db.stat().st_size // 1024} KiB",
        "bot running on it: no",
        f"schema: 1 (this tpquiz knows {NEWEST})",
    ]
    assert lines[4] == f"pending migrations: {NEWEST - 1} (tpquiz db upgrade applies them)"
    assert lines[5:7] == [
        "  0002_daily.sql: Daily questions",
        "  0003_leaderboard_summaries.sql: Leaderboard summaries",
    ]
    rows = dict(line.split() for line in lines[lines.index("rows:") + 1 :])
    assert rows["meta"] == "2" and rows["answers"] == "0"
    assert _digest(db) == before and _version(db) == 1


def test_status_and_dry_run_never_create_or_change_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "data" / "q.sqlite3"
    status = tpquiz("db", "status", cwd=tmp_path, TPQUIZ_DB=str(missing))
    assert status.returncode == 1
    assert status.stderr == f"tpquiz db status: {problems.missing(missing)}\n"
    dry = tpquiz("db", "upgrade", "--dry-run", cwd=tmp_path, TPQUIZ_DB=str(missing))
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith(f"-- no database at {missing} yet")
    assert "CREATE TABLE answers (" in dry.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_dry_run_prints_each_pending_migrations_sql_and_leaves_the_file(tmp_path: Path) -> None:
    db = at_schema(tmp_path / "q.sqlite3", 2)
    before = _digest(db)
    result = tpquiz("db", "upgrade", "--dry-run", cwd=tmp_path, TPQUIZ_DB=str(db))
    assert (result.returncode, result.stderr) == (0, "")
    out = result.stdout
    assert out.startswith(f"-- {db}: schema 2 -> {NEWEST}\n")
    assert "-- 0003_leaderboard_summaries.sql: schema 2 -> 3: Leaderboard summaries\n" in out
    assert "-- Why: issue #5:" in out and "CREATE TABLE member_periods (" in out
    assert "0002_daily.sql" not in out and "CREATE TABLE daily_slots" not in out
    assert out.rstrip().endswith(f"PRAGMA user_version = {NEWEST};\nCOMMIT;")
    assert _digest(db) == before and _version(db) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.sqlite3"]


def test_upgrade_applies_the_pending_migrations_and_then_has_nothing_to_do(
    tmp_path: Path,
) -> None:
    db = at_schema(tmp_path / "q.sqlite3", 1)
    result = tpquiz("db", "upgrade", cwd=tmp_path, TPQUIZ_DB=str(db))
    assert (result.returncode, result.stderr) == (0, "")
    applied = [
        f"db upgrade: applied {m.name} (schema {m.version}): {m.title}" for m in bundled()[1:]
    ]
    assert applied[:2] == [
        "db upgrade: applied 0002_daily.sql (schema 2): Daily questions",
        "db upgrade: applied 0003_leaderboard_summaries.sql (schema 3): Leaderboard summaries",
    ]
    assert result.stdout.splitlines() == [*applied, f"db upgrade: {db} is now at schema {NEWEST}"]
    assert _version(db) == NEWEST
    again = tpquiz("db", "upgrade", cwd=tmp_path, TPQUIZ_DB=str(db))
    assert again.stdout == f"db upgrade: {db} is at schema {NEWEST}, the newest: nothing to do\n"
    dry = tpquiz("db", "upgrade", "--dry-run", cwd=tmp_path, TPQUIZ_DB=str(db))
    assert dry.stdout == f"-- {db} is at schema {NEWEST}, the newest: nothing to run\n"


def test_upgrade_is_refused_while_the_bot_holds_the_run_lock(tmp_path: Path) -> None:
    db = at_schema(tmp_path / "q.sqlite3", 1)
    before = _digest(db)
    with hold_run_lock(db) as lock:
        result = tpquiz("db", "upgrade", cwd=tmp_path, TPQUIZ_DB=str(db))
        status = tpquiz("db", "status", cwd=tmp_path, TPQUIZ_DB=str(db))
    assert result.returncode == 1
    assert result.stderr == (
        f"tpquiz db upgrade: tpquiz is running on this database (pid {os.getpid()} holds {lock}):"
        " stop it first, or point TPQUIZ_DB elsewhere\n"
    )
    assert _digest(db) == before and _version(db) == 1
    assert f"bot running on it: yes (pid {os.getpid()})\n" in status.stdout


def test_a_schema_newer_than_this_tpquiz_is_refused_with_runs_sentence(tmp_path: Path) -> None:
    db = at_schema(tmp_path / "q.sqlite3", NEWEST)
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {NEWEST + 1}")
    before = _digest(db)
    sentence = problems.schema_too_new(db, NEWEST + 1, NEWEST)
    for args in (("upgrade",), ("upgrade", "--dry-run")):
        result = tpquiz("db", *args, cwd=tmp_path, TPQUIZ_DB=str(db))
        assert (result.returncode, result.stderr) == (1, f"tpquiz db upgrade: {sentence}\n")
    status = tpquiz("db", "status", cwd=tmp_path, TPQUIZ_DB=str(db))
    assert status.returncode == 1 and f"schema: {NEWEST + 1} (this" in status.stdout
    assert status.stderr == f"tpquiz db status: {sentence}\n"
    assert _digest(db) == before


def test_an_in_memory_database_is_a_settings_error(tmp_path: Path) -> None:
    for args in (("status",), ("upgrade",)):
        result = tpquiz("db", *args, cwd=tmp_path, TPQUIZ_DB=":memory:")
        assert result.returncode == 2
        assert result.stderr == f"tpquiz db {args[0]}: {problems.in_memory()}\n"


def test_upgrade_refuses_a_database_deleted_beside_an_earlier_runs_lock(tmp_path: Path) -> None:
    db = tmp_path / "q.sqlite3"
    with hold_run_lock(db) as lock:
        pass  # an earlier bot ran here; then its database went missing
    sentence = problems.lost_before_start(db, lock)
    for args in (("upgrade",), ("upgrade", "--dry-run")):
        result = tpquiz("db", *args, cwd=tmp_path, TPQUIZ_DB=str(db))
        assert (result.returncode, result.stderr) == (1, f"tpquiz db upgrade: {sentence}\n")
    assert not db.exists()


# `tpquiz db copy`: a real file (the click path's history of tests/storage/test_members.py)
# into a database of the session's real PostgreSQL server (tests/conftest.py).


async def _played(path: Path) -> Path:
    from tests.storage.test_members import _play

    storage = await _play(path, 2, "middle", with_x=True)
    await storage.close()
    return path


def url_file(path: Path, url: str) -> Path:
    """A file holding `url` as an operator keeps it: one line, readable by its owner only."""
    path.write_text(url + "\n")
    path.chmod(0o600)
    return path


def _password(url: str) -> str:
    from bot.infra.config import DatabaseUrl

    secret = DatabaseUrl(url).password
    assert secret
    return secret


async def test_copy_copies_verifies_and_refuses_a_second_copy_without_force(
    tmp_path: Path, pg_url: str
) -> None:
    db = await _played(tmp_path / "q.sqlite3")
    before = _digest(db)
    rows = read_status(db).rows
    # The documented way (docs/operations.md): the URL in a file, not on the command line.
    target = url_file(tmp_path / "target.url", pg_url)
    result = tpquiz(
        "db", "copy", "--from", f"sqlite://{db}", "--to-file", str(target), cwd=tmp_path
    )
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"db copy: {db} -> postgresql://") and "***" in lines[0]
    table = {line.split()[0]: line.split()[1:] for line in lines[2 : 2 + len(rows)]}
    assert table == {t: [str(n), str(n)] for t, n in rows.items()}
    assert rows["answers"] > 100
    assert (
        lines[-3] == "leaderboards: 2 servers compared (all time, this week, this month): identical"
    )
    assert lines[-2] == f"db copy: {sum(rows.values())} rows copied and verified"
    assert lines[-1].startswith("db copy: ran VACUUM (ANALYZE) on the target")
    assert _digest(db) == before  # the source is only read

    copy = ("db", "copy", "--from", f"sqlite://{db}", "--to-env", "PG_TARGET")
    again = tpquiz(*copy, cwd=tmp_path, PG_TARGET=pg_url)
    assert again.returncode == 1 and again.stdout == ""
    assert "already holds rows (answers " in again.stderr and "--force" in again.stderr
    assert _password(pg_url) not in again.stderr + again.stdout
    forced = tpquiz(
        "db", "copy", "--force", cwd=tmp_path, TPQUIZ_DB=str(db), TPQUIZ_DATABASE_URL=pg_url
    )
    assert forced.returncode == 0, forced.stderr
    assert forced.stderr.startswith("db copy: --force: deleting every row of postgresql://")
    assert forced.stdout.splitlines()[1:] == lines[1:]


async def test_a_copy_that_differs_is_reported_and_exits_1(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    import io

    from bot.cli import db as db_commands
    from bot.storage import copy

    db = await _played(tmp_path / "q.sqlite3")
    real = copy.copy_from_sqlite

    async def lossy(source: Path, target: PgDatabase) -> dict[str, int]:
        copied = await real(source, target)
        async with target.transaction() as conn:  # a row lost, a leaderboard changed
            await conn.execute(
                "DELETE FROM members WHERE user_id = (SELECT MIN(user_id) FROM members)"
            )
        return copied

    monkeypatch.setattr(copy, "copy_from_sqlite", lossy)
    out, err = io.StringIO(), io.StringIO()
    args = argparse.Namespace(
        source=f"sqlite://{db}",
        target=None,
        target_file=str(url_file(tmp_path / "target.url", pg_url)),
        target_env=None,
        force=False,
        env_file=None,
    )
    code = await asyncio.to_thread(db_commands.cmd_copy, args, out, err)
    assert code == 1
    (members,) = [line for line in out.getvalue().splitlines() if line.split()[0] == "members"]
    assert members.endswith("DIFFERENT")
    assert "leaderboard differs: server " in out.getvalue()
    assert err.getvalue().startswith(f"tpquiz db copy: the copy differs from {db}")


def test_copy_refuses_a_wrong_source_an_old_file_and_a_running_bot(tmp_path: Path) -> None:
    url = "postgresql://tpquiz:s3cret@127.0.0.1:1/tpquiz"  # never reached
    wrong = tpquiz("db", "copy", "--from", "/plain/path", "--to", url, cwd=tmp_path)
    assert wrong.returncode == 2 and "--from must be a SQLite file as sqlite:///" in wrong.stderr
    nowhere = tpquiz("db", "copy", "--from", f"sqlite://{tmp_path}/q.sqlite3", cwd=tmp_path)
    assert nowhere.returncode == 2 and "--to-file PATH" in nowhere.stderr
    old = at_schema(tmp_path / "old.sqlite3", 3)
    result = tpquiz("db", "copy", "--from", f"sqlite://{old}", "--to", url, cwd=tmp_path)
    assert result.returncode == 1
    assert f"{old} is at schema 3, older than this tpquiz's {NEWEST}" in result.stderr
    assert "tpquiz db upgrade" in result.stderr and "s3cret" not in result.stderr
    current = at_schema(tmp_path / "new.sqlite3", NEWEST)
    with hold_run_lock(current):
        running = tpquiz("db", "copy", "--from", f"sqlite://{current}", "--to", url, cwd=tmp_path)
    assert running.returncode == 1 and "tpquiz is running on this database" in running.stderr
