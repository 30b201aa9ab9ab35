"""Real storage faults for tests: a tiny tmpfs to fill up, or to remount read-only.

A full disk and a read-only file system are the faults SQLite actually meets, so the
tests that need them mount a small tmpfs rather than imitate the errors. Mounting needs
root (CAP_SYS_ADMIN); elsewhere these tests are skipped, and say so.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

#: Bytes of one filler write: small, so the disk fills to within a few KiB.
_CHUNK = 4096


@contextmanager
def tmpfs(where: Path, size_kib: int = 512) -> Iterator[Path]:
    """Mount a tmpfs of `size_kib` KiB at `where` for the block; skip if not allowed."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k,mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (needs root): {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def remount(where: Path, mode: str) -> None:
    """Remount the tmpfs at `where` "ro" or "rw"."""
    subprocess.run(["mount", "-o", f"remount,{mode}", str(where)], check=True)


def fill(where: Path) -> Path:
    """Write a file in `where` until the file system is full; return it (unlink frees)."""
    filler = where / "filler"
    with open(filler, "wb", buffering=0) as f:
        while True:
            try:
                f.write(b"\0" * _CHUNK)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                break
        # Some space can remain below the chunk size; take it too.
        for size in (1024, 256, 64, 16, 1):
            while True:
                try:
                    f.write(b"\0" * size)
                except OSError:
                    break
    assert os.statvfs(where).f_bavail == 0
    return filler
