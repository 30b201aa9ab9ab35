"""Backup and restore of the SQLite database file, safe while the bot runs.

A plain `cp` of a WAL database can copy the main file and the `-wal` file at different
moments and produce a corrupt or silently older copy. `backup_database` uses SQLite's
online backup API instead: it copies every page inside one read transaction, so the copy
is a consistent snapshot even while the bot keeps committing answers (in WAL mode readers
never block the writer, so members notice nothing). The copy is written to a temporary
file, switched to a self-contained rollback journal, checked with `PRAGMA integrity_check`
and only then renamed into place, so a half-written backup never carries the final name.

`restore_database` is the reverse and is only safe while the bot is stopped (the caller
holds the run lock, see `bot.infra.runlock`). It checks the source first, keeps the current
database beside it as `<db>.before-restore-<time>` and never leaves a `-wal` file of the
old database next to the new one, where SQLite would replay it into the wrong file.

These functions are synchronous (they are called from the CLI, or from a thread).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from bot.infra.files import check_target, fsync_dir
from bot.storage import problems
from bot.storage.problems import BackupError
from bot.storage.sqlite.db import BUSY_TIMEOUT_MS
from bot.storage.sqlite.migrate import migrations

if TYPE_CHECKING:
    from bot.infra.config import DatabaseUrl

__all__ = [
    "BACKUP_PREFIX",
    "BackupError",
    "BackupResult",
    "backup_database",
    "check_database_file",
    "check_restore_target",
    "file_schema_version",
    "quick_check_file",
    "restore_database",
]

#: Name of backups made into a directory: `tpquiz-20250131T020000Z.sqlite3`.
BACKUP_PREFIX = "tpquiz-"
BACKUP_SUFFIX = ".sqlite3"
_SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class BackupResult:
    path: Path
    size: int
    schema_version: int
    answers: int
    #: Where restore put the database it replaced (None for backups, or no old file).
    previous: Path | None = None
    #: Old backups removed by `keep`.
    pruned: tuple[Path, ...] = ()


def _timestamp(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")


def _connect_existing(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open an existing database file; never create an empty one by mistake."""
    if not path.is_file():
        raise BackupError(f"no database file at {path}")
    mode = "ro" if readonly else "rw"
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _inspect(conn: sqlite3.Connection, what: Path) -> tuple[int, int]:
    """(schema version, answer count) of a tpquiz database, after an integrity check."""
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{what} is not a readable SQLite database ({exc})") from None
    problems = [r[0] for r in rows if r[0] != "ok"]
    if problems:
        shown = "; ".join(problems[:3])
        raise BackupError(f"{what} fails PRAGMA integrity_check: {shown}")
    if version < 1 or "answers" not in tables:
        raise BackupError(f"{what} is not a tpquiz database (no answers table, schema {version})")
    newest = len(migrations())
    if version > newest:
        raise BackupError(
            f"{what} has schema version {version} but this tpquiz knows only {newest}: "
            "install the tpquiz version that made it (or newer) first"
        )
    answers = int(conn.execute("SELECT count(*) FROM answers").fetchone()[0])
    return version, answers


def file_schema_version(path: Path) -> int:
    """The schema version (PRAGMA user_version) of an existing file, without migrating it."""
    conn = _connect_existing(path, readonly=True)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is not a readable SQLite database ({exc})") from None
    finally:
        conn.close()


def quick_check_file(path: Path) -> list[str]:
    """Problems `PRAGMA quick_check` finds in the file (empty when it is sound)."""
    conn = _connect_existing(path, readonly=True)
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    finally:
        conn.close()
    return [] if rows == ["ok"] else rows


def check_database_file(path: Path) -> tuple[int, int]:
    """Integrity-check a database or backup file; return (schema version, answers)."""
    conn = _connect_existing(path, readonly=True)
    try:
        return _inspect(conn, path)
    finally:
        conn.close()


def _copy(
    src: sqlite3.Connection, tmp: Path, what: Path, progress: Callable[..., object] | None
) -> tuple[int, int]:
    """Online-backup `src` into the new file `tmp`; return its (version, answers)."""
    dst = sqlite3.connect(tmp)
    try:
        # pages=-1: all pages in one step, under one read transaction, so the snapshot
        # is consistent and never restarts however busy the writer is.
        src.backup(dst, pages=-1, progress=progress)
        # The backup inherits WAL mode from the live file; a backup should be one file.
        dst.execute("PRAGMA journal_mode = DELETE")
        return _inspect(dst, what)
    finally:
        dst.close()


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temp_beside(target: Path, suffix: str) -> Path:
    """A new, empty, uniquely named file next to `target` (same file system: rename works)."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    os.close(fd)
    return Path(name)


def _prune(directory: Path, keep: int) -> tuple[Path, ...]:
    # Only regular files: whatever else carries the name (a directory) is not ours to delete.
    backups = sorted(p for p in directory.glob(f"{BACKUP_PREFIX}*{BACKUP_SUFFIX}") if p.is_file())
    doomed = backups[:-keep] if keep > 0 else []
    for old in doomed:
        old.unlink()
    return tuple(doomed)


def backup_database(
    db_path: Path,
    dest: Path | str,
    *,
    overwrite: bool = False,
    keep: int | None = None,
    now: datetime | None = None,
    progress: Callable[..., object] | None = None,
) -> BackupResult:
    """Copy the live database at `db_path` to `dest` consistently; return what was written.

    `dest` may be a file name, or an existing directory (or a path ending in `/`), in
    which case the file is `tpquiz-<UTC time>.sqlite3` inside it and `keep` (if given)
    removes all but the newest `keep` such files afterwards. An existing file is only
    replaced with `overwrite`, and never when it is not a regular file (a directory, a
    device such as /dev/full): `bot.infra.files.check_target` raises UnsafeTarget. The copy is
    made in a temporary file beside the target and renamed over it only once complete and
    checked, so a full disk leaves the old backup whole.
    """
    db_path = Path(db_path)
    # A trailing "/" (lost by Path(), so look at the string) asks for a directory.
    as_dir = str(dest).endswith(("/", os.sep)) or Path(dest).is_dir()
    dest = Path(dest)
    if as_dir:
        dest.mkdir(parents=True, exist_ok=True)
        target = dest / f"{BACKUP_PREFIX}{_timestamp(now)}{BACKUP_SUFFIX}"
    else:
        if keep is not None:
            raise BackupError("--keep only applies when DEST is a directory")
        target = dest
        if not target.parent.is_dir():
            raise BackupError(f"directory {target.parent} does not exist: create it first")
    check_target(target)
    if target.exists() and not overwrite:
        raise BackupError(f"{target} already exists: pass --force to replace it")
    if target.resolve() == db_path.resolve():
        raise BackupError("the backup destination is the live database itself")

    src = _connect_existing(db_path)
    tmp = _temp_beside(target, ".partial")
    try:
        version, answers = _copy(src, tmp, target, progress)
        _fsync_file(tmp)
        check_target(target)  # nothing else appeared there meanwhile
        os.replace(tmp, target)
        fsync_dir(target.parent)
    except sqlite3.Error as exc:
        raise BackupError(f"backup of {db_path} failed: {exc}") from None
    finally:
        src.close()
        tmp.unlink(missing_ok=True)
    pruned = _prune(dest, keep) if as_dir and keep is not None else ()
    return BackupResult(target, target.stat().st_size, version, answers, pruned=pruned)


def restore_database(src_path: Path, db_path: Path, *, now: datetime | None = None) -> BackupResult:
    """Replace the database at `db_path` by the backup `src_path`. The bot must be stopped.

    The caller holds the run lock (`bot.infra.runlock.hold_run_lock`). The source is checked
    before anything changes; the replaced database is kept as
    `<db>.before-restore-<time>` (with its owner and mode copied to the new file, so a
    restore run as root leaves a file the service user can still write).
    """
    src_path, db_path = Path(src_path), Path(db_path)
    check_restore_target(db_path)
    if src_path.resolve() == db_path.resolve():
        raise BackupError("the backup to restore is the database itself")
    check_database_file(src_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)

    tmp = _temp_beside(db_path, ".restoring")
    previous: Path | None = None
    try:  # the temporary copy goes whatever fails (a full disk: SQLite's error or fsync's)
        src = _connect_existing(src_path, readonly=True)
        try:
            version, answers = _copy(src, tmp, src_path, None)
            _fsync_file(tmp)
        except sqlite3.Error as exc:
            raise BackupError(f"copying {src_path} to {db_path.parent} failed: {exc}") from None
        finally:
            src.close()
        if db_path.exists():
            _checkpoint(db_path)
            stat = db_path.stat()
            previous = db_path.with_name(f"{db_path.name}.before-restore-{_timestamp(now)}")
            os.replace(db_path, previous)
            # Best effort: only root may chown, and that is when it matters.
            with suppress(OSError):
                shutil.copymode(previous, tmp)
            with suppress(OSError):
                os.chown(tmp, stat.st_uid, stat.st_gid)
        for suffix in _SIDE_FILES:
            side = db_path.with_name(db_path.name + suffix)
            if side.exists():  # left by a crash; it belongs to the old file
                os.replace(side, side.with_name(side.name + f".before-restore-{_timestamp(now)}"))
        os.replace(tmp, db_path)
        fsync_dir(db_path.parent)
    finally:
        tmp.unlink(missing_ok=True)
    return BackupResult(db_path, db_path.stat().st_size, version, answers, previous=previous)


def check_restore_target(db_path: Path) -> None:
    """Refuse a database path that is not a file: restore would rename it away.

    `tpquiz restore` calls this before it takes the run lock, so a refused restore
    leaves nothing behind (not even the lock file).
    """
    db_path = Path(db_path)
    if db_path.is_dir():
        raise BackupError(problems.is_a_directory(db_path))
    if db_path.exists() and not db_path.is_file():
        raise BackupError(problems.not_a_regular_file(db_path))


def _checkpoint(db_path: Path) -> None:
    """Fold the old database's WAL into its main file, so the kept copy is complete."""
    try:
        conn = _connect_existing(db_path)
    except BackupError:
        return
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.DatabaseError:
        pass  # a damaged old file is kept as it is; the restore replaces it anyway
    finally:
        conn.close()


def pg_dump_command(url: DatabaseUrl, dest: Path | str, *, now: datetime | None = None) -> str:
    """The shell command that backs up the PostgreSQL database `url` into `dest`.

    Why a command and not a backup: `tpquiz backup` copies the SQLite file, and on
    PostgreSQL there is no file of tpquiz's to copy; pg_dump (the server's own tool, of
    the server's version) makes a consistent dump while the bot runs. The password is
    never printed: it is taken out of the URL and shown as PGPASSWORD=***. A directory
    `dest` gets `tpquiz-<UTC time>.dump`, as a SQLite backup gets its .sqlite3 name.
    """
    plain = _without_password(url)
    as_dir = str(dest).endswith(("/", os.sep)) or Path(dest).is_dir()
    target = Path(dest) / f"{BACKUP_PREFIX}{_timestamp(now)}.dump" if as_dir else Path(dest)
    secret = "PGPASSWORD=*** " if url.password else ""
    return f"{secret}pg_dump --format=custom --file={shlex.quote(str(target))} {shlex.quote(plain)}"


def _without_password(url: DatabaseUrl) -> str:
    """The URL with its password taken out (given by PGPASSWORD or ~/.pgpass instead)."""
    parts = urlsplit(url.dsn)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostinfo = netloc.rpartition("@")
        netloc = f"{userinfo.partition(':')[0]}@{hostinfo}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def pg_restore_command(url: DatabaseUrl, src: Path | str) -> str:
    """The shell command that restores a `pg_dump --format=custom` dump `src` into `url`.

    Why a command: `tpquiz restore` swaps SQLite files; a PostgreSQL database is restored
    by the server's own tool, with the bots stopped. `--clean --if-exists` drops what the
    dump holds first, `--single-transaction` lands it whole or not at all. The password
    is shown as PGPASSWORD=***, never printed."""
    secret = "PGPASSWORD=*** " if url.password else ""
    return (
        f"{secret}pg_restore --clean --if-exists --single-transaction --no-owner"
        f" --dbname={shlex.quote(_without_password(url))} {shlex.quote(str(src))}"
    )
