"""One line when a repeated operation starts failing, and one when it works again.

Why: the bot retries some writes on a timer (the heartbeat every 15 s, reminder claims
every 30 s, the item-statistics refresh every 5 minutes, the shard locks while
PostgreSQL is away). When the disk is full or the database is down, each try fails the
same way; a traceback per try would bury the one line that says what is wrong, and the
line saying it is over would never come. So each such loop keeps a `FaultLog` and logs
only the changes: failing (or failing for another reason), then working again.
"""

from __future__ import annotations

import logging

__all__ = ["FaultLog"]


class FaultLog:
    """The state of one repeated operation, and its two kinds of log line.

    `failing` is a %-format whose last argument is the reason, after `args` (a shard
    range, say); `recovered` is logged at INFO once it works again, with `args` (or
    `recovered_args` when its line names something the reason already carries).
    """

    def __init__(
        self,
        logger: logging.Logger,
        failing: str,
        recovered: str,
        *args: object,
        recovered_args: tuple[object, ...] | None = None,
    ) -> None:
        self.logger = logger
        self.failing = failing
        self.recovered = recovered
        self.args = args
        self.recovered_args = args if recovered_args is None else recovered_args
        #: Why it fails now; None while it works.
        self.reason: str | None = None

    def failed(self, reason: str | BaseException) -> bool:
        """Note a failure; log a warning if it is the first, or has a new reason. True then."""
        text = reason if isinstance(reason, str) else str(reason) or type(reason).__name__
        if text == self.reason:
            return False
        self.reason = text
        self.logger.warning(self.failing, *self.args, text)
        return True

    def worked(self) -> bool:
        """Note a success; log that it works again if it was failing. True then."""
        if self.reason is None:
            return False
        self.reason = None
        self.logger.info(self.recovered, *self.recovered_args)
        return True
