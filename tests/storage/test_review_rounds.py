"""One open review round per member and server (issue 31, defect 6), on both backends.

Two `/tpquiz review` at once (a double tap, two devices) used to open two rounds, and a
question could then be answered once in each. The database now holds at most one open
round per member and server (migration 0011's unique index); `start_review` is the
insert-or-get on it, `ReviewService.open` continues the round that won, and a finished
round takes no new answer. The migration of existing rounds: test_review_migration.py.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest

from bot.services.quiz import QuizError, QuizService
from bot.services.review import ReviewOpening, ReviewService
from bot.storage.pg.storage import PgStorage
from bot.storage.records import TestRun
from bot.storage.sqlite import Storage
from tests.factories import make_bank
from tests.storage.conftest import Backend

GUILD, ALICE, BOB = 1_300_000_000_000_000_001, 1_300_000_000_000_002_001, 1_300_000_000_000_002_002
BANK = make_bank()
OPEN_REVIEWS = (
    "SELECT COUNT(*) FROM test_runs WHERE guild_id = ? AND user_id = ? AND kind = 'review'"
    " AND finished_at IS NULL"
)


def plan(*question_ids: str) -> dict[str, Any]:
    return {
        "question_ids": question_ids,
        "orders": tuple(tuple(range(len(BANK[q].choices))) for q in question_ids),
        "params": tuple(None for _ in question_ids),
    }


def second_open_round_refused(exc: BaseException) -> bool:
    """The refusal is the unique index of open review rounds, not any other constraint."""
    if isinstance(exc, asyncpg.UniqueViolationError):
        return exc.constraint_name == "test_runs_one_open_review"
    return isinstance(exc, sqlite3.IntegrityError) and (
        "UNIQUE constraint failed: test_runs.guild_id, test_runs.user_id" in str(exc)
    )


async def test_start_review_stores_one_round_then_returns_it(backend: Backend) -> None:
    runs = backend.test_runs
    first, created = await runs.start_review(
        guild_id=GUILD, user_id=ALICE, now_ms=10, **plan("start-01", "mlp-split-02")
    )
    assert created and first.kind == "review" and first.finished_at is None
    assert first.question_ids == ("start-01", "mlp-split-02") and first.params == (None, None)
    again, created = await runs.start_review(
        guild_id=GUILD, user_id=ALICE, now_ms=20, **plan("collectives-01")
    )
    assert not created and again == first  # the open round, its plan unchanged
    # Another member, or the same member in another server, has a round of their own.
    assert (await runs.start_review(guild_id=GUILD, user_id=BOB, now_ms=30, **plan("start-01")))[1]
    assert (
        await runs.start_review(guild_id=GUILD + 1, user_id=ALICE, now_ms=40, **plan("start-01"))
    )[1]
    # The rule is the database's: a writer that skips start_review is refused too.
    with pytest.raises(Exception) as refused:  # noqa: PT011 (checked just below)
        await backend.execute(
            "INSERT INTO test_runs (guild_id, user_id, question_ids, orders, started_at, kind)"
            " VALUES (?, ?, '[]', '[]', 50, 'review')",
            (GUILD, ALICE),
        )
    assert second_open_round_refused(refused.value), refused.value
    # Once the round is finished, the next start opens a new one.
    await runs.finish(first.id, score=1, now_ms=60)
    after, created = await runs.start_review(
        guild_id=GUILD, user_id=ALICE, now_ms=70, **plan("collectives-01")
    )
    assert created and after.id != first.id and after.question_ids == ("collectives-01",)
    assert await runs.open_review(GUILD, ALICE) == after


async def test_concurrent_starts_store_one_round(backend: Backend) -> None:
    """Eight starts at once (on PostgreSQL, each on its own pooled connection)."""
    started = await asyncio.gather(
        *(
            backend.test_runs.start_review(
                guild_id=GUILD, user_id=ALICE, now_ms=i, **plan(("start-01", "start-02")[i % 2])
            )
            for i in range(8)
        )
    )
    assert sum(created for _, created in started) == 1
    assert len({run.id for run, _ in started}) == 1
    assert await backend.scalar(OPEN_REVIEWS, (GUILD, ALICE)) == 1


async def test_a_finished_round_takes_no_new_answer(backend: Backend) -> None:
    """A round migration 0011 closed (a newer one was open) keeps answered questions
    answered and counts none of the others, which the open round may hold too."""
    run, _ = await backend.test_runs.start_review(
        guild_id=GUILD, user_id=ALICE, now_ms=5, **plan("start-01", "start-02")
    )

    async def answer(qid: str, at: int) -> Any:
        return await backend.answers.record(
            guild_id=GUILD, user_id=ALICE, name="alice", question=BANK[qid], choice_index=1,
            now_ms=at, test_run_id=run.id,
        )  # fmt: skip

    first = await answer("start-01", 10)
    assert first is not None and not first.duplicate
    await backend.execute(
        "UPDATE test_runs SET finished_at = 20, score = 0 WHERE id = ?", (run.id,)
    )
    assert await answer("start-02", 30) is None  # closed: nothing written
    again = await answer("start-01", 40)  # a double click on an answered one: as before
    assert again is not None and again.duplicate
    assert await backend.rows(
        "SELECT question_id, answered_at FROM answers WHERE test_run_id = ?", (run.id,)
    ) == [("start-01", 10)]
    assert set(await backend.cards.member_cards(GUILD, ALICE)) == {"start-01"}
    assert (
        await backend.scalar(
            "SELECT answered FROM members WHERE guild_id = ? AND user_id = ?", (GUILD, ALICE)
        )
        == 1
    )


async def test_forget_me_deletes_the_open_round_and_a_new_one_can_start(
    backend: Backend,
) -> None:
    run, _ = await backend.test_runs.start_review(
        guild_id=GUILD, user_id=ALICE, now_ms=5, **plan("start-01")
    )
    await backend.test_runs.start_review(guild_id=GUILD, user_id=BOB, now_ms=6, **plan("start-01"))
    deleted = await backend.privacy.forget_member(GUILD, ALICE)
    assert deleted["test_runs"] == 1
    assert await backend.test_runs.get(run.id) is None
    assert await backend.test_runs.open_review(GUILD, ALICE) is None
    assert await backend.test_runs.open_review(GUILD, BOB) is not None  # not Bob's
    again, created = await backend.test_runs.start_review(
        guild_id=GUILD, user_id=ALICE, now_ms=7, **plan("start-02")
    )
    assert created and again.id != run.id


# -- /tpquiz review itself: ReviewService over the bundles of one database -------------


class ReadAllFirst:
    """The test-run store, except that `open_review` returns only when all `parties`
    callers have read: every concurrent `/tpquiz review` sees "no open round" before
    any of them starts one, the interleaving that made two rounds, on every run."""

    def __init__(self, runs: Any, barrier: asyncio.Barrier) -> None:
        self._runs, self._barrier = runs, barrier

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runs, name)

    async def open_review(self, guild_id: int, user_id: int) -> TestRun | None:
        found = await self._runs.open_review(guild_id, user_id)
        await self._barrier.wait()
        return found


@pytest.fixture
async def bundles(backend_target: tuple[str, str]) -> AsyncIterator[list[Any]]:
    """Two storage bundles, as the bot processes sharing the database have them: on
    PostgreSQL two pools (two replicas); on SQLite, which one process alone may run (the
    run lock), that process's one bundle twice."""
    name, target = backend_target
    opened: list[Any] = []
    try:
        if name == "sqlite":
            opened.append(await Storage.open(target))
        else:
            for _ in range(2):
                opened.append(await PgStorage.open(target))
        yield [opened[0], opened[-1]]
    finally:
        for storage in opened:
            await storage.close()


async def review_rounds(storage: Any) -> tuple[int, int]:
    """(open, all) review rounds in the database."""
    sql = (
        "SELECT SUM(CASE WHEN finished_at IS NULL THEN 1 ELSE 0 END), COUNT(*) FROM test_runs"
        " WHERE kind = 'review'"
    )
    if isinstance(storage, PgStorage):
        row = await storage.db.fetchrow(sql)
    else:
        async with storage.db.conn.execute(sql) as cur:
            row = await cur.fetchone()
    assert row is not None
    return int(row[0] or 0), int(row[1])


def reviews(storage: Any, seed: int) -> ReviewService:
    clock = lambda: datetime(2026, 12, 2, 9, tzinfo=UTC)  # noqa: E731
    return ReviewService(QuizService(BANK, storage, clock, random.Random(seed)))


async def test_concurrent_review_commands_open_one_round_that_each_continues(
    bundles: list[Any],
) -> None:
    barrier = asyncio.Barrier(6)
    for storage in {id(b): b for b in bundles}.values():
        storage.test_runs = ReadAllFirst(storage.test_runs, barrier)
    services = [reviews(bundles[i % 2], i) for i in range(6)]
    openings: list[ReviewOpening] = await asyncio.gather(
        *(service.open(guild_id=GUILD, user_id=ALICE) for service in services)
    )
    currents = [o.current for o in openings]
    assert all(c is not None for c in currents)
    assert len({c.run.id for c in currents if c is not None}) == 1
    assert sorted(o.resumed for o in openings) == [False] + [True] * 5
    assert {c.position for c in currents if c is not None} == {0}
    assert await review_rounds(bundles[0]) == (1, 1)

    # The first question answered through two of the replies counts once.
    current = currents[0]
    assert current is not None
    steps = [
        await services[i].answer(
            run_id=current.run.id,
            guild_id=GUILD,
            user_id=ALICE,
            name="alice",
            position=0,
            choice_index=0,
        )
        for i in (0, 1)
    ]
    assert [s.result.duplicate for s in steps] == [False, True]
    assert len(await bundles[1].test_runs.answers(current.run.id)) == 1


async def test_a_button_of_a_closed_round_says_so(bundles: list[Any]) -> None:
    service = reviews(bundles[0], 1)
    opening = await service.open(guild_id=GUILD, user_id=ALICE)
    assert opening.current is not None
    run = opening.current.run
    await bundles[0].test_runs.finish(run.id, score=0, now_ms=1)  # as migration 0011 does
    with pytest.raises(QuizError) as refused:
        await service.answer(
            run_id=run.id, guild_id=GUILD, user_id=ALICE, name="alice", position=0,
            choice_index=0,
        )  # fmt: skip
    assert refused.value.key == "review_closed"
    assert await bundles[0].test_runs.answers(run.id) == {}
