"""End to end: `/tpquiz-admin questions` and `/tpquiz-admin question <id>` (issue #13).

The answers are simulated through the bot's own recording code (tests/itemsim.py) while
the bot is stopped: 60 members of graded ability answer five sound questions and one
planted question whose key is wrong; 40 other members answer six more questions all
rightly (too easy: enough flagged questions for a second page). The planted question
must head the list. Both commands are an admin's only, in the admin's language.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

from bot.quiz.model import Bank, Question
from bot.storage.sqlite.reports import add_report
from tests.e2e.conftest import (
    CHANNEL_ID,
    GUILD_ID,
    QuizHarness,
    buttons,
    callback_message,
    created_message_id,
)
from tests.e2e.forged import with_custom_id
from tests.itemsim import simulate, wrong_key_chooser
from tests.loopback.server import ALL_PERMISSIONS

ADMIN, ALICE = 1_300_000_000_000_004_001, 1_300_000_000_000_004_002
OTHER_GUILD = 1_300_000_000_000_004_999
EPHEMERAL = 64
HOSTILE = "@everyone <@&1> **bold** [link](https://example.com)"
PLANTED = "attention-split-01"


def _sound(bank: Bank) -> list[Question]:
    return [q for q in bank if q.id.startswith("3d-parallelism-")][:5]


def _easy(bank: Bank) -> list[Question]:
    return [q for q in bank if q.id.startswith("basics-")][:6]


async def _answers(quiz: QuizHarness) -> None:
    """The simulated answers, and two reports on the planted question (one hostile)."""
    planted, sound = quiz.bank[PLANTED], _sound(quiz.bank)
    await simulate(quiz.db_path, guild_id=GUILD_ID, members=range(60),
                   questions=[*sound, planted], choose=wrong_key_chooser(planted, sound))  # fmt: skip
    await simulate(quiz.db_path, guild_id=GUILD_ID, members=range(100, 140),
                   questions=_easy(quiz.bank), choose=lambda m, a, q: q.correct_index,
                   now_ms=1_700_000_100_000)  # fmt: skip
    # Another server: everyone right on the planted question; never counted here.
    await simulate(quiz.db_path, guild_id=OTHER_GUILD, members=range(40), questions=[planted],
                   choose=lambda m, a, q: q.correct_index, now_ms=1_700_000_200_000)  # fmt: skip
    with sqlite3.connect(quiz.db_path, isolation_level=None) as conn:
        for i, body in enumerate(("the key is D", HOSTILE)):
            add_report(conn, guild_id=GUILD_ID, user_id=ALICE + i, question_id=PLANTED,
                       language="en", reason="wrong_answer", body=body,
                       now_ms=1_796_000_000_000 + i)  # fmt: skip


async def _admin(quiz: QuizHarness, member: dict[str, Any], sub: str, **kwargs: Any) -> Any:
    return await quiz.loopback.interact(quiz.command(member, sub, command="tpquiz-admin", **kwargs))


async def test_the_planted_wrong_key_heads_the_flagged_list_and_pages(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():  # creates the database
        pass
    await _answers(quiz)
    async with quiz.bot():
        request = await _admin(quiz, admin, "questions")
        message = callback_message(request)
        assert message["flags"] & EPHEMERAL
        assert message["allowed_mentions"] == {"parse": []}
        embed = message["embeds"][0]
        assert embed["title"] == "Most flagged questions"
        first = embed["description"].split("\n\n")[0]
        assert first.startswith(f"**`{PLANTED}`** · 60 first answers · facility ")
        assert "· 2 reports" in first
        assert "Likely wrong key or ambiguous: discrimination -" in first
        assert "the top third picks D (75%) more than the key C (10%) (20 members)" in first
        assert "Reported: 2 open problem reports." in first
        footer = embed["footer"]["text"]
        assert footer.startswith("Page 1/2 · ")
        flagged = int(footer.split("· ")[1].split()[0])
        assert flagged >= 7
        prev, nxt = buttons(message)
        assert (prev["custom_id"], prev["disabled"]) == ("tpq:qs:0:p", True)
        assert (nxt["label"], nxt["custom_id"]) == ("Next", "tpq:qs:1:n")

        second = callback_message(
            await quiz.click(created_message_id(request), nxt["custom_id"], admin)
        )
        page2 = second["embeds"][0]
        assert page2["footer"]["text"] == f"Page 2/2 · {flagged} flagged"
        assert PLANTED not in page2["description"]
        assert "Too easy: facility 100% (> 95%)." in page2["description"]
        assert buttons(second)[1]["disabled"] is True

        # In Turkish, from the command's own page option.
        tr = callback_message(await _admin(quiz, admin, "questions", locale="tr",
                                           options={"page": 2}))  # fmt: skip
        assert tr["embeds"][0]["title"] == "En çok işaretlenen sorular"
        assert tr["embeds"][0]["footer"]["text"] == f"Sayfa 2/2 · {flagged} işaretli soru"
        assert "Çok kolay: kolaylık 100%" in tr["embeds"][0]["description"]


async def test_one_question_shows_bars_flags_and_escaped_reports(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        pass
    await _answers(quiz)
    planted = quiz.bank[PLANTED]
    async with quiz.bot():
        message = callback_message(await _admin(quiz, admin, "question", options={"id": PLANTED}))
        assert message["flags"] & EPHEMERAL and message["allowed_mentions"] == {"parse": []}
        embed = message["embeds"][0]
        assert embed["title"] == f"Question {PLANTED}"
        assert embed["description"].startswith(planted.text.get("en"))
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert list(fields) == ["All answers", "Top third", "Bottom third", "Flags", "Reports"]
        assert fields["All answers"].startswith("60 first answers · facility ")
        # The top third (20 members) all pick D, the choice after the key C.
        assert "**D** `████████░░` 15 (75%)" in fields["Top third"]
        assert "**C** `█░░░░░░░░░` 2 (10%) ✅" in fields["Top third"]
        assert "**C** `" in fields["Top third"] and "✅" in fields["Top third"]
        assert "Likely wrong key or ambiguous" in fields["Flags"]
        assert "the key is D" in fields["Reports"]
        assert "@\u200beveryone" in fields["Reports"] and HOSTILE not in fields["Reports"]
        assert "\\*\\*bold\\*\\*" in fields["Reports"]

        tr = callback_message(
            await _admin(quiz, admin, "question", options={"id": PLANTED}, locale="tr")
        )
        tr_fields = [f["name"] for f in tr["embeds"][0]["fields"]]
        assert tr_fields == ["Tüm cevaplar", "En iyi üçte bir", "En zayıf üçte bir",
                             "İşaretler", "Bildirimler"]  # fmt: skip
        assert tr["embeds"][0]["description"].startswith(planted.text.get("tr"))
        assert (
            "Anahtar yanlış ya da soru belirsiz olabilir" in tr["embeds"][0]["fields"][3]["value"]
        )

        unknown = callback_message(await _admin(quiz, admin, "question", options={"id": "nope-99"}))
        assert unknown["content"] == "There is no question 'nope-99' in the bank."
        unknown_tr = callback_message(
            await _admin(quiz, admin, "question", options={"id": "nope-99"}, locale="tr")
        )
        assert unknown_tr["content"] == "Bankada 'nope-99' diye bir soru yok."

        payload = quiz.loopback.autocomplete(
            GUILD_ID, CHANNEL_ID, admin, "tpquiz-admin", "question", {"id": "attention"}, "id"
        )
        await quiz.loopback.interact(payload)
        choices = quiz.loopback.interaction(payload).choices
        assert choices and len(choices) <= 25
        assert all(c["value"].startswith("attention") for c in choices)
        assert PLANTED in [c["value"] for c in choices]


async def test_nothing_is_flagged_before_30_first_answers(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        pass
    planted, sound = quiz.bank[PLANTED], _sound(quiz.bank)
    # The same wrong key, but only 29 members: no flag yet, and the reply says why.
    await simulate(quiz.db_path, guild_id=GUILD_ID, members=range(29),
                   questions=[*sound, planted], choose=wrong_key_chooser(planted, sound))  # fmt: skip
    async with quiz.bot():
        listing = callback_message(await _admin(quiz, admin, "questions"))
        assert listing["embeds"][0]["description"] == (
            "No flagged questions yet (a question is flagged after 30 first answers at the least)."
        )
        assert not listing.get("components")
        tr = callback_message(await _admin(quiz, admin, "questions", locale="tr"))
        assert tr["embeds"][0]["description"].startswith("Henüz işaretlenen soru yok")
        one = callback_message(await _admin(quiz, admin, "question", options={"id": PLANTED}))
        fields = {f["name"]: f["value"] for f in one["embeds"][0]["fields"]}
        assert fields["All answers"].startswith("29 first answers · ")
        assert fields["Flags"] == "none" and fields["Reports"] == "none"


async def test_a_member_without_manage_server_sees_nothing(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        pass
    await _answers(quiz)
    async with quiz.bot():
        for sub, options in (("questions", None), ("question", {"id": PLANTED})):
            refused = callback_message(await _admin(quiz, alice, sub, options=options, locale="tr"))
            assert refused["flags"] & EPHEMERAL and "embeds" not in refused
            assert refused["content"] == (
                "Bu komutları yalnızca **Sunucuyu Yönet** yetkisi olan üyeler kullanabilir."
            )
        # Alice clicks Next on the admin's listing (or forges its custom_id).
        request = await _admin(quiz, admin, "questions")
        genuine = quiz.loopback.button_click(created_message_id(request), "tpq:qs:1:n", alice)
        assert (
            "Manage Server"
            in callback_message(await quiz.click(created_message_id(request), "tpq:qs:1:n", alice))[
                "content"
            ]
        )
        click = await quiz.loopback.interact(
            with_custom_id(quiz.loopback, genuine, "tpq:qs:99999999:n")
        )
        assert "Manage Server" in callback_message(click)["content"]
        assert "embeds" not in callback_message(click)


async def test_the_view_reads_the_refreshed_summary_and_says_as_of_when(quiz: QuizHarness) -> None:
    """The refresh loop's first tick (after ready) summarises both servers; the view then
    says when its figures were computed. A member's deletion makes the summary stale:
    the view computes on demand (and says so) until the next refresh."""
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        pass
    await _answers(quiz)
    async with quiz.bot() as bot:
        # (not isinstance: loading an extension imports its module anew)
        refresh: Any = bot.get_cog("ItemRefreshCog")
        assert refresh is not None
        await asyncio.wait_for(refresh.first_tick.wait(), timeout=30)
        at = int(quiz.clock().timestamp())
        as_of = (f"Figures as of <t:{at}:R>: recomputed from this server's first answers"
                 " every 5 minutes.")  # fmt: skip
        request = await _admin(quiz, admin, "questions")
        listing = callback_message(request)
        assert listing["content"] == as_of
        first = listing["embeds"][0]["description"].split("\n\n")[0]
        assert first.startswith(f"**`{PLANTED}`** · 60 first answers · facility ")
        assert "Likely wrong key or ambiguous: discrimination -" in first
        nxt = buttons(listing)[1]
        page2 = callback_message(await quiz.click(created_message_id(request), nxt["custom_id"], admin))  # fmt: skip
        assert page2["content"] == as_of
        tr = callback_message(await _admin(quiz, admin, "questions", locale="tr"))
        assert tr["content"] == (f"Rakamlar <t:{at}:R> itibarıyla: bu sunucunun ilk"
                                 " cevaplarından her 5 dakikada bir yeniden hesaplanır.")  # fmt: skip
        one = callback_message(await _admin(quiz, admin, "question", options={"id": PLANTED}))
        assert one["content"] == as_of
        fields = {f["name"]: f["value"] for f in one["embeds"][0]["fields"]}
        assert fields["All answers"].startswith("60 first answers · facility ")

        # Member 0 forgets themselves: the summary counted them, so it is not read.
        await bot.storage.privacy.forget_member(GUILD_ID, 0)
        one = callback_message(await _admin(quiz, admin, "question", options={"id": PLANTED}))
        assert one["content"] == (
            "No up-to-date summary yet: figures computed just now from this server's first"
            " answers (the summary is refreshed every 5 minutes)."
        )
        fields = {f["name"]: f["value"] for f in one["embeds"][0]["fields"]}
        assert fields["All answers"].startswith("59 first answers · facility ")
        tr = callback_message(await _admin(quiz, admin, "questions", locale="tr"))
        assert tr["content"].startswith("Henüz güncel bir özet yok")

        # The next tick recomputes it.
        quiz.clock.advance(minutes=5)
        assert await refresh.refresh_due() == [GUILD_ID]
        one = callback_message(await _admin(quiz, admin, "question", options={"id": PLANTED}))
        assert one["content"] == as_of.replace(str(at), str(at + 300))
        assert one["embeds"][0]["fields"][0]["value"].startswith("59 first answers · ")
