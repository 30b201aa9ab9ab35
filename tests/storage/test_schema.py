"""Migration headers, `read_status` and `upgrade_script` (bot/storage/sqlite/schema.py)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from bot.storage import problems
from bot.storage.migration_files import bundled, header_problem
from bot.storage.sqlite import Storage
from bot.storage.sqlite.migrate import migrations
from bot.storage.sqlite.schema import read_status, upgrade_script

GOOD = """-- 0007: A title
-- Why: because a reason, which goes on
--   over two lines.
-- Changes: adds a table.
--
-- Free notes.

CREATE TABLE t (x INTEGER);
"""


@pytest.mark.parametrize("name", [name for _, name, _ in migrations()])
def test_every_migration_has_the_header(name: str) -> None:
    """NNNN: title / Why: / Changes: in the leading comment block (bot/storage/sqlite/schema.py)."""
    sql = dict((n, s) for _, n, s in migrations())[name]
    problem = header_problem(name, sql)
    assert problem is None, f"bot/storage/sqlite/migrations/{problem}"


def test_the_header_fields_are_read_with_their_continuation_lines() -> None:
    assert header_problem("0007_a.sql", GOOD) is None
    first = bundled()[0]
    assert (first.version, first.title) == (1, "Core schema")
    assert first.why.startswith("the first release: ") and "\n" not in first.why
    assert "guild_settings" in first.changes


@pytest.mark.parametrize(
    ("sql", "sentence"),
    [
        (
            "CREATE TABLE t (x);\n",
            "0007_a.sql: the first line must be '-- 0007: <title>' (the header is "
            "-- NNNN: title / -- Why: ... / -- Changes: ...), not 'CREATE TABLE t (x);'",
        ),
        (
            GOOD.replace("-- 0007:", "-- 0006:"),
            "0007_a.sql: the header says 0006, the file name 0007",
        ),
        (
            GOOD.replace("-- Why:", "-- Reason:"),
            "0007_a.sql: the header has no '-- Why: ...' line (the header is -- NNNN: title"
            " / -- Why: ... / -- Changes: ..., in the leading comment block)",
        ),
        (
            # A Changes line after the SQL has begun is not the header.
            GOOD.replace("-- Changes: adds a table.\n", "") + "-- Changes: late\n",
            "0007_a.sql: the header has no '-- Changes: ...' line (the header is -- NNNN:"
            " title / -- Why: ... / -- Changes: ..., in the leading comment block)",
        ),
    ],
)
def test_a_header_that_is_missing_or_wrong_is_named(sql: str, sentence: str) -> None:
    assert header_problem("0007_a.sql", sql) == sentence


def _schema(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall())


async def test_the_printed_script_builds_the_schema_the_bot_builds(tmp_path: Path) -> None:
    """What --dry-run prints is exactly what `Database.migrate` runs."""
    storage = await Storage.open(tmp_path / "bot.sqlite3")
    await storage.close()
    with sqlite3.connect(tmp_path / "script.sqlite3") as conn:
        conn.executescript(upgrade_script(bundled()))
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(bundled())
    assert _schema(tmp_path / "script.sqlite3") == _schema(tmp_path / "bot.sqlite3")


def at_schema(path: Path, version: int) -> Path:
    """A database file migrated up to `version` only, as an older tpquiz left it."""
    with sqlite3.connect(path) as conn:
        conn.executescript(upgrade_script(bundled()[:version]))
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_status_of_an_older_file_lists_what_is_pending_and_changes_nothing(
    tmp_path: Path,
) -> None:
    db = at_schema(tmp_path / "old.sqlite3", 1)
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO meta (key, value) VALUES ('a', 'b')")
    before = _digest(db)
    status = read_status(db)
    assert (status.version, status.newest) == (1, len(bundled()))
    assert [m.version for m in status.pending] == list(range(2, len(bundled()) + 1))
    assert status.rows["meta"] == 1 and status.rows["answers"] == 0
    assert "daily_slots" not in status.rows
    assert status.size == db.stat().st_size and status.running is None
    assert status.too_new is None
    assert _digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.sqlite3"]


def test_status_never_creates_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(problems.DatabaseUnusable) as caught:
        read_status(tmp_path / "none.sqlite3")
    assert str(caught.value) == problems.missing(tmp_path / "none.sqlite3")
    assert list(tmp_path.iterdir()) == []


def test_status_reports_a_newer_schema_instead_of_refusing(tmp_path: Path) -> None:
    db = at_schema(tmp_path / "new.sqlite3", len(bundled()))
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {len(bundled()) + 1}")
    status = read_status(db)
    assert status.pending == []
    assert status.too_new == problems.schema_too_new(db, len(bundled()) + 1, len(bundled()))


def test_status_counts_what_is_still_in_the_wal_file(tmp_path: Path) -> None:
    """The running bot's recent writes sit in the -wal file until a checkpoint."""
    db = at_schema(tmp_path / "live.sqlite3", len(bundled()))
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA journal_mode = WAL")
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        with writer:
            writer.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
        status = read_status(db)
    finally:
        writer.close()
    assert status.wal_size > 0 and status.rows["meta"] == 1
