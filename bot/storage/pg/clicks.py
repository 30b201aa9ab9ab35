"""One click on PostgreSQL: the twin of bot/storage/sqlite/clicks.py, for several processes.

The click is the SQLite one, step for step: one statement reads the `ClickBefore` (the
same statement and row mapping: bot/storage/click_read.py), `bot.quiz.click.decide_click` decides,
and the decision is written (answer, card, members, score_counts, member_periods, the
post's count, the daily streak), all in one transaction on a pooled connection. What
differs is who else may be writing: on SQLite the bot is the only writer and one write
transaction runs at a time; here any number of processes click at once.

Why locks, and which (READ COMMITTED, no SERIALIZABLE retries):

- The unique indexes (one answer per member per post or test question, one first
  answer per member per question) keep "one answer" on their own, but not exact
  totals: two clicks by one member on two posts would both read the old totals and one
  write would be lost. `SELECT ... FOR UPDATE` on the member's row cannot lock a row
  that does not exist yet (a member's first clicks), so each click takes a
  transaction-level advisory lock on its (server, member) first
  (`pg_advisory_xact_lock`, released by COMMIT or ROLLBACK, across processes).
- A click on a post also locks the post's row (`FOR NO KEY UPDATE`) before reading, the
  lock the closer's `UPDATE posts SET closed_at` takes: a click in flight finishes
  before the close counts the choices, and a click arriving after the close waits for
  it and then reads the post closed. Every click updates the post's answer count
  anyway, so this only moves that row lock to the start.
- The locks are taken in one order (post, then member) and then the read runs as its
  own statement: at READ COMMITTED it sees everything the previous holder committed.
  `score_counts` rows are touched in increasing (period, points, correct) order by
  every click (totals never go down), so clicks of different members cannot deadlock.
- Should something else still insert a conflicting answer between the read and the
  write (a writer that does not take these locks), the unique violation rolls the
  click back and it is run once more: its new read sees the winner, and the click is
  answered as the duplicate it is, or scores as the non-first answer it now is.

This is a lone click's transaction. Clicks in flight together share one
(bot/storage/pg/group_commit.py, bot/storage/pg/click_batch.py: the same locks, read and
writes for a whole batch, in one statement each), and come back here one by one when
their batch was rolled back.
"""

from __future__ import annotations

import hashlib

import asyncpg

from bot.quiz.click import ClickBefore, ClickDecision, Totals, reply_of
from bot.quiz.scoring import AnswerResult, MemberScore
from bot.storage.click_read import (
    BEFORE_POST,
    BEFORE_TEST,
    Buckets,
    Click,
    before_of,
    before_values,
    decide,
)
from bot.storage.periods import period_buckets
from bot.storage.pg.db import MIGRATION_LOCK, PgDatabase
from bot.storage.records import card_values
from bot.storage.sql import Dialect, Query

__all__ = ["member_lock_key", "record_click", "record_values"]

#: The click's read in asyncpg's numbered form, once at import (bot/storage/sql.py).
_READ_POST = Query(BEFORE_POST).compile(Dialect.POSTGRESQL)
_READ_TEST = Query(BEFORE_TEST).compile(Dialect.POSTGRESQL)

#: Lock the post row, then the member (see the module docstring for the order). The
#: aggregate makes the post's lock come first: it is complete before the outer row.
_LOCK_POST_AND_MEMBER = (
    "WITH p AS (SELECT id FROM posts WHERE id = $1 FOR NO KEY UPDATE)"
    " SELECT pg_advisory_xact_lock($2::bigint) FROM (SELECT count(*) FROM p) AS locked"
)
_LOCK_MEMBER = "SELECT pg_advisory_xact_lock($1::bigint)"


def member_lock_key(guild_id: int, user_id: int) -> int:
    """The advisory lock key of one member in one server, the same in every process.

    64 bits of a hash: two members sharing a key only wait for each other. One-key
    advisory locks are not the two-key space of the shard locks (pg/shard_locks.py);
    the only other one-key lock, the migration lock's key, is never a member's key.
    """
    digest = hashlib.blake2b(f"{guild_id}:{user_id}".encode(), digest_size=8).digest()
    key = int.from_bytes(digest, "big", signed=True)
    return key ^ 1 if key == MIGRATION_LOCK else key


async def record_click(db: PgDatabase, click: Click) -> AnswerResult | None:
    """The whole click in one transaction; None when its post had closed (or its run
    had finished: bot/storage/click_read.py `BEFORE_TEST`).

    Raises PostGone when the post no longer exists (nothing is written), and WriteFailed
    when the server or the connection failed (nothing was saved)."""
    try:
        return await _attempt(db, click)
    except asyncpg.UniqueViolationError:
        # Another writer won between our read and our write: read again (see above).
        return await _attempt(db, click)


async def _attempt(db: PgDatabase, click: Click) -> AnswerResult | None:
    buckets = period_buckets(click.now_ms)
    async with db.transaction() as conn:
        key = member_lock_key(click.guild_id, click.user_id)
        if click.post_id is not None:
            await conn.execute(_LOCK_POST_AND_MEMBER, click.post_id, key)
        else:
            await conn.execute(_LOCK_MEMBER, key)
        before = await read_before(conn, click, buckets)
        decision = decide(click, before)
        if decision.outcome == "closed":
            return None
        assert decision.score is not None
        if decision.outcome == "recorded":
            rank = await apply(conn, click, buckets, before, decision)
        else:
            rank = await _rank(conn, click.guild_id, decision.score)
        return reply_of(
            decision, question_id=click.question.id, choice_index=click.choice_index, rank=rank
        )


async def read_before(conn: asyncpg.Connection, click: Click, buckets: Buckets) -> ClickBefore:
    """What the rules need about `click`, in one statement (after the click's locks)."""
    values = before_values(click, buckets)
    read = _READ_POST if click.post_id is not None else _READ_TEST
    record = await conn.fetchrow(read.sql, *read.args(values))
    assert record is not None  # FROM (SELECT 1): always one row
    return before_of(click, tuple(record))


#: One trip for every write of a recorded click, and its rank (migration 0010).
_RECORD = "SELECT tpquiz_record_click(" + ", ".join(f"${n}" for n in range(1, 43)) + ")"


async def apply(
    conn: asyncpg.Connection,
    click: Click,
    buckets: Buckets,
    before: ClickBefore,
    decision: ClickDecision,
) -> int:
    """Write a "recorded" decision and return the member's rank after it, in one
    statement: `tpquiz_record_click` (bot/storage/pg/migrations/0010_click_writes.sql)
    runs the writes the SQLite path runs (bot/storage/sqlite/clicks.py), in the same order."""
    rank = await conn.fetchval(_RECORD, *record_values(click, buckets, before, decision))
    return int(rank)


def record_values(
    click: Click, buckets: Buckets, before: ClickBefore, decision: ClickDecision
) -> tuple[object, ...]:
    """The 42 arguments of `tpquiz_record_click` for a "recorded" decision, in order
    (also one row of a batch: bot/storage/pg/click_batch.py). Every value comes from the
    decision; None is "none" (no earlier score in a period, no post, no daily streak)."""
    answer, score, card = decision.answer, decision.score, decision.card
    assert answer is not None and score is not None and card is not None
    week, month = decision.week, decision.month
    assert week is not None and month is not None
    (_, week_start), (_, month_start) = buckets
    old, old_week, old_month = before.score, before.week, before.month
    daily = decision.daily
    return (
        click.guild_id,
        click.user_id,
        click.question.id,
        click.question.topic,
        click.post_id,
        click.test_run_id,
        answer.choice_index,
        int(answer.correct),
        int(answer.first),
        answer.points,
        click.now_ms,
        *card_values(card),
        score.name,
        score.points,
        score.answered,
        score.correct,
        score.streak,
        score.best_streak,
        *_pair(old),
        week_start,
        week.points,
        week.answered,
        week.correct,
        *_pair(old_week),
        month_start,
        month.points,
        month.answered,
        month.correct,
        *_pair(old_month),
        daily.last_date if daily else None,
        daily.streak if daily else None,
        daily.best if daily else None,
    )


def _pair(totals: MemberScore | Totals | None) -> tuple[int | None, int | None]:
    """(points, correct) of an earlier score, or (None, None): "no earlier score"."""
    return (None, None) if totals is None else (totals.points, totals.correct)


async def _rank(conn: asyncpg.Connection, guild_id: int, score: MemberScore) -> int:
    """1 + members strictly ahead, summed over the server's `score_counts` pairs."""
    value = await conn.fetchval(
        "SELECT 1 + COALESCE(SUM(members), 0) FROM score_counts WHERE guild_id = $1"
        " AND period = 'all' AND starts_at = 0"
        " AND (points > $2 OR (points = $2 AND correct > $3))",
        guild_id,
        score.points,
        score.correct,
    )
    return int(value)
