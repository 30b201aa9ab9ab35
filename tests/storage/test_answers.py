"""Recording answers, the same tests on SQLite and on PostgreSQL (the `backend` fixture);
the migrations and the raw-sqlite3 integrity check stay SQLite-only."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.storage.sqlite import Storage
from bot.storage.sqlite.migrate import migrations
from tests.factories import make_bank
from tests.storage.conftest import Backend

GUILD, OTHER_GUILD = 111, 222
ALICE, BOB = 1001, 1002


@pytest.fixture
async def storage(tmp_path: Path):
    s = await Storage.open(tmp_path / "quiz.sqlite3")
    yield s
    await s.close()


async def _post(
    storage: Storage | Backend, qid: str = "mlp-split-01", guild: int = GUILD, now: int = 1_000
):
    return await storage.posts.create(
        guild_id=guild, channel_id=5, question_id=qid, order=(2, 0, 3, 1), language="en", now_ms=now
    )


async def test_migrations_apply_once_and_record_the_version(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    s = await Storage.open(path)
    assert await s.db.schema_version() == len(migrations())
    assert await s.db.migrate() == []  # nothing left to apply
    await s.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_first_right_answer_scores_and_duplicates_change_nothing(backend: Backend) -> None:
    bank = make_bank()
    q = bank["mlp-split-01"]  # correct choice index 1
    post = await _post(backend)
    first = await backend.answers.record(
        guild_id=GUILD,
        user_id=ALICE,
        name="alice",
        question=q,
        choice_index=1,
        now_ms=2_000,
        post_id=post.id,
    )
    assert (first.correct, first.points_awarded, first.duplicate) == (True, 1, False)
    assert (first.score.points, first.score.streak, first.rank) == (1, 1, 1)
    again = await backend.answers.record(
        guild_id=GUILD,
        user_id=ALICE,
        name="alice",
        question=q,
        choice_index=0,
        now_ms=3_000,
        post_id=post.id,
    )
    assert again.duplicate and again.choice_index == 1 and again.correct
    assert again.score.answered == 1
    assert (await backend.posts.get(post.id)).answer_count == 1  # type: ignore[union-attr]


async def test_the_same_question_posted_again_gives_no_second_point(backend: Backend) -> None:
    q = make_bank()["mlp-split-01"]
    p1, p2 = await _post(backend), await _post(backend)
    await backend.answers.record(
        guild_id=GUILD, user_id=ALICE, name="a", question=q, choice_index=1, now_ms=1, post_id=p1.id
    )
    second = await backend.answers.record(
        guild_id=GUILD, user_id=ALICE, name="a", question=q, choice_index=1, now_ms=2, post_id=p2.id
    )
    assert second.correct and second.points_awarded == 0 and not second.duplicate
    assert (
        second.score.points,
        second.score.answered,
        second.score.correct,
        second.score.streak,
    ) == (1, 2, 2, 2)


async def test_a_wrong_first_answer_uses_up_the_point(backend: Backend) -> None:
    q = make_bank()["mlp-split-01"]
    p1, p2 = await _post(backend), await _post(backend)
    wrong = await backend.answers.record(
        guild_id=GUILD, user_id=BOB, name="b", question=q, choice_index=0, now_ms=1, post_id=p1.id
    )
    assert (wrong.correct, wrong.points_awarded, wrong.score.streak) == (False, 0, 0)
    right = await backend.answers.record(
        guild_id=GUILD, user_id=BOB, name="b", question=q, choice_index=1, now_ms=2, post_id=p2.id
    )
    assert right.points_awarded == 0 and right.score.points == 0 and right.score.streak == 1


async def test_twenty_concurrent_clicks_record_one_answer(backend: Backend) -> None:
    q = make_bank()["mlp-split-01"]
    post = await _post(backend)
    results = await asyncio.gather(
        *(
            backend.answers.record(
                guild_id=GUILD,
                user_id=ALICE,
                name="a",
                question=q,
                choice_index=i % 4,
                now_ms=i,
                post_id=post.id,
            )
            for i in range(20)
        )
    )
    assert sum(not r.duplicate for r in results) == 1
    assert len({r.choice_index for r in results}) == 1
    assert await backend.scalar("SELECT COUNT(*) FROM answers", ()) == 1


async def test_the_database_itself_refuses_a_second_answer_to_a_post(
    storage: Storage, tmp_path: Path
) -> None:
    q = make_bank()["mlp-split-01"]
    post = await _post(storage)
    await storage.answers.record(
        guild_id=GUILD,
        user_id=ALICE,
        name="a",
        question=q,
        choice_index=1,
        now_ms=1,
        post_id=post.id,
    )
    with pytest.raises(sqlite3.IntegrityError):
        await storage.db.conn.execute(
            "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id, choice_index,"
            " correct, first, points, answered_at) VALUES (?, ?, 'mlp-split-01', 'mlp-split', ?, 0, 0, 0, 0, 5)",
            (GUILD, ALICE, post.id),
        )
    with pytest.raises(sqlite3.IntegrityError):  # a second scoring answer to the question
        p2 = await _post(storage)
        await storage.db.conn.execute(
            "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id, choice_index,"
            " correct, first, points, answered_at) VALUES (?, ?, 'mlp-split-01', 'mlp-split', ?, 1, 1, 1, 1, 5)",
            (GUILD, ALICE, p2.id),
        )


async def test_servers_are_scored_apart(backend: Backend) -> None:
    q = make_bank()["mlp-split-01"]
    p1, p2 = await _post(backend), await _post(backend, guild=OTHER_GUILD)
    await backend.answers.record(
        guild_id=GUILD, user_id=ALICE, name="a", question=q, choice_index=1, now_ms=1, post_id=p1.id
    )
    other = await backend.answers.record(
        guild_id=OTHER_GUILD,
        user_id=ALICE,
        name="a",
        question=q,
        choice_index=1,
        now_ms=2,
        post_id=p2.id,
    )
    assert other.points_awarded == 1  # first in that server
    rows, total = await backend.standings.page(OTHER_GUILD, None, offset=0, limit=10)
    assert total == 1 and rows[0].score.points == 1
    assert await backend.standings.position(OTHER_GUILD, BOB, None) is None
