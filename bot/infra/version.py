"""Which build is running, for `tpquiz --version`, `doctor`'s first line and `run`'s log.

An operator's bug report should say which tpquiz it is about without a second round of
questions, so the version comes from the installed package's metadata (what pip
installed), not from a constant here that a release could forget to bump.
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

__all__ = ["tpquiz_version", "build_line"]


def _installed(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def tpquiz_version() -> str:
    """The installed tpquiz's version, e.g. "0.1.0". A source tree run without
    `pip install -e .` has no metadata; it says so rather than guessing."""
    return _installed("tpquiz") or "unknown (not installed: pip install -e .)"


def build_line() -> str:
    """`tpquiz 0.1.0 (Python 3.12.3, discord.py 2.7.1)`: the versions a bug depends on most."""
    discord = _installed("discord.py") or "unknown"
    return f"tpquiz {tpquiz_version()} (Python {platform.python_version()}, discord.py {discord})"
