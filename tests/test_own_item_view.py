"""A server's own questions in `/tpquiz-admin questions` and per version (issue 27), on a
real SQLite file: its own questions head the list, marked as its own, a withheld one
says why and one on probation says so; the bank's flagged ones follow; each version of
a question has its own figures (a new version's start afresh, an older one's stay and
`question <id@1>` shows them)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.quiz.model import Question
from bot.quiz.own_questions import BankSettings
from bot.services.guild_bank import GuildBankService
from bot.services.items import ItemStatsService
from bot.services.quiz import QuizService
from bot.storage.sqlite import Storage
from bot.ui.render_items import questions_embed
from tests.factories import make_bank, make_question
from tests.itemsim import simulate, wrong_key_chooser
from tests.test_own_picks import report_twice

G = 5


@pytest.fixture
async def service(tmp_path: Path):
    storage = await Storage.open(tmp_path / "own.sqlite3")
    clock = lambda: datetime(2026, 1, 5, 12, tzinfo=UTC)  # noqa: E731
    yield QuizService(make_bank(), storage, clock, random.Random(3))
    await storage.close()


async def _put(service: QuizService, *questions: Question) -> dict[str, Question]:
    """Store the questions in the server (each id's next version); its current ones."""
    await service.storage.guild_bank.put(G, [(q, ("en",)) for q in questions], now_ms=1)
    await GuildBankService(service)._changed(G)
    return {o.question_id: o.question for o in await service.storage.guild_bank.current(G)}


def _practice(qid: str, correct: int = 0) -> Question:
    return replace(make_question(qid, correct=correct), topic="practice")


async def test_own_questions_head_the_list_withheld_then_on_probation(
    service: QuizService, tmp_path: Path
) -> None:
    items = ItemStatsService(service)
    db = service.storage.file or tmp_path
    own = await _put(
        service, _practice("our-1"), _practice("our-new"), _practice("our-gone"),
        *(_practice(f"our-s{i}") for i in range(5)),
    )  # fmt: skip
    planted, sound = own["our-1"], [own[f"our-s{i}"] for i in range(5)]
    await simulate(db, guild_id=G, members=range(60), questions=[*sound, planted],
                   choose=wrong_key_chooser(planted, sound))  # fmt: skip
    # Three first answers to the new question; a bundled question everyone gets right.
    bundled = next(iter(service.pool))
    await simulate(db, guild_id=G, members=range(3), questions=[own["our-new"]],
                   choose=lambda m, a, q: q.correct_index, now_ms=1_700_000_100_000)  # fmt: skip
    await simulate(db, guild_id=G, members=range(100, 140), questions=[bundled],
                   choose=lambda m, a, q: q.correct_index, now_ms=1_700_000_200_000)  # fmt: skip
    await service.storage.guild_bank.retire(G, "our-gone", now_ms=2)
    assert await items.refresh(G, now_ms=5)

    stats = await items.server_stats(G)
    assert stats.withheld == {"our-1@1": "wrong_key"}
    assert "our-gone@1" not in stats.in_use
    listed = stats.listed()
    heads = {e.stats.question_id: (e.own, e.probation, e.withheld) for e in listed}
    assert listed[0].stats.question_id == "our-1@1"
    assert heads["our-1@1"] == (True, False, "wrong_key")
    assert heads["our-new@1"] == (True, True, None)
    assert "our-gone@1" not in heads  # retired: no longer picked, not listed
    own = [e.own for e in listed]
    assert own == sorted(own, reverse=True)  # all its own first
    assert listed[-1].stats.question_id == bundled.id and not listed[-1].own

    embed = questions_embed(listed, 0, "en")
    blocks = (embed.description or "").split("\n\n")
    probation = next(b for b in blocks if b.startswith("**`our-new@1`**"))
    assert blocks[0].startswith("**`our-1@1`** · this server's own · 60 first answers · ")
    assert blocks[0].splitlines()[1] == (
        "• ⚠️ Out of the picks: likely wrong key. Upload a fixed version"
        " (`/tpquiz-admin bank upload`) or retire it."
    )
    assert "Likely wrong key or ambiguous" in blocks[0]
    assert probation == (
        "**`our-new@1`** · this server's own · 3 first answers · facility 100% ·"
        " discrimination - · 0 reports\n"
        "• On probation: 3/30 first answers; it is not flagged before 30."
    )
    tr = questions_embed(listed, 0, "tr").description or ""
    assert "bu sunucunun sorusu" in tr and "Deneme sürecinde: 3/30 ilk cevap" in tr
    assert "Seçilmiyor: anahtarı büyük olasılıkla yanlış" in tr


async def test_a_question_reported_twice_says_why_it_is_out(service: QuizService) -> None:
    items = ItemStatsService(service)
    await _put(service, _practice("our-1"), _practice("our-2"))
    await service.storage.guild_bank.set_settings(G, BankSettings("own", 50))
    await report_twice(service.storage, G, "our-2@1")
    stats = await items.server_stats(G)  # no summary yet: computed now, reports read
    assert stats.as_of_ms is None
    [first, second] = stats.listed()
    assert first.stats.question_id == "our-2@1"
    assert (first.withheld, first.probation) == ("reported", True)
    assert (second.stats.question_id, second.withheld) == ("our-1@1", None)
    block = (questions_embed(stats.listed(), 0, "en").description or "").split("\n\n")[0]
    assert block.splitlines()[1] == (
        "• ⚠️ Out of the picks: two open reports or more. Resolve them"
        " (`/tpquiz-admin reports`) or upload a fixed version."
    )
    assert (
        block.splitlines()[2] == "• On probation: 0/30 first answers; it is not flagged before 30."
    )


async def test_each_version_has_its_own_figures(service: QuizService, tmp_path: Path) -> None:
    items = ItemStatsService(service)
    db = service.storage.file or tmp_path
    first = (await _put(service, _practice("our-1")))["our-1"]
    await simulate(db, guild_id=G, members=range(30), questions=[first],
                   choose=lambda m, a, q: q.correct_index)  # fmt: skip
    second = (await _put(service, _practice("our-1", correct=1)))["our-1"]
    assert second.id == "our-1@2"
    await simulate(db, guild_id=G, members=range(5), questions=[second],
                   choose=lambda m, a, q: (q.correct_index + 1) % 4,
                   now_ms=1_700_000_100_000)  # fmt: skip

    for refreshed in (False, True):  # computed now, then read from the summary
        if refreshed:
            assert await items.refresh(G, now_ms=7)
        stats = await items.server_stats(G)
        assert (stats.as_of_ms is not None) is refreshed
        old, new = stats.of("our-1@1"), stats.of("our-1@2")
        assert old is not None and (old.answers, old.correct) == (30, 30)
        assert new is not None and (new.answers, new.correct) == (5, 0)
        assert old.key_index == 0 and new.key_index == 1
        # The list has the version in use only: the new one, on probation afresh.
        [entry] = [e for e in stats.listed() if e.own]
        assert (entry.stats.question_id, entry.probation) == ("our-1@2", True)

    # `/tpquiz-admin question our-01@1`: the older version, its own figures.
    shown = await items.question(G, "our-1@1")
    assert shown is not None and shown.correct_index == 0 and shown.id == "our-1@1"
    assert await items.question(G, "our-1@3") is None
