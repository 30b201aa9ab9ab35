"""Look at a database path before using it, and say in one sentence what is wrong.

`Database.open` runs the cheap part (`path_problem`: what the path is, who may read
and write it, whether the file starts like SQLite) on every open, so no command can
end in an `sqlite3` traceback for a directory or a text file. The commands an operator
runs (`tpquiz run`, `leaderboard`, `doctor`) run `database_problem`, which also reads
the schema version and runs `PRAGMA quick_check` on a read-only connection, so a
damaged or truncated file is refused before anything writes to it. The sentences are
in `bot.storage.problems`.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import tempfile
from contextlib import suppress
from pathlib import Path

from bot.infra.runlock import lock_path, running_pid
from bot.storage import problems
from bot.storage.sqlite.migrate import migrations

__all__ = ["SQLITE_HEADER", "database_problem", "path_problem", "readonly_uri", "run_problem"]

#: The first 16 bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def _existing_ancestor(path: Path) -> Path:
    for parent in path.absolute().parents:
        if parent.exists():
            return parent
    return Path("/")  # pragma: no cover - the root always exists


def _creation_problem(base: Path, path: Path) -> str | None:
    """Whether a file can really be created in `base`: create one and remove it.

    `os.access` judges by the mode bits (and for root, not even those); some directories
    pass it and refuse every new file: /proc and /sys (ENOENT, EACCES even for root).
    The bot would then fail later, at its run lock, so the file the bot would create
    first is tried here, and nothing is left behind.
    """
    try:
        fd, probe = tempfile.mkstemp(prefix=".tpquiz-probe-", dir=base)
    except OSError as exc:
        return problems.cannot_create(base, path, exc)
    os.close(fd)
    with suppress(OSError):
        os.unlink(probe)
    return None


def path_problem(path: Path, *, write: bool) -> str | None:
    """What stops `path` from being opened (for writing too, if `write`); None if nothing.

    A missing file is fine for writing when its directory can be created or written;
    for reading it is a problem.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except NotADirectoryError:
        return problems.cannot_open(path, NotADirectoryError(20, "a parent is not a directory"))
    except OSError as exc:
        return problems.cannot_open(path, exc)
    if mode is None:
        if not write:
            return problems.missing(path)
        base = _existing_ancestor(path)
        if not base.is_dir():
            return problems.cannot_open(path, NotADirectoryError(20, f"{base} is not a directory"))
        if not os.access(base, os.W_OK | os.X_OK):
            return problems.directory_not_writable(base, path)
        return _creation_problem(base, path)
    if stat.S_ISDIR(mode):
        return problems.is_a_directory(path)
    if not stat.S_ISREG(mode):
        return problems.not_a_regular_file(path)
    if not os.access(path, os.R_OK):
        return problems.not_readable(path)
    if write:
        if not os.access(path, os.W_OK):
            return problems.read_only(path)
        folder = path.absolute().parent
        if not os.access(folder, os.W_OK | os.X_OK):
            return problems.directory_not_writable(folder, path)
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        return problems.cannot_open(path, exc)
    if head and head != SQLITE_HEADER:  # an empty file is an empty database
        return problems.not_sqlite(path)
    return None


def readonly_uri(path: Path) -> str:
    """The URI that opens `path` read-only, for reading commands that must change nothing.

    A WAL database needs its -shm file to be read, and SQLite creates it when it is
    missing, so a WAL file in a directory nobody may write (a read-only mount, a backup
    volume, another user's directory) cannot be opened with mode=ro alone
    (SQLITE_READONLY_DIRECTORY / SQLITE_CANTOPEN). Then no writer can be running on it
    either (it would have created the -shm file), and `immutable=1` reads it as it is.
    """
    uri = f"{path.absolute().as_uri()}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error:
        return uri  # the caller opens it again and reports the error
    try:
        conn.execute("PRAGMA user_version").fetchone()
    except sqlite3.OperationalError as exc:
        code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
        if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN):
            return f"{uri}&immutable=1"
    except sqlite3.Error:
        pass
    finally:
        conn.close()
    return uri


def database_problem(path: Path, *, write: bool) -> str | None:
    """`path_problem`, then the schema and `PRAGMA quick_check`, without changing the file.

    For `write`, a schema older than the code is fine (opening migrates it); for
    reading it is not, since reading commands never migrate.
    """
    problem = path_problem(path, write=write)
    if problem or not path.is_file() or path.stat().st_size == 0:
        return problem
    newest = len(migrations())
    try:
        conn = sqlite3.connect(readonly_uri(path), uri=True)
    except sqlite3.Error as exc:
        return problems.cannot_open(path, exc)
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version > newest:
            return problems.schema_too_new(path, version, newest)
        if (tables or version > 0) and "answers" not in tables:
            return problems.not_tpquiz(path, version)
        if not write and version < newest:
            return problems.schema_too_old_to_read(path, version, newest)
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        return problems.unreadable_sqlite(path, exc)
    finally:
        conn.close()
    if rows != ["ok"]:
        return problems.damaged(path, rows)
    return None


def run_problem(db_path: Path) -> str | None:
    """Why the bot must not start on `db_path`, or None (`tpquiz run` and doctor).

    Besides `database_problem`: an in-memory database keeps nothing, and a missing file
    beside the run lock of an earlier bot was deleted or moved (starting would quietly
    begin an empty database and the standings would be gone).
    """
    if str(db_path) == ":memory:":
        return problems.in_memory()
    lock = lock_path(db_path)
    if not db_path.exists() and lock.is_file():
        if running_pid(db_path) is not None:
            return None  # a bot runs there: the run lock refuses with its own sentence
        return problems.lost_before_start(db_path, lock)
    return database_problem(db_path, write=True)
