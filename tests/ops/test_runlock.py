"""The run lock: one bot per database, visible to `restore` in another process."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bot.infra.runlock import RunLockHeld, hold_run_lock, lock_path, running_pid
from tests.ops.conftest import CliRunner

REPO = Path(__file__).resolve().parents[2]


def test_a_second_holder_is_refused_with_the_first_ones_pid(tmp_path: Path) -> None:
    db = tmp_path / "d" / "tpquiz.sqlite3"
    assert running_pid(db) is None  # never ran
    with hold_run_lock(db) as path:
        assert path == lock_path(db) == tmp_path / "d" / "tpquiz.sqlite3.lock"
        assert running_pid(db) == os.getpid()
        with pytest.raises(RunLockHeld) as caught, hold_run_lock(db):
            pass
        assert caught.value.pid == os.getpid()
        assert f"pid {os.getpid()}" in str(caught.value)
    assert running_pid(db) is None
    with hold_run_lock(db):  # released, so it can be taken again
        pass


def test_probing_does_not_take_the_lock_away(tmp_path: Path) -> None:
    db = tmp_path / "tpquiz.sqlite3"
    with hold_run_lock(db):
        for _ in range(3):
            assert running_pid(db) == os.getpid()


def test_an_in_memory_database_needs_no_lock() -> None:
    with hold_run_lock(":memory:"), hold_run_lock(":memory:"):
        pass


def test_a_bot_in_another_process_blocks_restore_until_it_exits(
    cli: CliRunner, ops_env: Path, tmp_path: Path
) -> None:
    """The real situation: the bot is another process; the kernel frees the lock at exit."""
    holder = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from bot.infra.runlock import hold_run_lock
        with hold_run_lock({str(ops_env)!r}):
            print("locked", flush=True)
            sys.stdin.readline()   # hold until the test says so
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "locked"
        assert running_pid(ops_env) == proc.pid
        code, _, err = cli("restore", str(tmp_path / "whatever.sqlite3"))
        assert code == 1 and f"pid {proc.pid}" in err
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    assert running_pid(ops_env) is None


def test_tpquiz_run_refuses_a_second_bot_on_the_same_database(
    ops_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    restore_logging: None,
) -> None:
    from bot.cli import main as cli
    from bot.infra import runlock
    from tests.ops.fake_discord import TOKEN

    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setattr(runlock, "START_WAIT_SECONDS", 0.0)
    with hold_run_lock(ops_env):
        code = cli.cmd_run(argparse.Namespace())
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("tpquiz: tpquiz is running on this database (pid ")
    assert TOKEN not in err
    assert not ops_env.exists()  # refused before opening (and migrating) the database


def test_a_waiter_whose_lock_file_is_removed_locks_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31, defect 14: a failed restore removes the lock file it made while a starting
    bot may already wait on it. The waiter then holds a file no one else can see; it must
    notice, and lock the file at the path, or two processes would both "hold" the lock."""
    import fcntl
    import threading

    from bot.infra import runlock

    db = tmp_path / "quiz.sqlite3"
    path = lock_path(db)
    first = os.open(path, os.O_RDWR | os.O_CREAT)  # the restore's lock, held
    fcntl.flock(first, fcntl.LOCK_EX)
    waiting, go_on = threading.Event(), threading.Event()

    def retry_pause(seconds: float) -> None:  # the waiter's pause, as a handshake
        waiting.set()
        assert go_on.wait(timeout=30)

    monkeypatch.setattr(runlock.time, "sleep", retry_pause)
    seen: list[object] = []
    done = threading.Event()

    def wait_for_it() -> None:
        with hold_run_lock(db, wait=60):
            seen.append(running_pid(db))
            try:  # a newcomer at the path must meet this lock
                with hold_run_lock(db):
                    seen.append("a second holder got in")
            except RunLockHeld:
                seen.append("refused")
        done.set()

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    assert waiting.wait(timeout=30)  # it opened the file and found it locked
    path.unlink()  # the restore tidies up, still holding its lock, then lets go
    fcntl.flock(first, fcntl.LOCK_UN)
    os.close(first)
    go_on.set()
    waiter.join(timeout=30)
    assert done.is_set()
    assert seen == [os.getpid(), "refused"]
