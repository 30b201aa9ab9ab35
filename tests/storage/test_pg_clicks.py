"""The PostgreSQL click path under concurrency from several processes.

Each "process" here is a `PgDatabase` of its own (a pool of one connection, so a
session of its own on the server, as a second bot process would have): the guarantees
of bot/storage/pg/clicks.py must hold across them, not only across one pool's
connections. And the rare path: a unique violation raced past the read is answered as
the duplicate (or the non-first answer) it is, never as an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from bot.quiz.model import Question
from bot.quiz.scoring import AnswerResult
from bot.storage.pg import clicks as pg_clicks
from bot.storage.pg.answers import PgAnswerStore
from bot.storage.pg.db import MIGRATION_LOCK, PgDatabase
from bot.storage.pg.executor import PgExecutor
from bot.storage.stores.daily import DailyStore
from bot.storage.stores.posts import PostStore
from tests.factories import make_bank

GUILD = 111
BANK = make_bank()
QUESTION = BANK["mlp-split-01"]  # key: choice index 1
PROCESSES = 20


@pytest.fixture
async def processes(pg_url: str) -> AsyncIterator[list[PgDatabase]]:
    """Twenty databases on one server, each with a single connection of its own."""
    first = await PgDatabase.open(pg_url, max_size=1)  # migrates
    rest = await asyncio.gather(
        *(PgDatabase.open(pg_url, migrate=False, max_size=1) for _ in range(PROCESSES - 1))
    )
    dbs = [first, *rest]
    try:
        yield dbs
    finally:
        await asyncio.gather(*(db.close() for db in dbs))


async def _post(db: PgDatabase, kind: str = "question") -> int:
    post = await PostStore(PgExecutor(db)).create(
        guild_id=GUILD,
        channel_id=5,
        question_id=QUESTION.id,
        order=(0, 1, 2, 3),
        language="en",
        now_ms=1_000,
        kind=kind,
    )
    return post.id


async def _click(
    db: PgDatabase, post_id: int, user: int, choice: int = 1, question: Question = QUESTION
) -> AnswerResult | None:
    return await PgAnswerStore(db).record(
        guild_id=GUILD,
        user_id=user,
        name=f"m{user}",
        question=question,
        choice_index=choice,
        now_ms=2_000 + user,
        post_id=post_id,
    )


async def _rows(db: PgDatabase, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in await db.fetch(sql, *args)]


async def test_twenty_processes_clicking_for_one_member_record_one_answer(
    processes: list[PgDatabase],
) -> None:
    db = processes[0]
    post = await _post(db)
    results = await asyncio.gather(
        *(_click(p, post, 7, choice=i % 4) for i, p in enumerate(processes))
    )
    fresh = [r for r in results if r is not None and not r.duplicate]
    assert len(fresh) == 1
    for r in results:
        assert r is not None and r.choice_index == fresh[0].choice_index
        assert r.score.answered == 1
    assert await _rows(db, "SELECT COUNT(*) FROM answers") == [(1,)]
    assert await _rows(db, "SELECT answered FROM members") == [(1,)]
    assert await _rows(db, "SELECT answer_count FROM posts") == [(1,)]


async def test_one_member_on_twenty_posts_from_twenty_processes_keeps_exact_totals(
    processes: list[PgDatabase],
) -> None:
    """Without the member's lock two clicks would build on the same old totals (a lost
    update) and two would both be "first" for the question (a unique violation)."""
    db = processes[0]
    posts = [await _post(db) for _ in processes]
    results = await asyncio.gather(
        *(_click(p, post, 7) for p, post in zip(processes, posts, strict=True))
    )
    assert all(r is not None and not r.duplicate and r.correct for r in results)
    assert sum(r.points_awarded for r in results if r is not None) == 1  # one first answer
    assert sorted(r.score.answered for r in results if r is not None) == list(range(1, 21))
    assert await _rows(
        db, "SELECT points, answered, correct, streak, best_streak FROM members"
    ) == [(1, 20, 20, 20, 20)]
    assert await _rows(db, "SELECT period, answered FROM member_periods ORDER BY 1") == [
        ("month", 20),
        ("week", 20),
    ]
    assert await _rows(db, "SELECT reps FROM cards") == [(20,)]
    assert await _rows(
        db, "SELECT period, points, correct FROM score_counts WHERE members = 1 ORDER BY 1"
    ) == [("all", 1, 20), ("month", 1, 20), ("week", 1, 20)]
    assert await _rows(db, "SELECT COUNT(*) FROM score_counts WHERE members NOT IN (0, 1)") == [
        (0,)
    ]


async def test_many_members_on_many_posts_from_twenty_processes_match_a_recount(
    processes: list[PgDatabase],
) -> None:
    db = processes[0]
    questions = list(BANK)
    posts = []
    for q in questions:
        posts.append((await _post(db), q))
    clicks = [
        _click(
            processes[(user * 7 + i) % PROCESSES],
            post,
            user,
            choice=(user + i) % len(q.choices),
            question=q,
        )
        for i, (post, q) in enumerate(posts)
        for user in range(1, 31)
    ]
    results = await asyncio.gather(*clicks)
    assert all(r is not None and not r.duplicate for r in results)
    assert await _rows(db, "SELECT COUNT(*) FROM answers") == [(len(clicks),)]
    assert await _rows(db, "SELECT SUM(answered) FROM members") == [(len(clicks),)]
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
    totals = await _rows(
        db,
        "SELECT m.user_id, m.points, m.answered, m.correct FROM members m ORDER BY 1",
    )
    raw = await _rows(
        db,
        "SELECT user_id, SUM(points), COUNT(*), SUM(correct) FROM answers GROUP BY 1 ORDER BY 1",
    )
    assert totals == raw


async def test_a_click_racing_the_close_from_another_process_scores_nothing(
    processes: list[PgDatabase],
) -> None:
    db, other = processes[0], processes[1]
    post = await _post(db, kind="daily")
    await _click(db, post, 1, choice=1)
    # Another process holds the post's row (as a click in flight does): the closer waits
    # for it, and a click behind the closer then finds the post closed.
    async with other.transaction() as conn:
        await conn.execute("SELECT id FROM posts WHERE id = $1 FOR NO KEY UPDATE", post)
        closing = asyncio.create_task(DailyStore(PgExecutor(processes[2])).close(post, 5_000))
        await _wait_for_lock_waiters(db, 1)
        late = asyncio.create_task(_click(processes[3], post, 2, choice=3))
        await _wait_for_lock_waiters(db, 2)
    closed = await closing
    assert closed is not None and closed[1] == {1: 1}
    assert await late is None
    assert await _rows(db, "SELECT COUNT(*) FROM answers") == [(1,)]
    assert await _rows(db, "SELECT answer_count FROM posts") == [(1,)]


async def _wait_for_lock_waiters(db: PgDatabase, count: int) -> None:
    """Until `count` sessions wait for a lock: the server's own view, not a timer."""
    for _ in range(10_000):
        waiting = await db.fetchrow(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock'"
        )
        assert waiting is not None
        if waiting[0] >= count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{count} sessions never waited for a lock")


async def test_a_unique_violation_past_the_read_is_answered_as_the_duplicate(
    processes: list[PgDatabase], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that takes none of the click's locks inserts the member's answer between
    the click's read and its write: the click runs again and reports the standing answer."""
    db = processes[0]
    post = await _post(db)
    real_apply = pg_clicks.apply
    calls = 0

    async def rival_first(*args: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            async with processes[1].transaction() as conn:
                await conn.execute(
                    "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
                    " choice_index, correct, first, points, answered_at)"
                    " VALUES ($1, 7, $2, 't', $3, 3, 0, 1, 0, 5)",
                    GUILD,
                    QUESTION.id,
                    post,
                )
                await conn.execute(
                    "INSERT INTO members (guild_id, user_id, name, answered) VALUES ($1, 7, 'r', 1)",
                    GUILD,
                )
        await real_apply(*args)

    monkeypatch.setattr(pg_clicks, "apply", rival_first)
    result = await _click(db, post, 7, choice=1)
    assert calls == 1  # the retry read the rival's answer: nothing left to apply
    assert result is not None and result.duplicate
    assert (result.choice_index, result.correct, result.score.answered) == (3, False, 1)
    assert await _rows(db, "SELECT COUNT(*) FROM answers") == [(1,)]
    assert await _rows(db, "SELECT COUNT(*) FROM cards") == [(0,)]  # the first try rolled back


async def test_a_first_answer_raced_past_the_read_scores_as_the_second_it_is(
    processes: list[PgDatabase], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = processes[0]
    mine, theirs = await _post(db), await _post(db)
    real_apply = pg_clicks.apply
    calls = 0

    async def rival_first(*args: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:  # the member's first answer to the question, on another post
            async with processes[1].transaction() as conn:
                await conn.execute(
                    "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
                    " choice_index, correct, first, points, answered_at)"
                    " VALUES ($1, 7, $2, 't', $3, 1, 1, 1, 1, 5)",
                    GUILD,
                    QUESTION.id,
                    theirs,
                )
        await real_apply(*args)

    monkeypatch.setattr(pg_clicks, "apply", rival_first)
    result = await _click(db, mine, 7, choice=1)
    assert calls == 2
    assert result is not None and not result.duplicate
    assert (result.correct, result.points_awarded) == (True, 0)
    assert await _rows(db, "SELECT post_id, first FROM answers ORDER BY first") == [
        (mine, 0),
        (theirs, 1),
    ]


async def test_a_second_violation_is_not_hidden(
    processes: list[PgDatabase], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retried once only: a click that keeps violating a constraint is a bug to see."""
    db = processes[0]
    post = await _post(db)

    async def always(*args: Any) -> None:
        raise asyncpg.UniqueViolationError("always")

    monkeypatch.setattr(pg_clicks, "apply", always)
    with pytest.raises(asyncpg.UniqueViolationError):
        await _click(db, post, 7)


def test_the_member_lock_key_is_stable_and_apart_from_the_migration_lock() -> None:
    key = pg_clicks.member_lock_key(GUILD, 7)
    assert key == pg_clicks.member_lock_key(GUILD, 7)
    assert key != pg_clicks.member_lock_key(GUILD, 8)
    assert key != pg_clicks.member_lock_key(7, GUILD)
    assert -(2**63) <= key < 2**63 and key != MIGRATION_LOCK
