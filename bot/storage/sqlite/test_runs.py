"""Personal runs, the test and review rounds: the plan chosen at start, the score at the end.

A review round (issue #12) is a run of kind 'review'; its computed questions keep the
numbers drawn at its start in `params` (one JSON text or None per position). A member
has at most one open review round per server: the unique index of migration 0011 says
so, and `start_review` is the insert-or-get that relies on it (issue 31).
"""

from __future__ import annotations

import json

from bot.storage.records import OPEN_REVIEW, TEST_RUN_COLUMNS, TestRun, test_run_of
from bot.storage.sqlite.db import Database


class TestRunStore:
    def __init__(self, db: Database) -> None:
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
            cur = await conn.execute(
                "INSERT INTO test_runs (guild_id, user_id, question_ids, orders, started_at,"
                " kind, params) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    guild_id,
                    user_id,
                    json.dumps(question_ids),
                    json.dumps(orders),
                    now_ms,
                    kind,
                    None if params is None else json.dumps(params),
                ),
            )
            run_id = int(cur.lastrowid or 0)
        run = await self.get(run_id)
        assert run is not None
        return run

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
        One statement decides, against the unique index, inside one write transaction.
        """
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "INSERT INTO test_runs (guild_id, user_id, question_ids, orders, started_at,"
                " kind, params) VALUES (?, ?, ?, ?, ?, 'review', ?)"
                f" ON CONFLICT {OPEN_REVIEW} DO NOTHING",
                (
                    guild_id,
                    user_id,
                    json.dumps(question_ids),
                    json.dumps(orders),
                    now_ms,
                    json.dumps(params),
                ),
            )
            created = cur.rowcount == 1
            if created:
                run_id = int(cur.lastrowid or 0)
            else:
                async with conn.execute(
                    "SELECT id FROM test_runs WHERE guild_id = ? AND user_id = ?"
                    " AND kind = 'review' AND finished_at IS NULL",
                    (guild_id, user_id),
                ) as found:
                    row = await found.fetchone()
                assert row is not None  # the conflict was with it, in this transaction
                run_id = int(row[0])
        run = await self.get(run_id)
        assert run is not None
        return run, created

    async def get(self, run_id: int) -> TestRun | None:
        async with self.db.conn.execute(
            f"SELECT {TEST_RUN_COLUMNS} FROM test_runs WHERE id = ?", (run_id,)
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else test_run_of(row)

    async def open_review(self, guild_id: int, user_id: int) -> TestRun | None:
        """The member's open review round in the server, if any (there is at most one)."""
        async with self.db.conn.execute(
            "SELECT id FROM test_runs WHERE guild_id = ? AND user_id = ? AND kind = 'review'"
            " AND finished_at IS NULL",
            (guild_id, user_id),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else await self.get(int(row[0]))

    async def answers(self, run_id: int) -> dict[str, int]:
        """question id -> chosen choice index, for the questions answered so far."""
        async with self.db.conn.execute(
            "SELECT question_id, choice_index FROM answers WHERE test_run_id = ?", (run_id,)
        ) as cur:
            return {qid: int(choice) for qid, choice in await cur.fetchall()}

    async def finish(self, run_id: int, *, score: int, now_ms: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE test_runs SET finished_at = ?, score = ? WHERE id = ? AND finished_at IS NULL",
                (now_ms, score, run_id),
            )
