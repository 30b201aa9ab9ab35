"""The exceptions a store raises while the bot runs, whichever database is behind it.

Why a neutral module: the services and the UI catch these (a click that was not saved
is answered "not saved", a click on a deleted post is refused) without knowing the
backend, and both backends raise the same ones. The refusals at open, with their
one-sentence reasons, are `bot.storage.problems.DatabaseUnusable`: that exception
travels with the sentences it carries.
"""

from __future__ import annotations

__all__ = ["PostGone", "WriteFailed"]


class WriteFailed(Exception):
    """A write transaction did not commit and was rolled back: nothing of it was saved.

    `reason` is one line for the log, e.g. "database or disk is full (SQLITE_FULL)".
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PostGone(LookupError):
    """The click's post is no longer in the database (its server's data was deleted)."""
