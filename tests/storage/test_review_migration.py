"""Migration 0011 on a real SQLite file and a real PostgreSQL database (issue 31, defect 6).

A database written before 0011 can hold several open review rounds of one member (the
race the migration ends). Its unique index needs one: every open round of a member and
server but the newest is closed, the same rows on both backends, with its last answer's
time (its start without answers) and its right answers as the score. Nothing else moves.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.storage.pg.db import PgDatabase
from bot.storage.sqlite import Storage
from tests.storage.conftest import _numbered
from tests.storage.test_review_rounds import second_open_round_refused
from tests.storage.test_schema import at_schema

G, A, B = 1_300_000_000_000_000_001, 1_300_000_000_000_002_001, 1_300_000_000_000_002_002

#: (id, guild, user, kind, started_at, finished_at, score) as 0010 left them.
RUNS = [
    (1, G, A, "review", 100, None, None),  # A's oldest open round, two answers: closed
    (2, G, A, "review", 200, None, None),  # no answers: closed at its start
    (3, G, A, "review", 300, None, None),  # A's newest open round: kept
    (4, G, A, "test", 50, None, None),  # a test is not a round
    (5, G, A, "review", 250, 260, 2),  # finished before: untouched
    (6, G, B, "review", 150, None, None),  # B's older open round: closed, no answers
    (7, G + 1, A, "review", 500, None, None),  # A in another server: kept
    (8, G, B, "review", 400, None, None),  # B's newest: kept
]
#: (test run, question, correct, answered_at)
ANSWERS = [(1, "q1", 1, 110), (1, "q2", 0, 120), (3, "q3", 1, 310), (4, "q4", 1, 60)]

AFTER = [
    (1, "review", 120, 1),
    (2, "review", 200, 0),
    (3, "review", None, None),
    (4, "test", None, None),
    (5, "review", 260, 2),
    (6, "review", 150, 0),
    (7, "review", None, None),
    (8, "review", None, None),
]

RUN_SQL = (
    "INSERT INTO test_runs (id, guild_id, user_id, question_ids, orders, started_at, kind,"
    " finished_at, score) VALUES (?, ?, ?, '[\"q\"]', '[[0]]', ?, ?, ?, ?)"
)
ANSWER_SQL = (
    "INSERT INTO answers (guild_id, user_id, question_id, topic, test_run_id, choice_index,"
    " correct, first, points, answered_at) VALUES (?, ?, ?, 't', ?, 0, ?, 0, 0, ?)"
)
#: Another open round for A, which the new index must refuse.
SECOND_OPEN = (
    "INSERT INTO test_runs (id, guild_id, user_id, question_ids, orders, started_at, kind)"
    " VALUES (99, ?, ?, '[]', '[]', 900, 'review')"
)
AFTER_SQL = "SELECT id, kind, finished_at, score FROM test_runs ORDER BY id"


def _rows() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    owners = {run[0]: run[1:3] for run in RUNS}
    runs = [(i, g, u, start, kind, end, score) for i, g, u, kind, start, end, score in RUNS]
    answers = [(*owners[r], q, r, c, at) for r, q, c, at in ANSWERS]
    return runs, answers


async def test_sqlite_file_keeps_the_newest_open_round(tmp_path: Path) -> None:
    path = tmp_path / "before-0011.sqlite3"
    runs, answers = _rows()
    with sqlite3.connect(at_schema(path, 10)) as conn:
        conn.executemany(RUN_SQL, runs)
        conn.executemany(ANSWER_SQL, answers)
    storage = await Storage.open(path)  # applies 0011 (and any later migration)
    try:
        assert await storage.db.schema_version() >= 11
        open_round = await storage.test_runs.open_review(G, A)
        assert open_round is not None and open_round.id == 3
    finally:
        await storage.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute(AFTER_SQL).fetchall() == AFTER
        with pytest.raises(sqlite3.IntegrityError) as refused:
            conn.execute(SECOND_OPEN, (G, A))
        assert second_open_round_refused(refused.value)
        assert conn.execute("SELECT COUNT(*) FROM answers").fetchone() == (4,)


async def test_postgresql_keeps_the_same_open_rounds(pg_url: str) -> None:
    runs, answers = _rows()
    db = await PgDatabase.open(pg_url, migrate=False)
    try:
        await db.migrate(target=10)
        async with db.transaction() as conn:
            await conn.executemany(_numbered(RUN_SQL), runs)
            await conn.executemany(_numbered(ANSWER_SQL), answers)
        assert await db.migrate(target=11) == ["0011_one_open_review.sql"]
        assert [tuple(r) for r in await db.fetch(AFTER_SQL)] == AFTER
        with pytest.raises(asyncpg.UniqueViolationError) as refused:
            async with db.transaction() as conn:
                await conn.execute(_numbered(SECOND_OPEN), G, A)
        assert second_open_round_refused(refused.value)
        assert [tuple(r) for r in await db.fetch("SELECT COUNT(*) FROM answers")] == [(4,)]
    finally:
        await db.close()
