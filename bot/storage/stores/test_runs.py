"""Personal runs, the test and review rounds: the plan chosen at start, the score at the end.

One store for both backends over `Executor` (bot/storage/sql.py), with the same columns
and the same JSON text in them (TestRunsContract), so a run copied from one backend to
the other reads back equal. A review round (issue #12) is a run of kind 'review'; its
computed questions keep the numbers drawn at its start in `params` (one JSON text or None
per position). A member has at most one open review round per server: the unique index
of migration 0011 says so, and `start_review` is the insert-or-get that relies on it
(issue 31).
"""

from __future__ import annotations

import json

from bot.storage.records import OPEN_REVIEW, TEST_RUN_COLUMNS, TestRun, test_run_of
from bot.storage.sql import Executor, Query

__all__ = ["TestRunStore"]

_INSERT = (
    "INSERT INTO test_runs (guild_id, user_id, question_ids, orders, started_at, kind, params)"
    " VALUES (:guild, :user, :questions, :orders, :now, {kind}, :params)"
)
_CREATE = Query(_INSERT.format(kind=":kind") + f" RETURNING {TEST_RUN_COLUMNS}")
_START_REVIEW = Query(
    _INSERT.format(kind="'review'")
    + f" ON CONFLICT {OPEN_REVIEW} DO NOTHING RETURNING {TEST_RUN_COLUMNS}"
)
_GET = Query(f"SELECT {TEST_RUN_COLUMNS} FROM test_runs WHERE id = :run")
_OPEN_REVIEW = Query(
    f"SELECT {TEST_RUN_COLUMNS} FROM test_runs WHERE guild_id = :guild AND user_id = :user"
    " AND kind = 'review' AND finished_at IS NULL"
)
_ANSWERS = Query("SELECT question_id, choice_index FROM answers WHERE test_run_id = :run")
_FINISH = Query(
    "UPDATE test_runs SET finished_at = :now, score = :score"
    " WHERE id = :run AND finished_at IS NULL"
)


class TestRunStore:
    __test__ = False  # not a pytest test class

    def __init__(self, db: Executor) -> None:
        self.db = db

    async def create(
        self,
        *,
        guild_id: int,
        user_id: int,
        question_ids: tuple[str, ...],
        orders: tuple[tuple[int, ...], ...],
        now_ms: int,
        kind: str = "test",
        params: tuple[str | None, ...] | None = None,
    ) -> TestRun:
        async with self.db.transaction() as tx:
            row = await tx.fetch_one(
                _CREATE,
                guild=guild_id,
                user=user_id,
                questions=json.dumps(question_ids),
                orders=json.dumps(orders),
                now=now_ms,
                kind=kind,
                params=None if params is None else json.dumps(params),
            )
        assert row is not None
        return test_run_of(row)

    async def start_review(
        self,
        *,
        guild_id: int,
        user_id: int,
        question_ids: tuple[str, ...],
        orders: tuple[tuple[int, ...], ...],
        now_ms: int,
        params: tuple[str | None, ...],
    ) -> tuple[TestRun, bool]:
        """Open a review round with this plan; True when it was stored.

        When the member already has an open round in the server (another `/tpquiz
        review` won the race), nothing is written and that round comes back with False.
        The insert decides, against the unique index, inside one write transaction. On
        SQLite no other writer runs meanwhile, so the read that follows finds the round
        that won. On PostgreSQL the insert waits for a concurrent one of the same member
        to commit, then does nothing; the read (a statement of its own, so it sees that
        commit) returns the winner. Should that round be finished in between (its last
        answer), the insert is tried again.
        """
        plan = {
            "questions": json.dumps(question_ids),
            "orders": json.dumps(orders),
            "now": now_ms,
            "params": json.dumps(params),
        }
        async with self.db.transaction() as tx:
            for _ in range(3):
                row = await tx.fetch_one(_START_REVIEW, guild=guild_id, user=user_id, **plan)
                if row is not None:
                    return test_run_of(row), True
                row = await tx.fetch_one(_OPEN_REVIEW, guild=guild_id, user=user_id)
                if row is not None:
                    return test_run_of(row), False
        raise RuntimeError(f"no open review round of member {user_id} could be stored or read")

    async def get(self, run_id: int) -> TestRun | None:
        row = await self.db.fetch_one(_GET, run=run_id)
        return None if row is None else test_run_of(row)

    async def open_review(self, guild_id: int, user_id: int) -> TestRun | None:
        """The member's open review round in the server, if any (there is at most one)."""
        row = await self.db.fetch_one(_OPEN_REVIEW, guild=guild_id, user=user_id)
        return None if row is None else test_run_of(row)

    async def answers(self, run_id: int) -> dict[str, int]:
        """question id -> chosen choice index, for the questions answered so far."""
        rows = await self.db.fetch(_ANSWERS, run=run_id)
        return {qid: int(choice) for qid, choice in rows}

    async def finish(self, run_id: int, *, score: int, now_ms: int) -> None:
        await self.db.execute(_FINISH, now=now_ms, score=score, run=run_id)
