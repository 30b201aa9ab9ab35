"""Computed questions in storage: a post's drawn numbers survive a reopen of the file.

The service posts a template question, the database is closed and opened again (a
restart), and a new service with another random source reads the post back: the same
numbers, the same right answer, the same feedback; the daily reveal likewise.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

from bot.bank.template_files import load_templates
from bot.quiz.model import Bank
from bot.quiz.templates import COMPUTED_TAG, decode_params
from bot.services.daily import DailyService
from bot.services.quiz import QuizService
from bot.storage.sqlite import Storage
from tests.factories import make_bank

GUILD, CHANNEL, ALICE = 111, 5, 1001
TEMPLATES = load_templates()
NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


def service(storage: Storage, seed: int, bank: Bank | None = None) -> QuizService:
    bank = make_bank() if bank is None else bank
    return QuizService(bank, storage, lambda: NOW, random.Random(seed), TEMPLATES)


async def test_a_template_posts_numbers_survive_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "quiz.sqlite3"
    storage = await Storage.open(path)
    try:
        post, posted = await service(storage, 1).new_post(
            guild_id=GUILD, channel_id=CHANNEL, language="en", topic="3d-parallelism"
        )
    finally:
        await storage.close()
    assert COMPUTED_TAG in posted.tags and post.params is not None
    with sqlite3.connect(path) as conn:
        (stored,) = conn.execute("SELECT params FROM posts WHERE id = ?", (post.id,)).fetchone()
    assert decode_params(stored) == decode_params(post.params)

    storage = await Storage.open(path)
    try:
        again = service(storage, 99)  # another process: another random source
        _, loaded = await again.load_post(post.id, GUILD)
        assert loaded == posted
        wrong = next(i for i, c in enumerate(loaded.choices) if not c.correct)
        outcome = await again.answer_post(
            post_id=post.id, guild_id=GUILD, user_id=ALICE, name="alice", choice_index=wrong
        )
        assert outcome.question == posted and outcome.result is not None
        assert not outcome.result.correct and outcome.result.points_awarded == 0
        # The first answer to the template is the one that counts, as for any question.
        second, _ = await again.new_post(
            guild_id=GUILD, channel_id=CHANNEL, language="en", question=again.pool[posted.id]
        )
        right = (await again.load_post(second.id, GUILD))[1].correct_index
        outcome = await again.answer_post(
            post_id=second.id, guild_id=GUILD, user_id=ALICE, name="alice", choice_index=right
        )
        assert outcome.result is not None and outcome.result.correct
        assert outcome.result.points_awarded == 0
    finally:
        await storage.close()


async def test_a_fixed_question_stores_no_parameters(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "quiz.sqlite3")
    try:
        post, question = await service(storage, 1).new_post(
            guild_id=GUILD, channel_id=CHANNEL, language="en", topic="basics"
        )
        assert post.params is None and COMPUTED_TAG not in question.tags
    finally:
        await storage.close()


async def test_a_daily_template_post_reveals_the_numbers_it_was_posted_with(
    tmp_path: Path,
) -> None:
    path = tmp_path / "quiz.sqlite3"
    storage = await Storage.open(path)
    try:
        await storage.daily.set_schedule(
            GUILD, channel_id=CHANNEL, post_time="09:00", timezone="UTC", now_ms=0
        )
        # Only templates in the pool, so the daily pick is one of them.
        daily = DailyService(service(storage, 4, Bank.of([])))
        claim = await daily.claim(GUILD, date(2026, 12, 2), NOW)
        assert claim is not None and claim.post.params is not None
        assert claim.question.id in TEMPLATES
        await daily.delivered(claim, message_id=777)
    finally:
        await storage.close()
    storage = await Storage.open(path)
    try:
        reveal = await DailyService(service(storage, 5, Bank.of([]))).close(claim.post.id, NOW)
        assert reveal is not None and reveal.question == claim.question
    finally:
        await storage.close()


async def test_a_post_whose_template_left_reads_as_removed(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "quiz.sqlite3")
    try:
        post, _ = await service(storage, 1).new_post(
            guild_id=GUILD, channel_id=CHANNEL, language="en", topic="3d-parallelism"
        )
        without = QuizService(make_bank(), storage, lambda: NOW, random.Random(2))
        assert await without.post_for_render(post.id) is None
    finally:
        await storage.close()
