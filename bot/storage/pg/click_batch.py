"""Several members' clicks in one PostgreSQL transaction: five round trips for the batch.

Why (issue 30): one transaction per click (bot/storage/pg/clicks.py) costs five round
trips a click (BEGIN, the locks, the read, `tpquiz_record_click`, COMMIT), each parsed,
sent and awaited by asyncpg on the bot's main thread and woken for on the server; and
every click of a server updates the same `score_counts` rows (new members all start at
the same score) and its post's row, holding those row locks until its COMMIT comes back.
So clicks of one server queued on each other's COMMIT, and 32 clicks in flight were no
faster than 8. Here the clicks waiting together (bot/storage/pg/group_commit.py) share
the five trips and one COMMIT, and the hot rows are locked once per batch.

The batch is the single click's transaction, row for row, in one statement each:

1. the locks, in the single click's order: every post row of the batch (`FOR NO KEY
   UPDATE`, by id), then every member's advisory lock (by key). The members of a batch
   are distinct (the queue keeps a member's second click for a later batch: it must
   read the first one's totals), so one member's lock is taken once;
2. the read: the single click's `BEFORE_POST` / `BEFORE_TEST` statement for each click,
   side by side (`unnest ... CROSS JOIN LATERAL`), after the locks as before;
3. the decisions, in Python, one per click (`decide`), as on one click;
4. the writes: `tpquiz_record_click` once per recorded click, in the batch's order, in
   one statement (one row of arrays per argument); each call's rank counts the calls
   before it, as each click of an SQLite batch sees the clicks before it;
5. the ranks of duplicates (they write nothing), one statement, then COMMIT.

What one click's failure does: a post gone, or a decision that raises, is that click's
own exception and the others go on. A unique violation (a writer that takes none of
these locks raced past the read), any other error of the statements, or a deadlock with
another process's batch (their clicks of the same server touch `score_counts` rows in
click order) rolls the whole batch back, and the queue runs its clicks again one by one
on the single-click path, which retries a unique violation once. A failure of the server
or the connection fails the whole batch with `WriteFailed`: nothing of it was saved.
"""

from __future__ import annotations

import re
from typing import TypeAlias

import asyncpg

from bot.quiz.click import ClickDecision, reply_of
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
from bot.storage.pg.clicks import member_lock_key, record_values
from bot.storage.pg.db import PgDatabase

__all__ = ["Outcome", "record_batch"]

#: A click's outcome in a batch: its answer, None (the post had closed, or the run had
#: finished), or the exception that click alone raised (its post is gone, a bug).
Outcome: TypeAlias = AnswerResult | None | Exception

#: The read's named parameters (`before_values`) and their PostgreSQL types, in order.
_READ_ARGS = (
    ("guild", "bigint"),
    ("user", "bigint"),
    ("question", "text"),
    ("post", "bigint"),
    ("run", "bigint"),
    ("week", "text"),
    ("week_start", "bigint"),
    ("month", "text"),
    ("month_start", "bigint"),
)


def _batched_read(read: str) -> str:
    """The single click's read for every row of `unnest`ed arguments, in their order."""
    body = re.sub(r"(?<![:\w]):([a-z_]+)", r"k.p_\1", read)
    arrays = ", ".join(f"${i}::{kind}[]" for i, (_, kind) in enumerate(_READ_ARGS, 1))
    names = ", ".join(f"p_{name}" for name, _ in _READ_ARGS)
    return (
        f"SELECT r.* FROM unnest({arrays}) WITH ORDINALITY AS k({names}, n)"
        f" CROSS JOIN LATERAL ({body}) AS r ORDER BY k.n"
    )


_READ_POSTS = _batched_read(BEFORE_POST)
_READ_TESTS = _batched_read(BEFORE_TEST)

#: The single click's locks (pg/clicks.py `_LOCK_POST_AND_MEMBER`) for a whole batch:
#: the posts by id, then the members by key (both arrays come sorted). The aggregate
#: makes every post lock come before the first advisory lock.
_LOCK_BATCH = (
    "WITH p AS (SELECT id FROM posts WHERE id = ANY($1::bigint[]) ORDER BY id"
    " FOR NO KEY UPDATE)"
    " SELECT pg_advisory_xact_lock(key) FROM (SELECT count(*) FROM p) AS locked,"
    " unnest($2::bigint[]) AS key"
)

#: `tpquiz_record_click`'s argument types (migration 0010), in order.
_RECORD_TYPES = (
    *("bigint", "bigint", "text", "text", "bigint", "bigint"),
    *("integer", "integer", "integer", "integer", "bigint"),
    *("smallint", "integer", "double precision", "double precision"),
    *("bigint", "bigint", "integer", "integer"),
    *("text", "integer", "integer", "integer", "integer", "integer", "integer", "integer"),
    *("bigint", "integer", "integer", "integer", "integer", "integer"),
    *("bigint", "integer", "integer", "integer", "integer", "integer"),
    *("text", "integer", "integer"),
)
_RECORD_BATCH = (
    "SELECT u.n, tpquiz_record_click("
    + ", ".join(f"u.c{i}" for i in range(1, len(_RECORD_TYPES) + 1))
    + ") FROM unnest("
    + ", ".join(f"${i}::{kind}[]" for i, kind in enumerate(_RECORD_TYPES, 1))
    + ") WITH ORDINALITY AS u("
    + ", ".join(f"c{i}" for i in range(1, len(_RECORD_TYPES) + 1))
    + ", n)"
)

#: The single click's `_rank` for several (server, points, correct) at once.
_RANKS = (
    "SELECT d.n, 1 + COALESCE((SELECT SUM(members) FROM score_counts"
    " WHERE guild_id = d.g AND period = 'all' AND starts_at = 0"
    " AND (points > d.p OR (points = d.p AND correct > d.c))), 0)"
    " FROM unnest($1::bigint[], $2::integer[], $3::integer[]) WITH ORDINALITY AS d(g, p, c, n)"
)


async def record_batch(db: PgDatabase, clicks: list[Click]) -> list[Outcome]:
    """Every click of `clicks` (distinct members) in one transaction; their outcomes in
    order. Raises what rolls the whole batch back (see the module docstring)."""
    keys = [member_lock_key(c.guild_id, c.user_id) for c in clicks]
    if len(set(keys)) != len(keys):
        raise ValueError("record_batch: one member twice in a batch")
    posts = sorted({c.post_id for c in clicks if c.post_id is not None})
    outcomes: list[Outcome] = [None] * len(clicks)
    async with db.transaction() as conn:
        await conn.execute(_LOCK_BATCH, posts, sorted(keys))
        befores = await _read(conn, clicks)
        recorded: list[tuple[int, tuple[object, ...]]] = []
        ranked: list[tuple[int, MemberScore]] = []
        decisions: list[ClickDecision | None] = []
        for i, (click, (buckets, row)) in enumerate(zip(clicks, befores, strict=True)):
            try:
                before = before_of(click, row)
                decision = decide(click, before)
            except Exception as exc:  # this click's own: its post is gone, a bug
                outcomes[i] = exc
                decisions.append(None)
                continue
            decisions.append(decision)
            if decision.outcome == "closed":
                continue
            assert decision.score is not None
            if decision.outcome == "recorded":
                recorded.append((i, record_values(click, buckets, before, decision)))
            else:
                ranked.append((i, decision.score))
        ranks: dict[int, int] = {}
        if recorded:
            columns = [list(column) for column in zip(*(v for _, v in recorded), strict=True)]
            for n, rank in await conn.fetch(_RECORD_BATCH, *columns):
                ranks[recorded[n - 1][0]] = int(rank)
        if ranked:
            rows = await conn.fetch(
                _RANKS,
                [clicks[i].guild_id for i, _ in ranked],
                [score.points for _, score in ranked],
                [score.correct for _, score in ranked],
            )
            for n, rank in rows:
                ranks[ranked[n - 1][0]] = int(rank)
    for i, rank in ranks.items():
        decided = decisions[i]
        assert decided is not None
        click = clicks[i]
        outcomes[i] = reply_of(
            decided, question_id=click.question.id, choice_index=click.choice_index, rank=rank
        )
    return outcomes


async def _read(
    conn: asyncpg.Connection, clicks: list[Click]
) -> list[tuple[Buckets, tuple[object, ...]]]:
    """Each click's period buckets and its read's row, in the batch's order: one
    statement for the posts' clicks and one for the test runs' (when there are any)."""
    buckets = [period_buckets(c.now_ms) for c in clicks]
    rows: list[tuple[object, ...] | None] = [None] * len(clicks)
    for read, kind in ((_READ_POSTS, True), (_READ_TESTS, False)):
        picked = [i for i, c in enumerate(clicks) if (c.post_id is not None) == kind]
        if not picked:
            continue
        values = [before_values(clicks[i], buckets[i]) for i in picked]
        arrays = [[v[name] for v in values] for name, _ in _READ_ARGS]
        for i, record in zip(picked, await conn.fetch(read, *arrays), strict=True):
            rows[i] = tuple(record)
    read_rows = [r for r in rows if r is not None]
    assert len(read_rows) == len(clicks)  # one row per click: FROM (SELECT 1) LEFT JOIN ...
    return list(zip(buckets, read_rows, strict=True))
