"""Test and review runs on PostgreSQL: the twin of bot/storage/test_runs.py.

Same columns and the same JSON text in them as on SQLite (TestRunsContract), so a run
copied from one backend to the other reads back equal.
"""

from __future__ import annotations

import json

import asyncpg

from ..test_runs import TestRun
from .db import PgDatabase

_COLUMNS = (
    "id, guild_id, user_id, question_ids, orders, started_at, finished_at, score, kind, params"
)


def _run(row: asyncpg.Record) -> TestRun:
    return TestRun(
        id=row["id"],
        guild_id=row["guild_id"],
        user_id=row["user_id"],
        question_ids=tuple(json.loads(row["question_ids"])),
        orders=tuple(tuple(o) for o in json.loads(row["orders"])),
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        score=row["score"],
        kind=row["kind"],
        params=tuple(json.loads(row["params"])) if row["params"] else (),
    )


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
                f" kind, params) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {_COLUMNS}",
                guild_id,
                user_id,
                json.dumps(question_ids),
                json.dumps(orders),
                now_ms,
                kind,
                None if params is None else json.dumps(params),
            )
        assert row is not None
        return _run(row)

    async def get(self, run_id: int) -> TestRun | None:
        row = await self.db.fetchrow(f"SELECT {_COLUMNS} FROM test_runs WHERE id = $1", run_id)
        return None if row is None else _run(row)

    async def open_review(self, guild_id: int, user_id: int) -> TestRun | None:
        """The member's unfinished review round in the server, newest first, if any."""
        row = await self.db.fetchrow(
            f"SELECT {_COLUMNS} FROM test_runs WHERE guild_id = $1 AND user_id = $2"
            " AND kind = 'review' AND finished_at IS NULL ORDER BY id DESC LIMIT 1",
            guild_id,
            user_id,
        )
        return None if row is None else _run(row)

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
