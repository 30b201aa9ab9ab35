"""The exit statuses of `tpquiz run`, and the error that carries one out of start-up.

systemd restarts the bot on 1 and not on 2 (`deploy/tpquiz.service`,
RestartPreventExitStatus=2): a wrong setting does not fix itself, a network that is not
up yet may. 0 is stopped by SIGTERM/SIGINT; 1 is Discord unreachable after the retries,
or lost during login; 2 is a wrong setting (token, URL, metrics address, a guild list, ...).

They live here, below everything else, because more than one layer refuses to start:
Discord's reachability (bot/runtime/startup.py) and the metrics port (bot/ops/metrics.py)
both raise `StartupError`, and the command line turns it into the exit status.
"""

from __future__ import annotations

EXIT_UNREACHABLE = 1
EXIT_SETTINGS = 2


class StartupError(Exception):
    """The bot cannot start; the message is the one line `tpquiz run` prints."""

    def __init__(self, message: str, exit_status: int = EXIT_UNREACHABLE) -> None:
        super().__init__(message)
        self.exit_status = exit_status
