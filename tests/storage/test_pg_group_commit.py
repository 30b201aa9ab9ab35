"""Group commit on the real PostgreSQL server: clicks in flight together share a batch.

What every click guarantees on both backends is in test_group_commit.py and
test_answers.py (the `backend` fixture); here what is PostgreSQL's own
(bot/storage/pg/group_commit.py, bot/storage/pg/click_batch.py): batches form, a batch
holding a duplicate, a closed post, a gone post and a test run's click gives each its
own outcome, a batch rolled back by a race or a deadlock is recorded click by click, a
server failure fails the batch and saves nothing, and a click given up while queued is
never written.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import pytest

from bot.quiz.model import Question
from bot.quiz.scoring import AnswerResult
from bot.storage.click_read import Click
from bot.storage.errors import PostGone, WriteFailed
from bot.storage.pg import click_batch
from bot.storage.pg import group_commit as pg_group_commit
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.storage import PgStorage
from tests.factories import make_bank

GUILD = 111
BANK = make_bank()
QUESTION = BANK["mlp-split-01"]  # key: choice index 1


@pytest.fixture
async def storage(pg_url: str) -> AsyncIterator[PgStorage]:
    s = await PgStorage.open(pg_url)
    yield s
    await s.close()


async def _post(storage: PgStorage, question: Question = QUESTION) -> int:
    post = await storage.posts.create(
        guild_id=GUILD,
        channel_id=5,
        question_id=question.id,
        order=(0, 1, 2, 3),
        language="en",
        now_ms=1_000,
        kind="question",
    )
    return post.id


async def _click(
    storage: PgStorage, post_id: int, user: int, choice: int = 1
) -> AnswerResult | None:
    return await storage.answers.record(
        guild_id=GUILD,
        user_id=user,
        name=f"m{user}",
        question=QUESTION,
        choice_index=choice,
        now_ms=2_000 + user,
        post_id=post_id,
    )


async def _rows(db: PgDatabase, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in await db.fetch(sql, *args)]


def _batches(storage: PgStorage) -> list[int]:
    sizes: list[int] = []
    storage.answers.clicks.on_batch = sizes.append
    return sizes


async def test_clicks_in_flight_together_share_batches_and_match_a_recount(
    storage: PgStorage,
) -> None:
    sizes = _batches(storage)
    posts = [await _post(storage) for _ in range(3)]
    clicks = [
        _click(storage, post, user, choice=(user + i) % 4)
        for i, post in enumerate(posts)
        for user in range(1, 41)
    ]
    results = await asyncio.gather(*clicks)
    assert all(r is not None and not r.duplicate for r in results)
    assert sum(sizes) == 120 and max(sizes) > 1  # shared, not one transaction each
    db = storage.db
    assert await _rows(db, "SELECT COUNT(*) FROM answers") == [(120,)]
    assert await _rows(db, "SELECT answer_count FROM posts ORDER BY id") == [(40,)] * 3
    assert sorted(r.score.answered for r in results if r is not None) == sorted(
        [1] * 40 + [2] * 40 + [3] * 40
    )
    kept = await _rows(
        db,
        "SELECT period, starts_at, points, correct, members FROM score_counts"
        " WHERE members > 0 ORDER BY 1, 2, 3, 4",
    )
    recount = await _rows(
        db,
        "SELECT 'all', 0::bigint, points, correct, COUNT(*)::int FROM members GROUP BY 3, 4"
        " UNION ALL SELECT period, starts_at, points, correct, COUNT(*)::int FROM member_periods"
        " GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
    )
    assert kept == recount
    raw = await _rows(
        db, "SELECT user_id, SUM(points), COUNT(*), SUM(correct) FROM answers GROUP BY 1 ORDER BY 1"
    )
    totals = await _rows(db, "SELECT user_id, points, answered, correct FROM members ORDER BY 1")
    assert totals == raw


async def test_a_batch_gives_each_click_its_own_outcome(storage: PgStorage) -> None:
    """One batch: a fresh answer, a duplicate, a closed post, a gone post, a test run."""
    open_post, closed_post = await _post(storage), await _post(storage)
    await _click(storage, open_post, 7, choice=2)  # member 7's answer, before the batch
    await storage.db.fetch("UPDATE posts SET closed_at = 1 WHERE id = $1", closed_post)
    run = await storage.test_runs.create(
        guild_id=GUILD, user_id=9, question_ids=(QUESTION.id,), orders=((0, 1, 2, 3),), now_ms=1
    )
    base = {"name": "m", "question": QUESTION, "choice_index": 1, "now_ms": 3_000}
    batch = [
        Click(guild_id=GUILD, user_id=1, post_id=open_post, **base),  # type: ignore[arg-type]
        Click(guild_id=GUILD, user_id=7, post_id=open_post, **base),  # type: ignore[arg-type]
        Click(guild_id=GUILD, user_id=2, post_id=closed_post, **base),  # type: ignore[arg-type]
        Click(guild_id=GUILD, user_id=3, post_id=999_999, **base),  # type: ignore[arg-type]
        Click(guild_id=GUILD, user_id=9, test_run_id=run.id, **base),  # type: ignore[arg-type]
    ]
    fresh, duplicate, closed, gone, tested = await click_batch.record_batch(storage.db, batch)
    assert isinstance(fresh, AnswerResult) and not fresh.duplicate and fresh.points_awarded == 1
    assert isinstance(duplicate, AnswerResult) and duplicate.duplicate
    assert (duplicate.choice_index, duplicate.score.answered) == (2, 1)
    assert duplicate.rank >= 2  # member 1 is ahead with a point
    assert closed is None
    assert isinstance(gone, PostGone)
    assert isinstance(tested, AnswerResult) and not tested.duplicate
    assert await _rows(storage.db, "SELECT user_id FROM answers ORDER BY user_id") == [
        (1,),
        (7,),
        (9,),
    ]
    assert await _rows(storage.db, "SELECT answer_count FROM posts WHERE id = $1", open_post) == [
        (2,)
    ]


async def test_ranks_in_a_batch_count_the_clicks_before_them(storage: PgStorage) -> None:
    post = await _post(storage)
    base = {"name": "m", "question": QUESTION, "now_ms": 3_000, "post_id": post}
    batch = [
        Click(guild_id=GUILD, user_id=1, choice_index=0, **base),  # type: ignore[arg-type]
        Click(guild_id=GUILD, user_id=2, choice_index=1, **base),  # type: ignore[arg-type]
        Click(guild_id=GUILD, user_id=3, choice_index=0, **base),  # type: ignore[arg-type]
    ]
    wrong, right, wrong_after = await click_batch.record_batch(storage.db, batch)
    assert isinstance(wrong, AnswerResult) and wrong.rank == 1  # nobody ahead yet
    assert isinstance(right, AnswerResult) and right.rank == 1
    assert isinstance(wrong_after, AnswerResult) and wrong_after.rank == 2


async def test_a_member_twice_in_the_queue_waits_for_the_next_batch(storage: PgStorage) -> None:
    sizes = _batches(storage)
    posts = [await _post(storage) for _ in range(4)]
    results = await asyncio.gather(*(_click(storage, post, 7) for post in posts))
    assert sizes == [1, 1, 1, 1]  # never two of one member's clicks in one batch
    assert sorted(r.score.answered for r in results if r is not None) == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="one member twice"):
        click = Click(GUILD, 7, "m", QUESTION, 1, 3_000, post_id=posts[0])
        await click_batch.record_batch(storage.db, [click, click])


async def test_a_race_past_the_batch_read_is_recorded_click_by_click(
    storage: PgStorage, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer taking none of the locks inserts member 7's answer after the batch read:
    the batch's unique violation rolls it back, and each click is run again alone."""
    post = await _post(storage)
    real_read = click_batch._read

    async def rival_after_read(conn: asyncpg.Connection, clicks: list[Click]) -> Any:
        rows = await real_read(conn, clicks)
        rival = await asyncpg.connect(pg_url)
        try:
            await rival.execute(
                "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
                " choice_index, correct, first, points, answered_at)"
                " VALUES ($1, 7, $2, 't', $3, 3, 0, 1, 0, 5)",
                GUILD,
                QUESTION.id,
                post,
            )
            await rival.execute(
                "INSERT INTO members (guild_id, user_id, name, answered) VALUES ($1, 7, 'r', 1)",
                GUILD,
            )
        finally:
            await rival.close()
        monkeypatch.setattr(click_batch, "_read", real_read)
        return rows

    monkeypatch.setattr(click_batch, "_read", rival_after_read)
    results = await asyncio.gather(*(_click(storage, post, user) for user in (5, 6, 7, 8)))
    by_user = dict(zip((5, 6, 7, 8), results, strict=True))
    seven = by_user.pop(7)
    assert seven is not None and seven.duplicate and seven.choice_index == 3
    assert all(r is not None and not r.duplicate and r.correct for r in by_user.values())
    assert await _rows(storage.db, "SELECT COUNT(*) FROM answers") == [(4,)]
    assert await _rows(storage.db, "SELECT COUNT(*) FROM members") == [(4,)]  # 7: the rival's


async def test_a_deadlocked_batch_is_recorded_click_by_click(
    storage: PgStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    post = await _post(storage)

    async def deadlocked(db: PgDatabase, clicks: list[Click]) -> Any:
        raise WriteFailed("deadlock detected") from asyncpg.DeadlockDetectedError("deadlock")

    monkeypatch.setattr(pg_group_commit, "record_batch", deadlocked)
    results = await asyncio.gather(*(_click(storage, post, user) for user in range(1, 6)))
    assert all(r is not None and not r.duplicate for r in results)
    assert await _rows(storage.db, "SELECT COUNT(*) FROM answers") == [(5,)]


async def test_a_server_failure_fails_the_batch_and_saves_nothing(
    storage: PgStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    post = await _post(storage)
    tries: list[int] = []

    async def down(db: PgDatabase, clicks: list[Click]) -> Any:
        tries.append(len(clicks))
        raise WriteFailed("connection refused") from ConnectionRefusedError()

    async def down_alone(db: PgDatabase, click: Click) -> Any:
        tries.append(1)
        raise WriteFailed("connection refused") from ConnectionRefusedError()

    monkeypatch.setattr(pg_group_commit, "record_batch", down)
    monkeypatch.setattr(pg_group_commit, "record_click", down_alone)
    results = await asyncio.gather(
        *(_click(storage, post, user) for user in range(1, 6)), return_exceptions=True
    )
    assert all(isinstance(r, WriteFailed) for r in results)
    assert sum(tries) == 5  # each click tried once: a failed batch is not run again
    assert await _rows(storage.db, "SELECT COUNT(*) FROM answers") == [(0,)]


async def test_a_click_given_up_while_queued_is_not_written(
    storage: PgStorage, pg_url: str
) -> None:
    """Its interaction expired while it waited (`within_deadline` cancels its caller)."""
    post = await _post(storage)
    async with _first_click_held(storage, pg_url, post) as first:
        given_up = asyncio.create_task(_click(storage, post, 2))
        kept = asyncio.create_task(_click(storage, post, 3))
        await _until(lambda: storage.answers.clicks.queued() == 2)
        given_up.cancel()
    assert await first is not None
    assert await kept is not None
    with pytest.raises(asyncio.CancelledError):
        await given_up
    assert await _rows(storage.db, "SELECT user_id FROM answers ORDER BY 1") == [(1,), (3,)]


async def _until(ready: Callable[[], bool]) -> None:
    """Let the other tasks run until `ready()`: a condition, not a timer."""
    for _ in range(10_000):
        if ready():
            return
        await asyncio.sleep(0)
    raise AssertionError("never ready")


@asynccontextmanager
async def _first_click_held(
    storage: PgStorage, pg_url: str, post: int
) -> AsyncIterator[asyncio.Task[AnswerResult | None]]:
    """Member 1's click on `post`, its batch being written and held on the post's row
    (another session locks it) until the block ends; yields the click's task."""
    holder = await asyncpg.connect(pg_url)
    try:
        async with holder.transaction():
            await holder.execute("SELECT id FROM posts WHERE id = $1 FOR UPDATE", post)
            first = asyncio.create_task(_click(storage, post, 1))
            await _first_click_waits_for_the_row(storage)
            yield first
    finally:
        await holder.close()


async def _first_click_waits_for_the_row(storage: PgStorage) -> None:
    """Until the first click's transaction waits for the held row: the server's own view
    (asked outside the holder's transaction, whose view of the statistics is fixed)."""
    for _ in range(10_000):
        waiting = await storage.db.fetchrow(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock'"
        )
        if not storage.answers.clicks.queued() and waiting is not None and waiting[0] > 0:
            return
        await asyncio.sleep(0)
    raise AssertionError("the first click never waited for the row")


async def test_close_fails_the_queued_clicks_and_takes_no_more(
    storage: PgStorage, pg_url: str
) -> None:
    post = await _post(storage)
    async with _first_click_held(storage, pg_url, post) as first:
        queued = asyncio.create_task(_click(storage, post, 2))
        await _until(lambda: storage.answers.clicks.queued() == 1)
        assert storage.answers.give_up_queued() == 1
    assert await first is not None  # the batch being written commits
    with pytest.raises(WriteFailed):
        await queued
    with pytest.raises(WriteFailed):
        await _click(storage, post, 3)
    assert await _rows(storage.db, "SELECT user_id FROM answers") == [(1,)]
