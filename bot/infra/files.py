"""Writing files so that a failure never leaves a truncated or replaced target behind.

Every file tpquiz writes (imported question files, backups, the heartbeat) goes through
`write_atomic`: the bytes go to a temporary file beside the target, are flushed to disk,
and only then renamed over the target. A full disk or a crash mid-write leaves the old
file whole. A target that exists but is not a regular file (a directory, a device node
such as /dev/full, a FIFO) is refused rather than replaced: renaming over it would
silently destroy something that was never ours.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class UnsafeTarget(Exception):
    """The target path exists and is not a regular file, or its folder is unusable."""


def check_target(path: Path) -> None:
    """Raise UnsafeTarget unless `path` is absent or a regular file in an existing folder."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise UnsafeTarget(f"{path}: cannot be inspected ({exc.strerror or exc})") from exc
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise UnsafeTarget(f"{path} is {kind}; refusing to replace it")
    parent = path.parent
    if not parent.exists():
        raise UnsafeTarget(f"{parent}: no such directory")
    if not parent.is_dir():
        raise UnsafeTarget(f"{parent} is not a directory")


def write_atomic(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Replace `path` with `data` all at once, or leave it as it was.

    Raises UnsafeTarget for a target that is not a regular file and OSError for a
    failed write (disk full, read-only file system); in both cases the old file is intact.
    """
    path = Path(path)
    check_target(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def write_atomic_text(path: Path, text: str, *, mode: int = 0o644) -> None:
    """`write_atomic` for UTF-8 text."""
    write_atomic(path, text.encode("utf-8"), mode=mode)


def fsync_dir(folder: Path) -> None:
    """Make the rename itself durable; best effort where directories cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
