"""Group commit on PostgreSQL: the clicks that arrive while a batch is written share the next.

The twin of bot/storage/sqlite/group_commit.py, for a different reason. SQLite has one
writer, so there a commit per click serialised the bot; PostgreSQL commits many
transactions at once, but every click of a server updates the same hot rows (its post's
answer count, the `score_counts` row of a new member's score) and held their row locks
until its COMMIT came back, so the clicks of a busy server still queued one behind the
other, each paying five round trips of its own (issue 30: 32 clicks in flight were no
faster than 8). Here one writer task takes the clicks queued (up to `MAX_BATCH`, one
click per member) into one transaction (bot/storage/pg/click_batch.py), and a lone click
goes at once on the single-click path (bot/storage/pg/clicks.py), the same five trips as
before: nothing waits for company.

Each member is told their result only after the batch holding their answer committed. A
batch rolled back by something other than the server (a unique violation raced past the
read, a deadlock with another process's batch, a bug) is run again click by click, so
each click gets its own result or its own error; a failure of the server or the
connection fails the whole batch with `WriteFailed` (nothing of it was saved).

A click whose caller gives up while it is queued (its interaction expired:
`bot.ui.responses.within_deadline`) is not written; once its batch is being written it
commits with the batch and only its result is dropped, as on SQLite. At shutdown `close`
fails the clicks still queued with `WriteFailed`, so their handlers can say "not saved".
"""

from __future__ import annotations

import asyncio
import logging

import asyncpg

from bot.quiz.scoring import AnswerResult
from bot.storage.click_queue import SHUTTING_DOWN, ClickQueue
from bot.storage.click_read import Click
from bot.storage.errors import WriteFailed
from bot.storage.pg.click_batch import Outcome, record_batch
from bot.storage.pg.clicks import member_lock_key, record_click
from bot.storage.pg.db import PgDatabase

__all__ = ["MAX_BATCH", "SHUTTING_DOWN", "PgGroupCommit"]

log = logging.getLogger(__name__)

#: As SQLite's: a big server's burst shares the trips, a batch stays a few milliseconds.
MAX_BATCH = 64

_Item = tuple[Click, "asyncio.Future[AnswerResult | None]"]


class PgGroupCommit(ClickQueue[Click, "AnswerResult | None"]):
    """Records submitted clicks, batched into shared transactions by one writer task
    (the queue, `submit` and `close`: bot/storage/click_queue.py)."""

    def __init__(self, db: PgDatabase, *, max_batch: int = MAX_BATCH) -> None:
        super().__init__(max_batch=max_batch)
        self.db = db

    def _take(self) -> list[_Item]:
        """Up to `max_batch` queued clicks of distinct members, oldest first; a member's
        later click stays queued for a later batch (it must read this one's totals).
        Clicks whose callers gave up are dropped here, unwritten."""
        batch: list[_Item] = []
        left: list[_Item] = []
        members: set[int] = set()
        for item in self._queue:
            click, future = item
            if future.done():
                continue
            key = member_lock_key(click.guild_id, click.user_id)
            if key in members or len(batch) >= self.max_batch:
                left.append(item)
            else:
                members.add(key)
                batch.append(item)
        self._queue = left
        return batch

    async def _run(self, batch: list[_Item]) -> None:
        clicks = [click for click, _ in batch]
        write = self._one_by_one(clicks) if len(clicks) == 1 else self._together(clicks)
        outcomes = await self._written(batch, write)
        if outcomes is None:
            return  # the server or the connection failed: nothing of it saved
        if self.on_batch is not None and not all(isinstance(o, Exception) for o in outcomes):
            self.on_batch(len(batch))
        self._settle(batch, outcomes)

    async def _together(self, clicks: list[Click]) -> list[Outcome]:
        try:
            return await record_batch(self.db, clicks)
        except WriteFailed as exc:
            if not isinstance(exc.__cause__, asyncpg.TransactionRollbackError):
                raise  # the server failed, not the batch: click by click would too
            log.info("a batch of %d clicks met a deadlock; recording them one by one", len(clicks))
        except Exception as exc:
            log.info(
                "a batch of %d clicks was rolled back (%r); recording them one by one",
                len(clicks),
                exc,
            )
        return await self._one_by_one(clicks)

    async def _one_by_one(self, clicks: list[Click]) -> list[Outcome]:
        """Each click in its own transaction (pg/clicks.py), each with its own outcome:
        its answer or what it raised (`WriteFailed` when the server failed)."""
        outcomes: list[Outcome] = []
        for click in clicks:
            try:
                outcomes.append(await record_click(self.db, click))
            except Exception as exc:
                outcomes.append(exc)
        return outcomes
