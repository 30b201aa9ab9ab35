"""`tpquiz db status` and `tpquiz db upgrade [--dry-run]`, each the real command."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

from bot.runlock import hold_run_lock
from bot.storage import problems
from bot.storage.schema import bundled
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
