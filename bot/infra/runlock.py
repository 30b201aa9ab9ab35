"""One running bot per database, visible to other processes through a lock file.

`tpquiz restore` must not swap the database file under a running bot: the bot's open
connection would keep writing to the old, unlinked file and every answer after the
restore would be lost. The running bot therefore holds an exclusive `flock` on
`<database>.lock` for its whole life; `restore` takes the same lock before touching the
file and refuses when it cannot. The kernel drops the lock when the process dies, even on
SIGKILL or OOM, so a crash never leaves a stale lock behind (unlike a bare pid file).

`flock` locks belong to an open file description, not to a process, so two holders in
one process conflict too; tests rely on that. The lock works across containers that share
the database volume on one host, since they share the kernel.

The file also holds the holder's pid, for messages only. It stays when the holder stops
(a database missing beside it was deleted or moved: `preflight.run_problem`), with one
exception: a `restore` that fails removes the lock file (and directories) it created, so
a failed restore into a new path leaves nothing that says a bot ran there. Deleting a lock
file can let two processes lock two different inodes (one waiting on the old file while a
newcomer creates a new one), so it is deleted only while held, and every holder checks,
once it has the lock, that its file is still the one at the path; if not, it locks anew.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

__all__ = ["RunLockHeld", "RunLockUnusable", "hold_run_lock", "lock_path", "running_pid"]

#: How long the bot waits for the lock at start-up: a `tpquiz doctor` probing the lock
#: holds it for microseconds and must not make a starting bot give up.
START_WAIT_SECONDS = 3.0
_RETRY_SECONDS = 0.05


class RunLockHeld(Exception):
    """Another process (normally the running bot) holds the database's run lock."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path = path
        self.pid = pid
        who = f"pid {pid}" if pid else "another process"
        super().__init__(f"tpquiz is running on this database ({who} holds {path})")

    @property
    def refusal(self) -> str:
        """The sentence for a command that must not run beside the bot (run, db upgrade)."""
        return f"{self}: stop it first, or point TPQUIZ_DB elsewhere"


class RunLockUnusable(OSError):
    """The lock file cannot be made or opened: its place refuses files (a directory
    under /proc, a directory standing at its name), not another holder.

    An OSError, so a command that reports OSErrors in one line already does; `tpquiz run`
    says `refusal`.
    """

    def __init__(self, path: Path, cause: OSError) -> None:
        super().__init__(cause.errno, cause.strerror, str(path))
        self.path = path

    @property
    def refusal(self) -> str:
        return (
            f"cannot create the run lock {self.path} ({self.strerror or 'refused'}): tpquiz "
            "keeps it beside the database; set TPQUIZ_DB to a file in a directory where "
            f"tpquiz may create files, or remove what stands at {self.path}"
        )


def lock_path(db_path: Path | str) -> Path:
    """The lock file that guards `db_path`: the same name with `.lock` appended."""
    db_path = Path(db_path)
    return db_path.with_name(db_path.name + ".lock")


def _read_pid(fd: int) -> int | None:
    with suppress(OSError, ValueError):
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text else None
    return None


def _try_lock(fd: int, operation: int) -> bool:
    try:
        fcntl.flock(fd, operation | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
            return False
        raise
    return True


def _open_lock(path: Path) -> tuple[int, bool]:
    """The lock file opened for writing, and whether this call created it."""
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC
    try:
        return os.open(path, flags | os.O_EXCL, 0o644), True
    except FileExistsError:
        return os.open(path, flags, 0o644), False


def _is_at(fd: int, path: Path) -> bool:
    """Whether the open file `fd` is still the file at `path` (not removed or replaced)."""
    try:
        there = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


def _acquire(path: Path, wait: float) -> tuple[int, bool]:
    """The locked lock file's descriptor, and whether it was created here."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fd, created = _open_lock(path)
        except OSError as exc:
            raise RunLockUnusable(path, exc) from None
        try:
            while not _try_lock(fd, fcntl.LOCK_EX):
                if time.monotonic() >= deadline:
                    raise RunLockHeld(path, _read_pid(fd))
                time.sleep(_RETRY_SECONDS)
            if _is_at(fd, path):
                return fd, created
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # removed by a failed restore while we waited: lock the new file


def _missing_dirs(directory: Path) -> list[Path]:
    """The directories up to `directory` that do not exist yet, deepest first."""
    missing: list[Path] = []
    with suppress(OSError):
        while not directory.exists() and directory != directory.parent:
            missing.append(directory)
            directory = directory.parent
    return missing


@contextmanager
def hold_run_lock(
    db_path: Path | str, *, wait: float = 0.0, undo_on_error: bool = False
) -> Iterator[Path]:
    """Hold the exclusive run lock of `db_path` for the `with` block; yield the lock file.

    Raises `RunLockHeld` when another holder keeps it for longer than `wait` seconds.
    `run_bot` passes `START_WAIT_SECONDS`; `restore` passes 0 (refuse at once). An
    in-memory database (tests) has no file to guard, so nothing is locked.
    With `undo_on_error` (restore), a block that fails where there was no database and
    still is none removes the lock file and the directories this call created, still
    holding the lock: the lock file is what tells `tpquiz run` that a database was lost,
    and none was ever there.
    """
    if str(db_path) == ":memory:":
        yield Path(os.devnull)
        return
    path = lock_path(db_path)
    made = _missing_dirs(path.parent)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunLockUnusable(path, exc) from None
    fd, created = _acquire(path, wait)
    # Only where there was no database: beside one, the lock file is harmless, and after
    # a half-done swap it is what tells `run` that the database is missing.
    fresh = created and not os.path.lexists(db_path)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        try:
            yield path
        except BaseException:
            if undo_on_error and fresh and not os.path.lexists(db_path):
                _remove(path, made)
            raise
        finally:
            with suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _remove(path: Path, made: list[Path]) -> None:
    """Delete the lock file and the (now empty) directories made for it; best effort."""
    with suppress(OSError):
        path.unlink()
    for directory in made:
        try:
            directory.rmdir()
        except OSError:  # not empty (something else is there now) or not ours to remove
            break


def running_pid(db_path: Path | str) -> int | None:
    """The pid of the bot running on `db_path` (0 if unknown), or None when none runs.

    Probes with a shared lock held for an instant; a bot starting in that instant waits
    for it (see `START_WAIT_SECONDS`). A missing lock file means no bot ever ran here.
    """
    path = lock_path(db_path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:  # no lock file (never ran here), or no such directory
        return None
    try:
        if _try_lock(fd, fcntl.LOCK_SH):
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        return _read_pid(fd) or 0
    finally:
        os.close(fd)
