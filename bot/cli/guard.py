"""What a maintainer command prints when it cannot run: one line, never a traceback.

The `tpquiz` subcommands that open the database (`forget-user`, `questions report`,
`reports`, ...) fail in the same few ways: a setting is wrong (exit 2), the database
cannot serve, the bank does not load, or an output file cannot be written (exit 1).
Each command wraps its work in `guarded` so those cases read the same everywhere.

A closed standard output (`tpquiz questions report | head`) is none of those: like
`grep` or `git`, the command then ends quietly (`closed_pipe`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TextIO

from bot.bank.loader import BankError
from bot.infra.config import ConfigError
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
    except BrokenPipeError:  # stdout's reader went away: not a failure to report here
        raise
    except OSError as exc:  # an -o file could not be written
        err.write(f"tpquiz {command}: {exc.filename or ''}: {exc.strerror or exc}\n")
        return 1


#: What a shell reports for `grep` or `git` ended by SIGPIPE: 128 + 13.
CLOSED_PIPE_STATUS = 128 + 13


def closed_pipe() -> int:
    """The exit status after stdout's reader closed the pipe early, nothing printed.

    Python's documented way (library/signal.html, "Note on SIGPIPE"): catch
    BrokenPipeError at the entry point and point stdout at /dev/null, so that the
    interpreter's own flush at exit does not fail a second time with a traceback. Not
    SIGPIPE's default action, which the same note advises against (it would also kill the
    bot when a socket closes). The status is the one a shell shows for `grep` or `git`
    ended by SIGPIPE, so `set -o pipefail` scripts read it the same way.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return CLOSED_PIPE_STATUS
