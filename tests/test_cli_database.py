"""`tpquiz run` and `tpquiz leaderboard` on database paths that cannot serve (issue 10).

Each case is the real command in a subprocess: one line on stderr (doctor's sentence,
bot.storage.problems), exit status 2, no traceback, and the file exactly as it was.
`run` gets a token of the right shape so that it reaches the database check; it stops
there, before Discord.
"""

from __future__ import annotations

import asyncio
import getpass
import hashlib
import sqlite3
from pathlib import Path

import pytest

from bot.storage.sqlite import Storage
from bot.storage.sqlite.migrate import migrations
from tests.factories import make_bank
from tests.mounts import remount, tmpfs
from tests.test_cli import FAKE_TOKEN, tpquiz

NEWEST = len(migrations())
USER = getpass.getuser()


def _make_db(path: Path, answers: int = 2) -> Path:
    async def fill() -> None:
        storage = await Storage.open(path)
        q = make_bank()["mlp-split-01"]
        for user in range(1, answers + 1):
            post = await storage.posts.create(
                guild_id=9, channel_id=1, question_id=q.id, order=(0, 1, 2, 3),
                language="en", now_ms=0,
            )  # fmt: skip
            await storage.answers.record(
                guild_id=9, user_id=user, name=f"user{user}", question=q,
                choice_index=1, now_ms=1, post_id=post.id,
            )  # fmt: skip
        await storage.close()

    asyncio.run(fill())
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(result: object, sentence: str) -> None:
    assert result.returncode == 2, result.stderr  # type: ignore[attr-defined]
    assert result.stderr == f"tpquiz: {sentence}\n"  # type: ignore[attr-defined]
    assert "Traceback" not in result.stdout  # type: ignore[attr-defined]


def _both(tmp_path: Path, db: Path) -> tuple[object, object]:
    run = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DB=str(db))
    board = tpquiz("leaderboard", "--guild", "9", cwd=tmp_path, TPQUIZ_DB=str(db))
    return run, board


# -- item 1: a schema newer than the code -------------------------------------------------


def test_a_database_from_a_newer_tpquiz_is_refused_and_left_alone(tmp_path: Path) -> None:
    db = _make_db(tmp_path / "quiz.sqlite3")
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {NEWEST + 1}")
    conn.close()
    before = _digest(db)
    sentence = (
        f"{db} has schema {NEWEST + 1} but this tpquiz knows {NEWEST}: it was made by a newer "
        "tpquiz; install that version again (downgrades are not supported), or restore a "
        "backup taken before the upgrade"
    )
    for result in _both(tmp_path, db):
        _refused(result, sentence)
    assert _digest(db) == before
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == NEWEST + 1
    conn.close()


# -- item 7: paths that are not a usable database -----------------------------------------


def test_a_directory_is_not_a_database_file(tmp_path: Path) -> None:
    db = tmp_path / "data"
    db.mkdir()
    sentence = (
        f"{db} is a directory, not a database file: set TPQUIZ_DB to a file path, "
        f"e.g. {db / 'tpquiz.sqlite3'}"
    )
    for result in _both(tmp_path, db):
        _refused(result, sentence)
    assert list(db.iterdir()) == []


def test_a_file_that_is_not_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "notes.txt"
    db.write_text("these are my notes\n" * 50)
    before = _digest(db)
    sentence = (
        f"{db} is not an SQLite database (it does not start with the SQLite header): point "
        "TPQUIZ_DB at the bot's database file, or restore the latest backup (tpquiz restore)"
    )
    for result in _both(tmp_path, db):
        _refused(result, sentence)
    assert _digest(db) == before


def test_a_truncated_database(tmp_path: Path) -> None:
    db = _make_db(tmp_path / "quiz.sqlite3", answers=60)
    size = db.stat().st_size
    with open(db, "r+b") as f:
        f.truncate(size // 2)
    before = _digest(db)
    sentence = (
        f"{db} is not a readable SQLite database (database disk image is malformed): restore "
        "the latest backup (tpquiz restore)"
    )
    for result in _both(tmp_path, db):
        _refused(result, sentence)
    assert _digest(db) == before


def test_a_corrupt_database(tmp_path: Path) -> None:
    db = _make_db(tmp_path / "quiz.sqlite3", answers=60)
    with sqlite3.connect(db) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'answers'").fetchone()[
            0
        ]
    conn.close()
    with open(db, "r+b") as f:  # scribble over the answers table's root page
        f.seek((root - 1) * page_size)
        f.write(b"\xff" * page_size)
    before = _digest(db)
    for result in _both(tmp_path, db):
        assert result.returncode == 2  # type: ignore[attr-defined]
        (line,) = result.stderr.splitlines()  # type: ignore[attr-defined]
        assert line.startswith(f"tpquiz: {db} is damaged (") or line.startswith(
            f"tpquiz: {db} is not a readable SQLite database ("
        ), line
        assert line.endswith("restore the latest backup (tpquiz restore)")
    assert _digest(db) == before


def test_a_database_in_a_directory_that_cannot_exist(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where a directory should be\n")
    db = blocker / "tpquiz.sqlite3"
    sentence = (
        f"cannot open {db} (NotADirectoryError: a parent is not a directory): make sure the "
        f"directory {blocker} exists and is writable by {USER}, or set TPQUIZ_DB"
    )
    run = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DB=str(db))
    _refused(run, sentence)
    board = tpquiz("leaderboard", "--guild", "9", cwd=tmp_path, TPQUIZ_DB=str(db))
    _refused(board, sentence)


def test_leaderboard_on_a_missing_database(tmp_path: Path) -> None:
    db = tmp_path / "none.sqlite3"
    board = tpquiz("leaderboard", "--guild", "9", cwd=tmp_path, TPQUIZ_DB=str(db))
    _refused(board, f"no database at {db}: set TPQUIZ_DB to the bot's database file")
    assert not db.exists()


def test_leaderboard_never_migrates_an_older_database(tmp_path: Path) -> None:
    db = _make_db(tmp_path / "quiz.sqlite3")
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {NEWEST - 1}")
    conn.close()
    before = _digest(db)
    board = tpquiz("leaderboard", "--guild", "9", cwd=tmp_path, TPQUIZ_DB=str(db))
    _refused(
        board,
        f"{db} is at schema {NEWEST - 1}, this tpquiz reads schema {NEWEST}: start the bot "
        "once (tpquiz run) to migrate it, then ask again; this command never changes the file",
    )
    assert _digest(db) == before


def test_on_a_read_only_file_system_leaderboard_reads_and_run_refuses(tmp_path: Path) -> None:
    """Root ignores file modes, so read-only is a read-only mount (skipped without root).

    2 MiB, not the default 512 KiB: the migrations' WAL and the checkpoint at close need
    about 400 KiB at once, and a full tmpfs leaves the -wal and -shm files behind."""
    with tmpfs(tmp_path / "ro", size_kib=2048) as mount:
        db = _make_db(mount / "quiz.sqlite3")
        before = _digest(db)
        remount(mount, "ro")
        board = tpquiz("leaderboard", "--guild", "9", "--json", cwd=tmp_path, TPQUIZ_DB=str(db))
        assert board.returncode == 0, board.stderr
        assert '"user_id": 1' in board.stdout and board.stderr == ""
        run = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DB=str(db))
        _refused(
            run,
            f"{db} is read-only for {USER}: the bot must write answers; fix the file's owner "
            "or mode (chown/chmod), or set TPQUIZ_DB",
        )
        deeper = mount / "new" / "quiz.sqlite3"  # a directory run would have to create
        run = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DB=str(deeper))
        _refused(
            run,
            f"directory {mount} is not writable by {USER}: tpquiz keeps quiz.sqlite3 and its "
            "-wal, -shm and .lock files there; fix the directory's owner or mode, or set "
            "TPQUIZ_DB",
        )
        assert _digest(db) == before
        assert sorted(p.name for p in mount.iterdir()) == ["quiz.sqlite3"]


def test_a_database_in_an_unwritable_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The directory check, with `os.access` answering as for an ordinary user (tests run
    as root, whom the kernel lets write anywhere)."""
    import os

    from bot.storage.sqlite import preflight

    folder = tmp_path / "srv"
    folder.mkdir()
    db = _make_db(folder / "quiz.sqlite3")
    real = os.access

    def access(path: object, mode: int, **kw: object) -> bool:
        if Path(str(path)) == folder and mode & os.W_OK:
            return False
        return real(path, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(preflight.os, "access", access)
    assert preflight.run_problem(db) == (
        f"directory {folder} is not writable by {USER}: tpquiz keeps quiz.sqlite3 and its "
        "-wal, -shm and .lock files there; fix the directory's owner or mode, or set TPQUIZ_DB"
    )
    assert preflight.database_problem(db, write=False) is None  # reading needs no writes


# -- item 19: no persistence, or a database deleted since the last run ---------------------


def test_run_refuses_an_in_memory_database(tmp_path: Path) -> None:
    run = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DB=":memory:")
    _refused(
        run,
        "TPQUIZ_DB=:memory: keeps nothing (every answer is gone when the bot stops, and "
        "there is no run lock): set TPQUIZ_DB to a file, e.g. data/tpquiz.sqlite3",
    )
    assert list(tmp_path.iterdir()) == []


def test_run_refuses_to_start_afresh_where_a_database_was_deleted(tmp_path: Path) -> None:
    db = _make_db(tmp_path / "quiz.sqlite3")
    lock = tmp_path / "quiz.sqlite3.lock"
    lock.write_text("")  # left by every earlier `tpquiz run`
    db.unlink()
    run = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DB=str(db))
    _refused(
        run,
        f"no database at {db}, but {lock} shows a bot ran on it before: the database was "
        "deleted or moved; restore the latest backup (tpquiz restore BACKUP), or delete "
        f"{lock} to start again with an empty database",
    )
    assert not db.exists()


def test_dotenv_tilde_in_tpquiz_db_is_the_home_directory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    db = _make_db(home / "quiz.sqlite3")
    work = tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text("TPQUIZ_DB=~/quiz.sqlite3\n")
    board = tpquiz("leaderboard", "--guild", "9", "--json", cwd=work, HOME=str(home))
    assert board.returncode == 0, board.stderr
    assert '"user_id": 1' in board.stdout
    assert not (work / "~").exists() and db.is_file()


# -- issue 31, defect 13: a directory that looks writable and refuses every file -----------


def test_run_and_doctor_refuse_a_database_under_proc(tmp_path: Path) -> None:
    """/proc passes the mode check for root (and `os.access`), yet refuses every new file:
    run ended at its run lock in a FileNotFoundError while doctor said ok. Both now try
    to create a file there first, and say the same sentence."""
    import os

    if os.geteuid() != 0:
        pytest.skip("only root sees /proc as writable by its mode")
    db = Path("/proc/tpquiz-test.sqlite3")
    sentence = (
        "cannot create files in directory /proc (No such file or directory), although its "
        "mode allows it (e.g. /proc or /sys): tpquiz keeps tpquiz-test.sqlite3 and its -wal, "
        "-shm and .lock files there; set TPQUIZ_DB to a file on a writable disk"
    )
    run = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DB=str(db))
    _refused(run, sentence)
    doctor = tpquiz("doctor", "--offline", cwd=tmp_path, TPQUIZ_DB=str(db))
    assert doctor.returncode == 1
    assert f"FAIL database: {sentence}\n" in doctor.stdout
    assert "Traceback" not in doctor.stdout + doctor.stderr


def test_a_run_lock_that_cannot_be_created_is_one_line(tmp_path: Path) -> None:
    """Past every check, the lock file itself refused (here: a directory stands at its
    name): run says so in one line instead of an IsADirectoryError traceback."""
    db = tmp_path / "quiz.sqlite3"
    lock = tmp_path / "quiz.sqlite3.lock"
    lock.mkdir()
    run = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DB=str(db))
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines()[-1] == (
        f"tpquiz: cannot create the run lock {lock} (Is a directory): tpquiz keeps it beside "
        "the database; set TPQUIZ_DB to a file in a directory where tpquiz may create files, "
        f"or remove what stands at {lock}"
    )
