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

The file also holds the holder's pid, for messages only; it is never deleted (deleting a
lock file opens a race where two processes lock two different inodes).
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


@contextmanager
def hold_run_lock(db_path: Path | str, *, wait: float = 0.0) -> Iterator[Path]:
    """Hold the exclusive run lock of `db_path` for the `with` block; yield the lock file.

    Raises `RunLockHeld` when another holder keeps it for longer than `wait` seconds.
    `run_bot` passes `START_WAIT_SECONDS`; `restore` passes 0 (refuse at once). An
    in-memory database (tests) has no file to guard, so nothing is locked.
    """
    if str(db_path) == ":memory:":
        yield Path(os.devnull)
        return
    path = lock_path(db_path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise RunLockUnusable(path, exc) from None
    try:
        deadline = time.monotonic() + wait
        while not _try_lock(fd, fcntl.LOCK_EX):
            if time.monotonic() >= deadline:
                raise RunLockHeld(path, _read_pid(fd))
            time.sleep(_RETRY_SECONDS)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        try:
            yield path
        finally:
            with suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


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
