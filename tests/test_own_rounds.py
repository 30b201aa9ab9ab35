"""A server's own questions changing under a member's feet (issue 27), on a real SQLite
file: a `/tpquiz review` round whose next question is retired, or replaced by a new
version, still asks the version the round recorded, takes the answer and scores it
(also after a restart: nothing held in memory); a retired question is not picked for a
new round; a post of a retired question still takes its clicks. `/tpquiz test` plans
from the bundled bank only, so a retire cannot reach it. A server drawing only its own
whose questions are all retired or withheld falls back to the bundled bank."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from bot.quiz.model import Question
from bot.quiz.own_questions import BankSettings
from bot.services.guild_bank import GuildBankService
from bot.services.items import ItemStatsService
from bot.services.quiz import QuizService
from bot.services.review import ReviewService
from bot.storage.sqlite import Storage
from tests.factories import make_bank, make_question
from tests.test_own_picks import Clock, report_twice

G = 5
ALICE, BOB, CAROL = 101, 102, 103


@pytest.fixture
async def storage(tmp_path: Path):
    opened = await Storage.open(tmp_path / "own.sqlite3")
    yield opened
    await opened.close()


def _service(storage: Storage) -> QuizService:
    """A bot's services on the storage, as built at start (the item statistics' hook set)."""
    service = QuizService(make_bank(), storage, Clock(), random.Random(3))
    ItemStatsService(service)
    return service


def _practice(qid: str, correct: int = 0) -> Question:
    return replace(make_question(qid, correct=correct), topic="practice")


async def _own_only(service: QuizService, *questions: Question) -> None:
    await service.storage.guild_bank.put(G, [(q, ("en",)) for q in questions], now_ms=1)
    await service.storage.guild_bank.set_settings(G, BankSettings("own", 50))
    service.own.forget(G)


async def _answer(review: ReviewService, user: int, run_id: int, position: int, choice: int):
    return await review.answer(
        run_id=run_id, guild_id=G, user_id=user, name=f"m{user}", position=position,
        choice_index=choice,
    )  # fmt: skip


@pytest.mark.parametrize("change", ["retire", "new_version"])
@pytest.mark.parametrize("restart", [False, True])
async def test_a_running_round_keeps_the_version_it_recorded(
    storage: Storage, change: str, restart: bool
) -> None:
    service = _service(storage)
    bank = GuildBankService(service)
    await _own_only(service, _practice("our-1"), _practice("our-2"), _practice("our-3"))
    opening = await ReviewService(service).open(guild_id=G, user_id=ALICE)
    assert opening.current is not None
    run = opening.current.run
    assert sorted(run.question_ids) == ["our-1@1", "our-2@1", "our-3@1"]
    first, nxt = run.question_ids[0], run.question_ids[1]
    step = await _answer(ReviewService(service), ALICE, run.id, 0, 0)
    assert step.next is not None and step.next.question.id == nxt

    # The next question changes while the member thinks: retired, or a new version
    # whose key is another choice.
    nxt_id = nxt.split("@")[0]
    if change == "retire":
        await bank.retire(G, nxt_id)
    else:
        await storage.guild_bank.put(G, [(_practice(nxt_id, correct=2), ("en",))], now_ms=3)
        await bank._changed(G)
    if restart:  # a restarted bot: no version held in memory
        service = _service(storage)
    review = ReviewService(service)

    resumed = await review.open(guild_id=G, user_id=ALICE)
    assert resumed.resumed and resumed.current is not None
    assert resumed.current.question.id == nxt  # the version the round recorded
    assert resumed.current.question.correct_index == 0
    step = await _answer(review, ALICE, run.id, 1, 0)  # right for that version
    assert step.answered.question.id == nxt
    assert step.result.correct and not step.result.duplicate and step.result.points_awarded > 0
    step = await _answer(review, ALICE, run.id, 2, 1)  # the last one, wrong
    assert step.summary is not None and (step.summary.right, step.summary.total) == (2, 3)
    stats = await storage.standings.member_stats(G, ALICE)
    assert stats is not None and (stats.score.answered, stats.score.correct) == (3, 2)

    # A new round (another member) never gets the retired question, nor the old version.
    fresh = await review.open(guild_id=G, user_id=BOB)
    assert fresh.current is not None
    asked = set(fresh.current.run.question_ids)
    assert nxt not in asked
    if change == "retire":
        assert asked == {first, run.question_ids[2]}
    else:
        assert f"{nxt_id}@2" in asked
    assert first in asked


async def test_a_post_of_a_retired_question_still_takes_its_clicks(storage: Storage) -> None:
    service = _service(storage)
    await _own_only(service, _practice("our-1"))
    post, question = await service.new_post(guild_id=G, channel_id=1, language="en")
    assert question.id == "our-1@1"
    await GuildBankService(service).retire(G, "our-1")
    service = _service(storage)  # after a restart too
    done = await service.answer_post(post_id=post.id, guild_id=G, user_id=ALICE, name="a",
                                     choice_index=0)  # fmt: skip
    assert done.result is not None and done.result.correct
    _, again = await service.new_post(guild_id=G, channel_id=1, language="en")
    assert "@" not in again.id  # nothing of its own in use: the bundled bank


async def test_a_test_run_is_planned_from_the_bundled_bank_only(storage: Storage) -> None:
    service = _service(storage)
    await _own_only(service, *(_practice(f"our-{i}") for i in range(12)))
    run, question = await service.start_test(guild_id=G, user_id=CAROL)
    assert all("@" not in qid for qid in run.question_ids)
    assert question.id in service.bank
    for qid in ("our-0", "our-1"):
        await GuildBankService(service).retire(G, qid)
    step = await service.answer_test(run_id=run.id, guild_id=G, user_id=CAROL, name="c",
                                     position=0, choice_index=question.correct_index)  # fmt: skip
    assert step.result.correct


async def test_own_only_with_every_question_retired_or_withheld_draws_the_bundled_bank(
    storage: Storage,
) -> None:
    service = _service(storage)
    bundled = {q.id for q in service.pool}
    await _own_only(service, _practice("our-1"), _practice("our-2"))
    assert {q.id for q in await service.own.pool(G)} == {"our-1@1", "our-2@1"}
    await GuildBankService(service).retire(G, "our-1")
    await report_twice(storage, G, "our-2@1")  # out of the picks
    service.own.forget(G)
    assert {q.id for q in await service.own.pool(G)} == bundled
    assert {q.id for q in await service.own.pool(G, daily=True, rng=random.Random(1))} == bundled
    _, question = await service.new_post(guild_id=G, channel_id=1, language="en")
    assert question.id in bundled
    opening = await ReviewService(service).open(guild_id=G, user_id=ALICE)
    assert opening.current is not None
    assert set(opening.current.run.question_ids) <= bundled
