"""Group commit: the clicks that arrive while a transaction runs share the next one.

A click's own SQL takes tens of microseconds; what costs is around it: the hand-off to
the database thread and back, BEGIN and COMMIT, and the write lock held across them, so
one transaction per click serialises the bot on that round trip. Here clicks queue, and
one writer task takes everything queued (up to `max_batch`) into one transaction: one
trip to the database thread per batch. A lone click goes at once (nothing waits for
company); a burst forms batches by itself, as large as the previous batch was slow.

Each member is told their result only after the batch holding their answer committed.
Each click runs in its own SAVEPOINT: one that fails (a constraint, a bad row, a bug)
is rolled back alone and gets its own exception, the others commit. A storage fault
(disk full, lock timeout) fails the whole batch, and every click in it gets
`WriteFailed`: nothing of it was saved.

At shutdown the writer keeps committing while the bot waits for its handlers, then
`close` takes no more clicks: those the database has not taken by that deadline (another
process holding the write lock) are failed with `WriteFailed`, so their handlers can
still tell the member "not saved", and one warning says how many.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from typing import TypeVar

from bot.storage.click_queue import SHUTTING_DOWN, ClickQueue
from bot.storage.sqlite.db import Database, storage_fault

__all__ = ["SHUTTING_DOWN", "GroupCommit"]

log = logging.getLogger(__name__)
R = TypeVar("R")

#: Enough to share the trip among a big server's burst, small enough that a batch's
#: transaction stays a few milliseconds and other writers get the lock between batches.
MAX_BATCH = 64


class GroupCommit(ClickQueue[Callable[[sqlite3.Connection], R], R]):
    """Runs submitted `work(connection)` functions, batched into shared transactions.

    The queue, `submit` and `close` are bot/storage/click_queue.py's. A batch already on
    the database thread cannot be stopped there at shutdown (an SQLite busy wait ignores
    `interrupt()`): it commits or fails within the busy timeout."""

    closing_reason = "the database took no write in time (another process holding its lock?)"

    def __init__(self, db: Database, *, max_batch: int = MAX_BATCH) -> None:
        super().__init__(max_batch=max_batch)
        self.db = db

    async def _run(
        self, batch: list[tuple[Callable[[sqlite3.Connection], R], asyncio.Future[R]]]
    ) -> None:
        works = [work for work, _ in batch]
        write = self.db.run_transaction(lambda conn: _each(conn, works))
        outcomes = await self._written(batch, write)
        if outcomes is None:
            return  # nothing of the batch was saved
        if self.on_batch is not None:
            self.on_batch(len(batch))
        self._settle(batch, outcomes)


def _each(
    conn: sqlite3.Connection, works: list[Callable[[sqlite3.Connection], R]]
) -> list[R | Exception]:
    """Every work in its own savepoint, on the database thread, inside the batch's
    transaction; its result, or the exception that rolled it back alone, for each."""
    outcomes: list[R | Exception] = []
    for work in works:
        conn.execute("SAVEPOINT click")
        try:
            result = work(conn)
        except Exception as exc:
            if storage_fault(exc) is not None:
                raise  # the storage failed, not this click: the batch cannot commit
            conn.execute("ROLLBACK TO click")
            conn.execute("RELEASE click")
            log.debug("a click was rolled back alone: %r", exc)  # its caller reports it
            outcomes.append(exc)
        else:
            conn.execute("RELEASE click")
            outcomes.append(result)
    return outcomes
