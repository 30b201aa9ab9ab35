"""Leaderboards and stats over real SQLite files."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage.sqlite import Storage
from tests.factories import make_bank

GUILD = 7
DAY = 86_400_000


@pytest.fixture
async def filled(tmp_path: Path):
    """Members 1..15: member k answers k questions right; member 1 also answers one wrong.

    Answers are one day apart going back from day 40, so periods cut through them.
    """
    storage = await Storage.open(tmp_path / "s.sqlite3")
    bank = make_bank()
    questions = list(bank)
    for user in range(1, 16):
        for i in range(min(user, len(questions))):
            q = questions[i]
            post = await storage.posts.create(
                guild_id=GUILD,
                channel_id=1,
                question_id=q.id,
                order=tuple(range(len(q.choices))),
                language="en",
                now_ms=0,
            )
            await storage.answers.record(
                guild_id=GUILD,
                user_id=user,
                name=f"user{user}",
                question=q,
                choice_index=q.correct_index,
                now_ms=(40 - i) * DAY,
                post_id=post.id,
            )
    q = bank["collectives-01"]
    post = await storage.posts.create(
        guild_id=GUILD,
        channel_id=1,
        question_id=q.id,
        order=(0, 1, 2, 3, 4),
        language="en",
        now_ms=0,
    )
    await storage.answers.record(
        guild_id=GUILD,
        user_id=1,
        name="user1",
        question=q,
        choice_index=0,
        now_ms=41 * DAY,
        post_id=post.id,
    )
    yield storage
    await storage.close()


async def test_pages_are_ordered_and_ranked(filled: Storage) -> None:
    rows, total = await filled.standings.page(GUILD, None, offset=0, limit=10)
    assert total == 15
    assert [r.score.points for r in rows] == [6] * 10
    # Ties share rank 1; within a tie, fewer answers, then lower user id, first.
    assert {r.rank for r in rows} == {1}
    rest, _ = await filled.standings.page(GUILD, None, offset=10, limit=10)
    assert [(r.rank, r.score.user_id, r.score.points) for r in rest] == [
        (11, 5, 5),
        (12, 4, 4),
        (13, 3, 3),
        (14, 2, 2),
        (15, 1, 1),
    ]


async def test_position_of_a_member_outside_the_top(filled: Storage) -> None:
    found = await filled.standings.position(GUILD, 2, None)
    assert found is not None
    ranked, row = found
    assert (ranked.rank, ranked.score.points, row) == (14, 2, 13)


async def test_period_counts_only_answers_since_its_start(filled: Storage) -> None:
    # Since day 39: each member's answers at days 40 and 39 only (their first two).
    rows, total = await filled.standings.page(GUILD, 39 * DAY, offset=0, limit=100)
    assert total == 15
    by_user = {r.score.user_id: r.score for r in rows}
    assert by_user[15].points == 2 and by_user[1].points == 1 and by_user[1].answered == 2


async def test_member_stats_name_topics_and_best_test(filled: Storage) -> None:
    stats = await filled.standings.member_stats(GUILD, 1)
    assert stats is not None
    assert (stats.score.points, stats.score.answered, stats.score.correct) == (1, 2, 1)
    assert stats.score.streak == 0 and stats.score.best_streak == 1
    assert stats.per_topic == {"basics": (1, 1), "collectives": (1, 0)}
    assert stats.best_test is None
    run = await filled.test_runs.create(
        guild_id=GUILD, user_id=1, question_ids=("a", "b"), orders=((0, 1), (1, 0)), now_ms=5
    )
    await filled.test_runs.finish(run.id, score=1, now_ms=6)
    stats = await filled.standings.member_stats(GUILD, 1)
    assert stats is not None and stats.best_test == (1, 2)
