"""What a maintainer command prints when it cannot run: one line, never a traceback.

The `tpquiz` subcommands that open the database (`forget-user`, `questions report`,
`reports`, ...) fail in the same few ways: a setting is wrong (exit 2), the database
cannot serve, the bank does not load, or an output file cannot be written (exit 1).
Each command wraps its work in `guarded` so those cases read the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from bot.config import ConfigError
from bot.quiz.loader import BankError
from bot.storage import problems


def guarded(command: str, err: TextIO, work: Callable[[], int]) -> int:
    """`work()`'s exit status, or 2/1 with one line on `err` for the known failures."""
    try:
        return work()
    except ConfigError as exc:
        err.write(f"tpquiz {command}: {exc}\n")
        return 2
    except problems.DatabaseUnusable as exc:
        err.write(f"tpquiz {command}: {exc}\n")
        return 1
    except BankError as exc:
        err.write(f"tpquiz {command}: the question bank is invalid:\n{exc}\n")
        return 1
    except OSError as exc:  # an -o file could not be written
        err.write(f"tpquiz {command}: {exc.filename or ''}: {exc.strerror or exc}\n")
        return 1
