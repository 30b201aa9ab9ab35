"""A server's own questions in the picks (issue 27, bot/services/own_pool.py), on a real
SQLite file: the settings decide the pool, the daily share is honoured, the pool is read
again after an upload or a retire, and one server's pool never holds another's."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from bot.quiz.own_questions import BankSettings
from bot.services.daily import DailyService
from bot.services.guild_bank import GuildBankService
from bot.services.items import ItemStatsService
from bot.services.quiz import QuizService
from bot.storage.sqlite import Storage
from tests.factories import make_bank, make_question
from tests.itemsim import simulate, wrong_key_chooser
from tests.quiz.test_own_upload import BOTH

G, OTHER = 5, 6


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 5, 12, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def service(tmp_path: Path):
    storage = await Storage.open(tmp_path / "own.sqlite3")
    yield QuizService(make_bank(), storage, Clock(), random.Random(3))
    await storage.close()


async def _own(service: QuizService, guild: int, *ids: str) -> None:
    questions = [(replace(make_question(i), topic="practice"), ("en",)) for i in ids]
    await service.storage.guild_bank.put(guild, questions, now_ms=1)
    service.own.forget(guild)


async def report_twice(storage: Storage, guild: int, question_id: str) -> None:
    """Two members' open reports on the question: out of the server's picks."""
    for user in (1, 2):
        await storage.reports.add(
            guild_id=guild, user_id=user, question_id=question_id, language="en",
            reason="wrong_answer", body=None, now_ms=10 + user,
        )  # fmt: skip


async def test_the_settings_decide_the_pool(service: QuizService) -> None:
    bundled = {q.id for q in service.pool}
    assert {q.id for q in await service.own.pool(G)} == bundled  # nothing of its own yet
    await _own(service, G, "our-1", "our-2")
    assert {q.id for q in await service.own.pool(G)} == bundled | {"our-1@1", "our-2@1"}
    await service.storage.guild_bank.set_settings(G, BankSettings("own", 50))
    assert {q.id for q in await service.own.pool(G)} == {"our-1@1", "our-2@1"}
    await service.storage.guild_bank.set_settings(G, BankSettings("bundled", 50))
    assert {q.id for q in await service.own.pool(G)} == bundled
    assert {q.id for q in await service.own.pool(OTHER)} == bundled


async def test_a_post_of_own_questions_by_topic(service: QuizService) -> None:
    await _own(service, G, "our-1")
    post, question = await service.new_post(
        guild_id=G, channel_id=1, language="en", topic="practice"
    )
    assert question.id == post.question_id == "our-1@1"
    again, shown = await service.load_post(post.id, G)
    assert shown == question
    other, _ = await service.new_post(guild_id=OTHER, channel_id=2, language="en")
    assert "@" not in other.question_id


async def test_upload_and_retire_are_seen_at_the_next_pick(service: QuizService) -> None:
    bank = GuildBankService(service)
    await service.storage.guild_bank.set_settings(G, BankSettings("own", 50))
    assert "@" not in (await service.new_post(guild_id=G, channel_id=1, language="en"))[1].id
    upload = await bank.upload(G, BOTH.encode(), "ours.yaml")
    assert upload.stored is not None and upload.stored.added == ("our-02",)
    _, question = await service.new_post(guild_id=G, channel_id=1, language="en")
    assert question.id == "our-02@1"
    await bank.retire(G, "our-02")
    _, question = await service.new_post(guild_id=G, channel_id=1, language="en")
    assert "@" not in question.id


@pytest.mark.parametrize(("share", "own_days"), [(100, 20), (0, 0)])
async def test_the_daily_share_of_own_questions(
    service: QuizService, share: int, own_days: int
) -> None:
    daily = DailyService(service)
    await _own(service, G, *(f"our-{i}" for i in range(30)))
    await service.storage.guild_bank.set_settings(G, BankSettings("both", share))
    await daily.configure(G, channel_id=1)
    posted = []
    for day in range(20):
        when = date(2026, 1, 6) + timedelta(days=day)
        service.clock.now = datetime(when.year, when.month, when.day, 12, tzinfo=UTC)  # type: ignore[attr-defined]
        claim = await daily.claim(G, when, service.clock())
        assert claim is not None
        await daily.delivered(claim, 1000 + day)
        posted.append(claim.question.id)
    assert sum("@" in qid for qid in posted) == own_days
    if share == 100:  # 30 own questions: none twice in their round
        assert len(set(posted)) == 20


async def test_a_half_share_mixes_both(service: QuizService) -> None:
    daily = DailyService(service)
    await _own(service, G, *(f"our-{i}" for i in range(30)))
    await daily.configure(G, channel_id=1)
    own = 0
    for day in range(40):
        when = date(2026, 1, 6) + timedelta(days=day)
        service.clock.now = datetime(when.year, when.month, when.day, 12, tzinfo=UTC)  # type: ignore[attr-defined]
        claim = await daily.claim(G, when, service.clock())
        assert claim is not None
        await daily.delivered(claim, 2000 + day)
        own += "@" in claim.question.id
    assert 10 <= own <= 30  # 50 % by default, with random.Random(3)


async def test_an_own_question_reported_twice_leaves_the_picks(service: QuizService) -> None:
    items = ItemStatsService(service)  # sets the pool's hook, as build_bot does
    bank = GuildBankService(service)
    await _own(service, G, "our-1", "our-2")
    await service.storage.guild_bank.set_settings(G, BankSettings("own", 50))
    await report_twice(service.storage, G, "our-1@1")
    service.own.forget(G)
    assert {q.id for q in await service.own.pool(G)} == {"our-2@1"}
    assert await bank.withheld(G) == {"our-1@1": "reported"}
    assert await items.withheld(OTHER, []) == {}


async def test_an_own_question_flagged_wrong_key_leaves_the_picks_and_is_in_the_view(
    service: QuizService, tmp_path: Path
) -> None:
    items = ItemStatsService(service)
    bank = GuildBankService(service)
    await _own(service, G, "our-1", *(f"our-s{i}" for i in range(5)))
    await service.storage.guild_bank.set_settings(G, BankSettings("own", 50))
    own = {o.question_id: o.question for o in await service.storage.guild_bank.current(G)}
    planted, sound = own["our-1"], [own[f"our-s{i}"] for i in range(5)]
    await simulate(service.storage.file or tmp_path, guild_id=G, members=range(60),
                   questions=[*sound, planted], choose=wrong_key_chooser(planted, sound))  # fmt: skip
    assert await items.refresh(G, now_ms=5)
    stats = await items.server_stats(G)
    assert stats.as_of_ms == 5  # read from the summary, which covers the server's own
    flagged = stats.of("our-1@1")
    assert flagged is not None and flagged.flags[0].code == "wrong_key"
    service.own.forget(G)
    assert "our-1@1" not in {q.id for q in await service.own.pool(G)}
    assert await bank.withheld(G) == {"our-1@1": "wrong_key"}
    # An upload (a fixed key: a new version) makes the summary stale; the new version is
    # picked again, with no figures yet.
    fixed = replace(make_question("our-1", correct=1), topic="practice")
    await service.storage.guild_bank.put(G, [(fixed, ("en",))], now_ms=9)
    await bank._changed(G)
    assert [g for g, _ in await items.due()] == [G]
    assert "our-1@2" in {q.id for q in await service.own.pool(G)}
