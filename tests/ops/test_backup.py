"""`tpquiz backup` and `tpquiz restore` on real SQLite files."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.infra.runlock import hold_run_lock
from bot.storage.sqlite import Storage
from bot.storage.sqlite.backup import (
    BackupError,
    backup_database,
    check_database_file,
    restore_database,
)
from bot.storage.sqlite.migrate import migrations
from tests.factories import make_bank
from tests.ops.conftest import CliRunner

GUILD = 111
QID = "mlp-split-01"


async def _fill(db: Path, members: int, *, first_user: int = 1000) -> None:
    """`members` answers to one post, through the storage layer the bot uses."""
    storage = await Storage.open(db)
    try:
        question = make_bank()[QID]
        post = await storage.posts.create(
            guild_id=GUILD,
            channel_id=5,
            question_id=QID,
            order=(0, 1, 2, 3),
            language="en",
            now_ms=1,
        )
        for i in range(members):
            await storage.answers.record(
                guild_id=GUILD,
                user_id=first_user + i,
                name=f"m{i}",
                question=question,
                choice_index=i % 4,
                now_ms=10 + i,
                post_id=post.id,
            )
    finally:
        await storage.close()


def _count(db: Path, table: str = "answers") -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _listing(directory: Path) -> list[Path]:
    return sorted(directory.iterdir())


def _assert_consistent(path: Path) -> None:
    """Integrity, and the cross-table totals one transaction keeps in step."""
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        mismatched_posts = conn.execute(
            "SELECT p.id FROM posts p WHERE p.answer_count !="
            " (SELECT count(*) FROM answers a WHERE a.post_id = p.id)"
        ).fetchall()
        mismatched_members = conn.execute(
            "SELECT m.user_id FROM members m WHERE m.answered !="
            " (SELECT count(*) FROM answers a WHERE a.guild_id = m.guild_id AND a.user_id = m.user_id)"
        ).fetchall()
    assert mismatched_posts == [] and mismatched_members == []


async def test_a_backup_during_a_burst_of_answers_is_a_consistent_snapshot(tmp_path: Path) -> None:
    db, dest = tmp_path / "live.sqlite3", tmp_path / "backup.sqlite3"
    storage = await Storage.open(db)
    question = make_bank()[QID]
    posts = [
        await storage.posts.create(
            guild_id=GUILD,
            channel_id=5,
            question_id=QID,
            order=(0, 1, 2, 3),
            language="en",
            now_ms=1,
        )
        for _ in range(3)
    ]
    committed = 0
    warmed_up, stop = asyncio.Event(), asyncio.Event()
    commit_seen = threading.Event()  # crosses from the event loop to the backup thread

    async def burst() -> None:
        nonlocal committed
        while not stop.is_set():
            await storage.answers.record(
                guild_id=GUILD,
                user_id=10_000 + committed,
                name=f"member {committed}",
                question=question,
                choice_index=committed % 4,
                now_ms=100 + committed,
                post_id=posts[committed % 3].id,
            )
            committed += 1
            commit_seen.set()
            if committed == 25:
                warmed_up.set()

    def wait_for_a_commit(status: int, remaining: int, total: int) -> None:
        # Called by SQLite inside the backup call: keep it open until the writer commits
        # again, so the burst provably goes on while the backup runs.
        commit_seen.clear()
        assert commit_seen.wait(timeout=60), "the writer stopped during the backup"

    writer = asyncio.create_task(burst())
    try:
        await warmed_up.wait()
        before = committed
        result = await asyncio.to_thread(backup_database, db, dest, progress=wait_for_a_commit)
        after = committed
        assert not writer.done()  # still bursting after the backup returned
    finally:
        stop.set()
        await writer
        await storage.close()

    assert after > before >= 25
    assert before <= result.answers <= after
    assert result.answers == _count(dest)
    _assert_consistent(dest)
    _assert_consistent(db)
    # A backup is one self-contained file, not a WAL database with side files.
    with sqlite3.connect(dest) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert not (tmp_path / "backup.sqlite3-wal").exists()
    assert check_database_file(dest) == (len(migrations()), result.answers)


async def test_backup_into_a_directory_names_by_time_and_keeps_the_newest(tmp_path: Path) -> None:
    db, backups = tmp_path / "live.sqlite3", tmp_path / "backups"
    await _fill(db, 3)
    backups.mkdir()
    made = [
        backup_database(db, backups, keep=2, now=datetime(2025, 1, day, 2, 0, tzinfo=UTC))
        for day in (1, 2, 3)
    ]
    assert [r.path.name for r in made] == [
        "tpquiz-20250101T020000Z.sqlite3",
        "tpquiz-20250102T020000Z.sqlite3",
        "tpquiz-20250103T020000Z.sqlite3",
    ]
    assert made[2].pruned == (made[0].path,)
    assert sorted(p.name for p in backups.iterdir()) == [made[1].path.name, made[2].path.name]


async def test_backup_refuses_to_overwrite_or_to_invent_a_database(tmp_path: Path) -> None:
    db, dest = tmp_path / "live.sqlite3", tmp_path / "b.sqlite3"
    with pytest.raises(BackupError, match="no database file"):
        backup_database(db, dest)
    assert not db.exists()  # a typo in TPQUIZ_DB must not create an empty database
    await _fill(db, 1)
    backup_database(db, dest)
    with pytest.raises(BackupError, match="--force"):
        backup_database(db, dest)
    assert backup_database(db, dest, overwrite=True).answers == 1
    with pytest.raises(BackupError, match="does not exist"):
        backup_database(db, tmp_path / "missing" / "b.sqlite3")


async def test_the_backup_command_prints_what_it_wrote(
    cli: CliRunner, ops_env: Path, tmp_path: Path
) -> None:
    await _fill(ops_env, 4)
    code, out, err = cli("backup", str(tmp_path / "nightly") + "/", "--keep", "7")
    assert (code, err) == (0, "")
    assert out.startswith(f"backup: wrote {tmp_path / 'nightly'}/tpquiz-")
    assert "4 answers, integrity ok" in out
    code, out, err = cli("backup", str(tmp_path / "one.sqlite3"), "--keep", "2")
    assert code == 1 and "--keep only applies when DEST is a directory" in err


async def test_restore_is_refused_while_the_bot_runs(
    cli: CliRunner, ops_env: Path, tmp_path: Path
) -> None:
    await _fill(ops_env, 2)
    backup = backup_database(ops_env, tmp_path / "b.sqlite3").path
    await _fill(ops_env, 3, first_user=5000)
    with hold_run_lock(ops_env):  # what run_bot holds for the bot's whole life
        code, out, err = cli("restore", str(backup))
    assert code == 1 and out == ""
    assert err.startswith("tpquiz restore: refused: tpquiz is running on this database (pid ")
    assert "Stop the bot first" in err
    assert _count(ops_env) == 5  # untouched


async def test_restore_works_when_the_bot_is_stopped(
    cli: CliRunner, ops_env: Path, tmp_path: Path
) -> None:
    await _fill(ops_env, 2)
    backup = backup_database(ops_env, tmp_path / "b.sqlite3").path
    await _fill(ops_env, 3, first_user=5000)
    code, out, err = cli("restore", str(backup))
    assert (code, err) == (0, "")
    assert "(schema " in out and "2 answers" in out and "previous database is kept at" in out
    assert _count(ops_env) == 2
    kept = [p for p in _listing(ops_env.parent) if ".before-restore-" in p.name]
    assert len(kept) == 1 and _count(kept[0]) == 5
    assert not ops_env.with_name(ops_env.name + "-wal").exists()
    # The bot opens the restored file and keeps working on it.
    storage = await Storage.open(ops_env)
    await storage.meta.set("after-restore", "1")
    await storage.close()
    _assert_consistent(ops_env)


async def test_restore_onto_a_new_host_needs_no_existing_database(tmp_path: Path) -> None:
    old, new = tmp_path / "old.sqlite3", tmp_path / "newhost" / "tpquiz.sqlite3"
    await _fill(old, 3)
    backup = backup_database(old, tmp_path / "b.sqlite3").path
    result = restore_database(backup, new)
    assert result.previous is None and result.answers == 3 and _count(new) == 3


async def test_restore_checks_the_source_before_touching_anything(tmp_path: Path) -> None:
    db = tmp_path / "live.sqlite3"
    await _fill(db, 2)
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(BackupError, match="not a readable SQLite database"):
        restore_database(garbage, db)
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x)")
    with pytest.raises(BackupError, match="not a tpquiz database"):
        restore_database(other, db)
    newer = tmp_path / "newer.sqlite3"
    backup_database(db, newer)
    with sqlite3.connect(newer) as conn:
        conn.execute(f"PRAGMA user_version = {len(migrations()) + 1}")
    with pytest.raises(BackupError, match="install the tpquiz version that made it"):
        restore_database(newer, db)
    with pytest.raises(BackupError, match="no database file"):
        restore_database(tmp_path / "absent.sqlite3", db)
    assert _count(db) == 2
    assert not any("before-restore" in p.name for p in _listing(tmp_path))
