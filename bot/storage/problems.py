"""The sentences that say what is wrong with the database file and what to do about it.

`tpquiz doctor`, `tpquiz run`, `tpquiz leaderboard`, backup and restore all meet the same
broken set-ups (a directory where the file should be, a read-only file, a file that is
not SQLite, one written by a newer tpquiz). Each sentence is written once, here, so an
operator reads the same words whichever command found the problem. This module holds
only text and the exceptions that carry it; `bot.storage.sqlite.preflight` does the looking.
`BackupError` is here, not in bot/storage/sqlite/backup.py which raises it, so that
`tpquiz backup` and `restore` catch it without importing a backend.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

__all__ = [
    "BackupError",
    "DatabaseUnusable",
    "cannot_create",
    "cannot_open",
    "damaged",
    "directory_not_writable",
    "file_lost",
    "in_memory",
    "is_a_directory",
    "lost_before_start",
    "missing",
    "not_a_regular_file",
    "not_readable",
    "not_sqlite",
    "not_tpquiz",
    "read_only",
    "schema_too_new",
    "schema_too_old_to_read",
    "unreadable_sqlite",
]


class DatabaseUnusable(Exception):
    """The database cannot be used as asked; the message is one sentence saying why."""


class BackupError(Exception):
    """A backup or restore could not be done; the message says why and what to do."""


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry for this uid (containers)
        return f"uid {os.getuid()}"


def is_a_directory(path: Path) -> str:
    return (
        f"{path} is a directory, not a database file: set TPQUIZ_DB to a file path, "
        f"e.g. {path / 'tpquiz.sqlite3'}"
    )


def not_a_regular_file(path: Path) -> str:
    return f"{path} is not a regular file: set TPQUIZ_DB to the bot's database file"


def in_memory() -> str:
    return (
        "TPQUIZ_DB=:memory: keeps nothing (every answer is gone when the bot stops, and "
        "there is no run lock): set TPQUIZ_DB to a file, e.g. data/tpquiz.sqlite3"
    )


def missing(path: Path) -> str:
    return f"no database at {path}: set TPQUIZ_DB to the bot's database file"


def lost_before_start(path: Path, lock: Path) -> str:
    return (
        f"no database at {path}, but {lock} shows a bot ran on it before: the database "
        "was deleted or moved; restore the latest backup (tpquiz restore BACKUP), or "
        f"delete {lock} to start again with an empty database"
    )


def directory_not_writable(directory: Path, path: Path) -> str:
    return (
        f"directory {directory} is not writable by {_user()}: tpquiz keeps {path.name} and "
        "its -wal, -shm and .lock files there; fix the directory's owner or mode, or set "
        "TPQUIZ_DB"
    )


def cannot_create(directory: Path, path: Path, exc: OSError) -> str:
    return (
        f"cannot create files in directory {directory} ({exc.strerror or exc}), although "
        f"its mode allows it (e.g. /proc or /sys): tpquiz keeps {path.name} and its -wal, "
        "-shm and .lock files there; set TPQUIZ_DB to a file on a writable disk"
    )


def not_readable(path: Path) -> str:
    return (
        f"{path} is not readable by {_user()}: fix the file's owner or mode "
        "(chown/chmod), or set TPQUIZ_DB"
    )


def read_only(path: Path) -> str:
    return (
        f"{path} is read-only for {_user()}: the bot must write answers; fix the file's "
        "owner or mode (chown/chmod), or set TPQUIZ_DB"
    )


def not_sqlite(path: Path) -> str:
    return (
        f"{path} is not an SQLite database (it does not start with the SQLite header): "
        "point TPQUIZ_DB at the bot's database file, or restore the latest backup "
        "(tpquiz restore)"
    )


def unreadable_sqlite(path: Path, detail: object) -> str:
    return (
        f"{path} is not a readable SQLite database ({detail}): restore the latest backup "
        "(tpquiz restore)"
    )


def not_tpquiz(path: Path, version: int) -> str:
    return (
        f"{path} is not a tpquiz database (no answers table, schema {version}): point "
        "TPQUIZ_DB at the bot's database file"
    )


def damaged(path: Path, problems: list[str]) -> str:
    return (
        f"{path} is damaged ({'; '.join(problems[:2])}): stop the bot and restore the "
        "latest backup (tpquiz restore)"
    )


def schema_too_new(path: Path, version: int, newest: int) -> str:
    return (
        f"{path} has schema {version} but this tpquiz knows {newest}: it was made by a "
        "newer tpquiz; install that version again (downgrades are not supported), or "
        "restore a backup taken before the upgrade"
    )


def schema_too_old_to_read(path: Path, version: int, newest: int) -> str:
    return (
        f"{path} is at schema {version}, this tpquiz reads schema {newest}: start the bot "
        "once (tpquiz run) to migrate it, then ask again; this command never changes the file"
    )


def cannot_open(path: Path, exc: BaseException) -> str:
    detail = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return (
        f"cannot open {path} ({type(exc).__name__}: {detail}): make sure the directory "
        f"{path.parent} exists and is writable by {_user()}, or set TPQUIZ_DB"
    )


def file_lost(path: Path, how: str) -> str:
    return (
        f"the database file {path} was {how} while the bot was running: answers are no "
        "longer saved; stop the bot, put the database back (tpquiz restore BACKUP) and "
        "start it again"
    )
