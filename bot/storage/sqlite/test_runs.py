"""Personal runs, the test and review rounds: the plan chosen at start, the score at the end.

A review round (issue #12) is a run of kind 'review'; its computed questions keep the
numbers drawn at its start in `params` (one JSON text or None per position). A member
has at most one open review round per server: the unique index of migration 0011 says
so, and `start_review` is the insert-or-get that relies on it (issue 31).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.storage.sqlite.db import Database

#: The conflict target of the unique index test_runs_one_open_review (migration 0011):
#: a member's open review round in a server. Both backends' `start_review` use it.
OPEN_REVIEW = "(guild_id, user_id) WHERE kind = 'review' AND finished_at IS NULL"


@dataclass(frozen=True, slots=True)
class TestRun:
    __test__ = False  # not a pytest test class

    id: int
    guild_id: int
    user_id: int
    question_ids: tuple[str, ...]
    orders: tuple[tuple[int, ...], ...]
    started_at: int
    finished_at: int | None
    score: int | None
    kind: str = "test"
    params: tuple[str | None, ...] = ()


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
            "SELECT id, guild_id, user_id, question_ids, orders, started_at, finished_at, score,"
            " kind, params FROM test_runs WHERE id = ?",
            (run_id,),
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return TestRun(
            id=row[0],
            guild_id=row[1],
            user_id=row[2],
            question_ids=tuple(json.loads(row[3])),
            orders=tuple(tuple(o) for o in json.loads(row[4])),
            started_at=row[5],
            finished_at=row[6],
            score=row[7],
            kind=row[8],
            params=tuple(json.loads(row[9])) if row[9] else (),
        )

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
