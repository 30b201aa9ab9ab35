"""Real storage faults for tests: a tiny tmpfs to fill up, or to remount read-only, and
file modes that bind even root.

A full disk and a read-only file system are the faults SQLite actually meets, so the
tests that need them mount a small tmpfs rather than imitate the errors. Mounting needs
root (CAP_SYS_ADMIN); elsewhere these tests are skipped, and say so. Tests run as root,
whom `chmod 000` does not stop; `bound_by_modes` runs a command without the capabilities
that let root past file modes, so a directory it may not read is refused for real.
"""

from __future__ import annotations

import errno
import os
import shutil
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


def bound_by_modes() -> list[str]:
    """The command prefix that makes file modes bind (skip where that cannot be done).

    As root: `setpriv` drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding
    set, so the command, still uid 0, reads a mode-000 directory as any user would
    (Permission denied). As another user, modes bind already.
    """
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to drop root's file-mode override")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]


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
