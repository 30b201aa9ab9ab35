"""The queue of a group commit, the same on both backends: clicks wait, one writer batches.

Both backends write the clicks that arrive while a batch is written in the next batch
(bot/storage/sqlite/group_commit.py: one transaction on the database thread;
bot/storage/pg/group_commit.py: one transaction of five round trips). What a batch is
differs; what is around it is written once, here: a lone click goes at once (nothing
waits for company), each caller gets its result only once its batch is done, a click
whose caller gave up while queued is never written, and at shutdown `close` fails the
clicks still queued with `WriteFailed`, so their handlers can still say "not saved".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from bot.storage.errors import WriteFailed

__all__ = ["SHUTTING_DOWN", "ClickQueue"]

log = logging.getLogger(__name__)

W = TypeVar("W")
R = TypeVar("R")

#: What a click not written because the bot is stopping says (log, `WriteFailed.reason`).
SHUTTING_DOWN = "the bot is shutting down"


class ClickQueue(Generic[W, R]):
    """Queued work items (`W`) and their futures (`R`), taken in batches by one writer.

    A backend says what a batch is (`_run`) and may say which queued items go together
    (`_take`; by default the oldest `max_batch` not given up)."""

    #: The end of the shutdown warning: why the database may not have taken the clicks.
    closing_reason = "the database took no write in time"

    def __init__(self, *, max_batch: int) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self.max_batch = max_batch
        self._queue: list[tuple[W, asyncio.Future[R]]] = []
        self._writer: asyncio.Task[None] | None = None
        #: Called with each committed batch's size (metrics, benches, tests).
        self.on_batch: Callable[[int], None] | None = None
        self._closing = False

    def queued(self) -> int:
        """Clicks waiting for a batch (not counting the batch being written)."""
        return len(self._queue)

    def close(self) -> int:
        """Take no more clicks and give up those still queued; return how many.

        Called at shutdown once the grace for the handlers in flight is over: until then
        the writer keeps committing, so a click queued before the shutdown is committed,
        not dropped. Each click given up gets `WriteFailed` (nothing of it written). A
        batch already being written is not stopped: it commits or fails on its own.
        """
        self._closing = True
        given_up, self._queue = self._queue, []
        for _, future in given_up:
            if not future.done():
                future.set_exception(WriteFailed(SHUTTING_DOWN))
        if given_up:
            log.warning(
                "shutdown: %d click(s) not saved: %s; their members are told to click again",
                len(given_up),
                self.closing_reason,
            )
        return len(given_up)

    async def submit(self, work: W) -> R:
        """Write `work` in the next batch; its result once that batch is done.

        If the caller is cancelled while the work is still queued, it is not written: a
        click whose interaction expired while it waited (`bot.ui.responses.within_deadline`
        gives up on it) is not recorded, since its member never sees the result. Once in
        a batch it is written with the batch; only its result is dropped.
        """
        if self._closing:
            raise WriteFailed(SHUTTING_DOWN)
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._queue.append((work, future))
        if self._writer is None:
            self._writer = asyncio.create_task(self._drain(), name="tpquiz-group-commit")
        return await future

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch = self._take()
                if batch:
                    await self._run(batch)
        finally:
            self._writer = None

    def _take(self) -> list[tuple[W, asyncio.Future[R]]]:
        """The next batch, taken off the queue: the oldest `max_batch` clicks; those
        whose callers gave up while queued are dropped, unwritten."""
        taken = self._queue[: self.max_batch]
        del self._queue[: self.max_batch]
        return [item for item in taken if not item[1].done()]

    async def _run(self, batch: list[tuple[W, asyncio.Future[R]]]) -> None:
        """Write `batch` and settle every future of it (a result or an exception)."""
        raise NotImplementedError

    @staticmethod
    async def _written(
        batch: list[tuple[W, asyncio.Future[R]]], write: Awaitable[list[R | Exception]]
    ) -> list[R | Exception] | None:
        """The outcome of each click of `batch` once `write` is done; None when the whole
        batch failed (nothing of it saved): then every caller has the batch's exception,
        or is cancelled when the writer itself is."""
        try:
            return await write
        except Exception as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return None
        except BaseException:
            for _, future in batch:
                if not future.done():
                    future.cancel()
            raise

    @staticmethod
    def _settle(
        batch: list[tuple[W, asyncio.Future[R]]], outcomes: Sequence[R | Exception]
    ) -> None:
        """Each caller its click's outcome: a result, or the exception of that click alone."""
        for (_, future), outcome in zip(batch, outcomes, strict=True):
            if future.done():
                continue
            if isinstance(outcome, Exception):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)
