"""Backup and restore never destroy what is not theirs (issue 10, items 3, 4 and 5).

A restore onto a directory, a backup --force onto a device node or a FIFO, a backup
that runs out of disk half-way: each is refused or fails in one line, and what was at
the target is still there, unchanged.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from bot.infra.runlock import hold_run_lock, lock_path
from bot.storage.sqlite.backup import backup_database
from bot.storage.sqlite.preflight import run_problem
from tests.mounts import fill, tmpfs
from tests.ops.conftest import CliRunner
from tests.ops.test_backup import _count, _fill
from tests.test_cli import tpquiz
from tests.test_cli_database import _make_db


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- item 3 ------------------------------------------------------------------------------


async def test_restore_onto_a_directory_is_refused_and_touches_nothing(
    cli: CliRunner, ops_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "source.sqlite3"
    await _fill(source, 3)
    backup = tmp_path / "good.sqlite3"
    backup_database(source, backup)
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine\n")
    monkeypatch.setenv("TPQUIZ_DB", str(folder))
    before = sorted(os.listdir(tmp_path))
    code, out, err = cli("restore", str(backup))
    assert (code, out) == (1, "")
    assert err == (
        f"tpquiz restore: {folder} is a directory, not a database file: set TPQUIZ_DB to a "
        f"file path, e.g. {folder / 'tpquiz.sqlite3'}\n"
    )
    assert sorted(os.listdir(tmp_path)) == before  # not even a lock file
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]


# -- item 4 ------------------------------------------------------------------------------


async def test_backup_force_refuses_a_fifo_and_a_directory(
    cli: CliRunner, ops_env: Path, tmp_path: Path
) -> None:
    await _fill(ops_env, 2)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, err = cli("backup", str(fifo), "--force")
    assert (code, out) == (1, "")
    assert err == f"tpquiz backup: {fifo} is not a regular file; refusing to replace it\n"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["data", "pipe"]  # no temp left


async def test_backup_force_refuses_a_device_node(
    cli: CliRunner, ops_env: Path, tmp_path: Path
) -> None:
    """/dev/full itself is not risked: a node of the same device (1, 7) in tmp_path."""
    await _fill(ops_env, 2)
    node = tmp_path / "full"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("creating a device node needs root")
    code, _, err = cli("backup", str(node), "--force")
    assert code == 1
    assert err == f"tpquiz backup: {node} is not a regular file; refusing to replace it\n"
    assert stat.S_ISCHR(os.stat(node).st_mode)


# -- item 5 ------------------------------------------------------------------------------


async def test_a_backup_that_runs_out_of_disk_keeps_the_old_backup_whole(
    cli: CliRunner, ops_env: Path, tmp_path: Path
) -> None:
    await _fill(ops_env, 400)
    with tmpfs(tmp_path / "backups", size_kib=1024) as mount:
        target = mount / "nightly.sqlite3"
        old = ops_env.with_name("first.sqlite3")
        backup_database(ops_env, old)
        target.write_bytes(old.read_bytes())
        before = _digest(target)
        filler = fill(mount)
        code, out, err = cli("backup", str(target), "--force")
        assert code == 1 and out == ""
        assert err == f"tpquiz backup: backup of {ops_env} failed: database or disk is full\n"
        assert _digest(target) == before and _count(target) == _count(old)
        assert sorted(p.name for p in mount.iterdir()) == ["filler", "nightly.sqlite3"]
        filler.unlink()
        assert cli("backup", str(target), "--force")[0] == 0
        assert _count(target) == 400


async def test_keep_prunes_only_backup_files(cli: CliRunner, ops_env: Path, tmp_path: Path) -> None:
    await _fill(ops_env, 2)
    backups = tmp_path / "nightly"
    stray = backups / "tpquiz-00000000T000000Z.sqlite3"
    stray.mkdir(parents=True)  # named like the oldest backup, but a directory
    for _ in range(2):
        code, _, err = cli("backup", f"{backups}/", "--keep", "1", "--force")
        assert code == 0, err
    assert stray.is_dir()
    assert len([p for p in backups.iterdir() if p.is_file()]) == 1


# -- issue 31, defect 14: a restore that fails leaves nothing behind -----------------------


@pytest.mark.parametrize("where", ["new/deeper/quiz.sqlite3", "quiz.sqlite3"])
def test_a_restore_that_fills_the_disk_removes_what_it_created(tmp_path: Path, where: str) -> None:
    """The real command in a subprocess, a 2 MiB backup onto a 512 KiB disk, into a path
    with no database (and directories still to make, or none). It left its .lock file,
    so run and doctor then said "the database was deleted or moved"."""
    backup = _make_db(tmp_path / "backup.sqlite3")
    with sqlite3.connect(backup) as conn:  # bigger than the disk; still a tpquiz database
        conn.execute("CREATE TABLE padding (b BLOB)")
        conn.execute("INSERT INTO padding VALUES (zeroblob(2000000))")
    conn.close()
    with tmpfs(tmp_path / "disk") as mount:
        db = mount / where
        restore = tpquiz("restore", str(backup), cwd=tmp_path, TPQUIZ_DB=str(db))
        assert (restore.returncode, restore.stdout) == (1, "")
        assert restore.stderr == (
            f"tpquiz restore: copying {backup} to {db.parent} failed: database or disk is full\n"
        )
        assert list(mount.iterdir()) == []  # no lock, no directory, no temporary copy
        assert run_problem(db) is None  # what `tpquiz run` asks first
        doctor = tpquiz("doctor", "--offline", cwd=tmp_path, TPQUIZ_DB=str(db))
        assert f"ok   database: no database at {db} yet: tpquiz run creates it there\n" in (
            doctor.stdout
        )


def test_a_failed_restore_beside_a_database_leaves_its_lock(tmp_path: Path) -> None:
    """Where a database is, the lock file stays: after a half-done swap it is what tells
    `run` that the database went missing."""
    db = _make_db(tmp_path / "quiz.sqlite3")
    with pytest.raises(RuntimeError), hold_run_lock(db, undo_on_error=True):
        raise RuntimeError("the restore failed")
    assert lock_path(db).is_file()
