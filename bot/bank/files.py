"""Finding and reading question files, refusing what is not an ordinary file.

A path in `TPQUIZ_QUESTIONS` or on the `tpquiz validate` command line may name anything:
a FIFO (opening it blocks until a writer comes), `/dev/zero` (reading it never ends), a
directory that cannot be listed. Each becomes one `Problem` sentence here; a file is
opened without blocking, checked to be a regular file of bounded size on the open
descriptor, and only then read.
"""

from __future__ import annotations

import importlib.resources
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from bot.bank.problems import Problem, display_path

__all__ = [
    "MAX_FILE_BYTES",
    "cannot_list",
    "bundled_dir",
    "bundled_question_files",
    "expand_paths",
    "find_files",
    "read_question_file",
]

#: A question file of a few thousand questions is a few MB; far more is a mistake.
MAX_FILE_BYTES = 16 * 1024 * 1024

_SUFFIXES = (".yaml", ".yml")


def bundled_dir() -> Path:
    """The installed `questions` directory.

    `importlib.resources` finds it when the `questions` package is installed (wheel or
    editable); otherwise it sits next to the `bot` package in a source checkout.
    """
    try:
        root = importlib.resources.files("questions")
    except ModuleNotFoundError:
        root = None
    if isinstance(root, Path) and root.is_dir():
        return root
    # bot/bank/files.py -> the checkout holding bot/ and questions/
    return Path(__file__).resolve().parents[2] / "questions"


def bundled_question_files() -> list[Path]:
    """The bank shipped with the bot: every `questions/*.yaml`, sorted by name."""
    directory = bundled_dir()
    if not directory.is_dir():
        return []
    return sorted(directory.glob("*.yaml"))


def find_files(paths: Sequence[str | Path]) -> tuple[list[Path], list[Problem]]:
    """Files as given, directories replaced by their `*.yaml`/`*.yml` files (sorted).

    A directory that cannot be listed is a problem, not an exception.
    """
    files: list[Path] = []
    problems: list[Problem] = []
    for raw in paths:
        path = Path(raw)
        try:
            is_dir = path.is_dir()
            if is_dir:
                found = [p for p in path.iterdir() if p.suffix in _SUFFIXES and p.is_file()]
        except OSError as exc:
            problems.append(cannot_list(path, exc))
            continue
        if is_dir:
            files.extend(sorted(found))
        else:
            files.append(path)
    return files, problems


def cannot_list(directory: Path, exc: OSError) -> Problem:
    """The problem for a directory of question (or template) files that cannot be listed."""
    message = f"cannot list the directory ({exc.strerror or exc}); check its permissions"
    return Problem(display_path(directory), 1, "-", "-", message)


def expand_paths(paths: Sequence[str | Path]) -> list[Path]:
    """Files as given; directories replaced by their `*.yaml` and `*.yml` files, sorted."""
    return find_files(paths)[0]


def read_question_file(path: Path) -> str | Problem:
    """The UTF-8 text of a regular question file, or the one problem that stops reading it."""
    shown = display_path(path)

    def problem(message: str) -> Problem:
        return Problem(shown, 1, "-", "-", message)

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return problem("file not found; check the path")
    except OSError as exc:
        return problem(f"cannot read file ({exc.strerror}); check the path and permissions")
    try:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)
        if kind is not None:
            return problem(
                f"is {kind}, not a question file; name a regular *.yaml file or a directory"
            )
        if info.st_size > MAX_FILE_BYTES:
            return problem(
                f"is {info.st_size / 2**20:.0f} MiB, over the {MAX_FILE_BYTES // 2**20} MiB "
                "limit for a question file; split it into several files"
            )
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return problem(f"cannot read file ({exc.strerror}); check the path and permissions")
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:  # grew while we read it
        return problem(f"is over the {MAX_FILE_BYTES // 2**20} MiB limit for a question file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return problem(f"file is not valid UTF-8 ({exc.reason}); save it as UTF-8")


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"
