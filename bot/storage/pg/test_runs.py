"""Test and review runs on PostgreSQL: the twin of bot/storage/sqlite/test_runs.py.

Same columns and the same JSON text in them as on SQLite (TestRunsContract), so a run
copied from one backend to the other reads back equal.
"""

from __future__ import annotations

import json

from bot.storage.pg.db import PgDatabase
from bot.storage.records import OPEN_REVIEW, TEST_RUN_COLUMNS, TestRun, test_run_of


class PgTestRunStore:
    def __init__(self, db: PgDatabase) -> None:
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
        async with self.db.transaction() as conn:
            row = await conn.fetchrow(
                "INSERT INTO test_runs (guild_id, user_id, question_ids, orders, started_at,"
                f" kind, params) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {TEST_RUN_COLUMNS}",
                guild_id,
                user_id,
                json.dumps(question_ids),
                json.dumps(orders),
                now_ms,
                kind,
                None if params is None else json.dumps(params),
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
        """Open a review round with this plan; True when it was stored (TestRunsContract).

        The insert waits for a concurrent one of the same member to commit, then does
        nothing; the read that follows (a statement of its own, so it sees that commit)
        returns the round that won. Should that round be finished in between (its last
        answer), the insert is tried again.
        """
        plan = (json.dumps(question_ids), json.dumps(orders), now_ms, json.dumps(params))
        async with self.db.transaction() as conn:
            for _ in range(3):
                row = await conn.fetchrow(
                    "INSERT INTO test_runs (guild_id, user_id, question_ids, orders,"
                    " started_at, kind, params) VALUES ($1, $2, $3, $4, $5, 'review', $6)"
                    f" ON CONFLICT {OPEN_REVIEW} DO NOTHING RETURNING {TEST_RUN_COLUMNS}",
                    guild_id,
                    user_id,
                    *plan,
                )
                if row is not None:
                    return test_run_of(row), True
                row = await conn.fetchrow(
                    f"SELECT {TEST_RUN_COLUMNS} FROM test_runs WHERE guild_id = $1 AND user_id = $2"
                    " AND kind = 'review' AND finished_at IS NULL",
                    guild_id,
                    user_id,
                )
                if row is not None:
                    return test_run_of(row), False
        raise RuntimeError(f"no open review round of member {user_id} could be stored or read")

    async def get(self, run_id: int) -> TestRun | None:
        row = await self.db.fetchrow(
            f"SELECT {TEST_RUN_COLUMNS} FROM test_runs WHERE id = $1", run_id
        )
        return None if row is None else test_run_of(row)

    async def open_review(self, guild_id: int, user_id: int) -> TestRun | None:
        """The member's open review round in the server, if any (there is at most one)."""
        row = await self.db.fetchrow(
            f"SELECT {TEST_RUN_COLUMNS} FROM test_runs WHERE guild_id = $1 AND user_id = $2"
            " AND kind = 'review' AND finished_at IS NULL",
            guild_id,
            user_id,
        )
        return None if row is None else test_run_of(row)

    async def answers(self, run_id: int) -> dict[str, int]:
        """question id -> chosen choice index, for the questions answered so far."""
        rows = await self.db.fetch(
            "SELECT question_id, choice_index FROM answers WHERE test_run_id = $1", run_id
        )
        return {qid: int(choice) for qid, choice in rows}

    async def finish(self, run_id: int, *, score: int, now_ms: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE test_runs SET finished_at = $1, score = $2"
                " WHERE id = $3 AND finished_at IS NULL",
                now_ms,
                score,
                run_id,
            )
