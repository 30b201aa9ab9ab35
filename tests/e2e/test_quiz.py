"""End to end: the unmodified discord.py client running tpquiz against the loopback Discord.

Every request body the bot sends is checked against Discord's OpenAPI description by the
`loopback` fixture, which also fails the test on any route the loopback does not know.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from bot.bank.topic_names import topic_name
from tests.e2e.conftest import (
    CHANNEL_ID,
    GUILD_ID,
    QuizHarness,
    buttons,
    callback_message,
    created_message_id,
)
from tests.loopback.server import CHANNEL_MESSAGE_ROUTE, FOLLOWUP_ROUTE

GLOBAL_COMMANDS = "/applications/{application_id}/commands"
EPHEMERAL = 64
ALICE, BOB, CAROL = 1_300_000_000_000_001_001, 1_300_000_000_000_001_002, 1_300_000_000_000_001_003


async def post_question(
    quiz: QuizHarness, member: dict[str, Any], **kwargs: Any
) -> tuple[int, dict[str, Any]]:
    """Run /tpquiz question; return the created message id and the message sent."""
    request = await quiz.loopback.interact(quiz.command(member, "question", **kwargs))
    assert request.body["type"] == 4
    return created_message_id(request), callback_message(request)


def answer_buttons(quiz: QuizHarness, message: dict[str, Any]) -> tuple[str, list[str], str]:
    """(question id, custom_ids in letter order, custom_id of the right answer)."""
    ids = [b["custom_id"] for b in buttons(message)]
    post_id = int(ids[0].split(":")[2])
    qid = _post_question_id(quiz, post_id)
    right = quiz.bank[qid].correct_index
    return qid, ids, next(c for c in ids if c.endswith(f":{right}"))


def _post_question_id(quiz: QuizHarness, post_id: int) -> str:
    import sqlite3

    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute("SELECT question_id FROM posts WHERE id = ?", (post_id,)).fetchone()[0]


def count_answers(quiz: QuizHarness, user_id: int | None = None) -> int:
    import sqlite3

    with sqlite3.connect(quiz.db_path) as conn:
        if user_id is None:
            return conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        return conn.execute(
            "SELECT COUNT(*) FROM answers WHERE user_id = ?", (user_id,)
        ).fetchone()[0]


def field_map(embed: dict[str, Any]) -> dict[str, str]:
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


async def test_command_sync_body_is_localised_and_not_resent_on_restart(quiz: QuizHarness) -> None:
    async with quiz.bot():
        puts = quiz.loopback.find("PUT", GLOBAL_COMMANDS)
        assert len(puts) == 1
        (group,) = [c for c in puts[0].body if c["name"] == "tpquiz"]
        subs = {o["name"]: o for o in group["options"]}
        assert set(subs) == {
            "question", "test", "leaderboard", "stats", "review", "forget-me", "my-data", "live",
            "suggest",
        }  # fmt: skip
        assert subs["suggest"]["name_localizations"]["tr"] == "öner"
        assert subs["review"]["name_localizations"]["tr"] == "tekrar"
        assert subs["forget-me"]["name_localizations"]["tr"] == "beni-unut"
        assert subs["my-data"]["name_localizations"]["tr"] == "verilerim"
        assert subs["question"]["name_localizations"]["tr"] == "soru"
        assert subs["leaderboard"]["name_localizations"]["tr"] == "sıralama"
        assert subs["stats"]["name_localizations"]["tr"] == "istatistik"
        assert group["description_localizations"]["tr"] == "Tensör paralelliği testi"
        topic = subs["question"]["options"][0]
        assert topic["name"] == "topic" and topic["name_localizations"]["tr"] == "konu"
        assert {c["value"] for c in topic["choices"]} >= {"basics", "mlp-split", "inference"}
        assert group["contexts"] == [0]  # guild only
    async with quiz.bot():
        pass
    assert len(quiz.loopback.find("PUT", GLOBAL_COMMANDS)) == 1, "a restart must not re-sync"


async def test_question_post_right_wrong_and_repeated_clicks(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot() as bot:
        message_id, message = await post_question(quiz, alice)
        qid, ids, right = answer_buttons(quiz, message)
        paced_waits = []
        real_wait = bot.poster.pacer.wait

        async def counted_wait() -> None:
            paced_waits.append(1)
            await real_wait()

        bot.poster.pacer.wait = counted_wait  # type: ignore[method-assign]
        question = quiz.bank[qid]
        embed = message["embeds"][0]
        assert "flags" not in message or not message["flags"] & EPHEMERAL  # public post
        assert question.text.en in embed["description"]
        letters = [b["label"] for b in buttons(message)]
        assert letters == list("ABCDE"[: len(question.choices)])
        for pos, custom_id in enumerate(ids):
            choice = int(custom_id.rsplit(":", 1)[1])
            assert f"**{letters[pos]}.** {question.choices[choice].text.en}" in embed["description"]
        assert "0 answered" in embed["footer"]["text"]

        # Alice is right (English client).
        reply = callback_message(await quiz.click(message_id, right, alice))
        assert reply["flags"] & EPHEMERAL
        answer = reply["embeds"][0]
        assert answer["title"] == "✅ Correct!"
        fields = field_map(answer)
        assert question.explanation.en in fields["Why"]
        assert fields["Source"] == question.source
        assert question.choices[question.correct_index].text.en in fields["Right answer"]
        assert answer["footer"]["text"].startswith(
            "+1 points · 1 points in all · Rank #1 · Streak 1"
        )

        # Bob is wrong (Turkish client): Turkish reply with feedback on his choice.
        wrong = next(c for c in ids if c != right)
        wrong_choice = int(wrong.rsplit(":", 1)[1])
        wrong_letter = letters[ids.index(wrong)]
        reply = callback_message(await quiz.click(message_id, wrong, bob, locale="tr"))
        answer = reply["embeds"][0]
        assert answer["title"] == "❌ Yanlış."
        fields = field_map(answer)
        assert question.explanation.tr in fields["Neden"]
        feedback = question.choices[wrong_choice].feedback
        assert feedback is not None and fields[f"{wrong_letter} neden yanlış"] == feedback.tr
        assert answer["footer"]["text"].startswith("+0 puan")

        # Alice clicks again, on another letter: her first answer stands.
        reply = callback_message(await quiz.click(message_id, wrong, alice))
        answer = reply["embeds"][0]
        right_letter = letters[ids.index(right)]
        assert f"You already answered **{right_letter}**" in answer["description"]
        assert answer["title"] == "✅ Correct!"
        assert count_answers(quiz) == 2
        recorded = bot.metrics.value
        assert [
            recorded("tpquiz_answers_recorded_total", outcome=o)
            for o in ("correct", "wrong", "duplicate")
        ] == [1, 1, 1]
        assert bot.metrics.value("tpquiz_interaction_latency_seconds_count", kind="answer") == 3

        # The post's count is edited (coalesced), never per click.
        edit = await quiz.loopback.wait_for(
            lambda r: (
                r.method == "PATCH"
                and r.route == CHANNEL_MESSAGE_ROUTE
                and "2 answered" in r.body["embeds"][0]["footer"]["text"]
            )
        )
        assert int(edit.params["message_id"]) == message_id
        assert int(edit.params["channel_id"]) == CHANNEL_ID
        # ... through the daily posts' pacer: both count against Discord's global limit.
        assert paced_waits


async def test_twenty_concurrent_clicks_by_one_member_record_one_answer(quiz: QuizHarness) -> None:
    carol = quiz.member(CAROL, "carol")
    async with quiz.bot():
        message_id, message = await post_question(quiz, carol)
        _, ids, _ = answer_buttons(quiz, message)
        payloads = [
            quiz.loopback.button_click(message_id, ids[i % len(ids)], carol) for i in range(20)
        ]
        replies = await asyncio.gather(*(quiz.loopback.interact(p) for p in payloads))
        assert len(replies) == 20
        texts = [callback_message(r)["embeds"][0].get("description", "") for r in replies]
        firsts = [t for t in texts if "already answered" not in t]
        assert len(firsts) == 1, texts
        assert count_answers(quiz, CAROL) == 1
        patches = quiz.loopback.find("PATCH", CHANNEL_MESSAGE_ROUTE)
        assert len(patches) <= 3, "answer-count edits must be coalesced"


async def test_buttons_work_after_a_restart(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        message_id, message = await post_question(quiz, alice)
    _, _, right = answer_buttons(quiz, message)
    async with quiz.bot():
        reply = callback_message(await quiz.click(message_id, right, alice))
        assert reply["embeds"][0]["title"] == "✅ Correct!"
    assert count_answers(quiz, ALICE) == 1


async def test_a_post_of_another_server_is_unknown(quiz: QuizHarness) -> None:
    other_guild = GUILD_ID + 1000
    quiz.loopback.add_guild(other_guild, channel_ids=[other_guild + 1])
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        message_id, message = await post_question(quiz, alice)
        payload = quiz.loopback.button_click(message_id, buttons(message)[0]["custom_id"], alice)
        payload["guild_id"] = str(other_guild)
        payload["channel_id"] = payload["channel"]["id"] = str(other_guild + 1)
        payload["channel"]["guild_id"] = str(other_guild)
        reply = callback_message(await quiz.loopback.interact(payload))
        assert "can no longer be found" in reply["content"]
        assert reply["flags"] & EPHEMERAL
    assert count_answers(quiz) == 0


async def test_turkish_server_gets_turkish_posts(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        _, message = await post_question(quiz, alice, guild_locale="tr", locale="tr")
        qid, _, _ = answer_buttons(quiz, message)
        embed = message["embeds"][0]
        assert quiz.bank[qid].text.tr in embed["description"]
        assert embed["title"] == "Tensör paralelliği sorusu"
        assert "0 kişi cevapladı" in embed["footer"]["text"]


async def test_topic_option_picks_that_topic(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        for _ in range(3):
            _, message = await post_question(quiz, alice, options={"topic": "collectives"})
            qid, _, _ = answer_buttons(quiz, message)
            assert quiz.bank[qid].topic == "collectives"


async def test_leaderboard_pages_and_stats(quiz: QuizHarness) -> None:
    members = [quiz.member(ALICE + i, f"member{i:02d}") for i in range(12)]
    async with quiz.bot():
        message_id, message = await post_question(quiz, members[0])
        qid, ids, right = answer_buttons(quiz, message)
        wrong = next(c for c in ids if c != right)
        # Members 0..9 right, 10 and 11 wrong.
        for i, member in enumerate(members):
            await quiz.click(message_id, right if i < 10 else wrong, member)

        last = members[11]
        request = await quiz.loopback.interact(quiz.command(last, "leaderboard"))
        board = callback_message(request)
        lines = board["embeds"][0]["description"].splitlines()
        assert len([line for line in lines if line.startswith("**#")]) == 11  # 10 + the caller
        assert lines[0] == "**#1** member00 — 1 points · 100% accuracy"
        assert lines[-1].startswith("**#11** ") and "member11" in lines[-1]
        assert board["embeds"][0]["footer"]["text"] == "Page 1/2 · 12 members"
        prev, nxt = buttons(board)
        assert prev["disabled"] and not nxt["disabled"]

        board_id = created_message_id(request)
        page2 = callback_message(await quiz.click(board_id, nxt["custom_id"], last))
        assert request.body["type"] == 4
        lines = page2["embeds"][0]["description"].splitlines()
        assert [re.sub(r" — .*", "", line) for line in lines] == [
            "**#11** member10",
            "**#11** member11",
        ]
        assert buttons(page2)[1]["disabled"]

        # Someone else pages the caller's board: they get their own ephemeral copy, with
        # their own rank line, and the caller's message stays as it was.
        first = members[0]
        board_now = dict(quiz.loopback.messages[board_id])
        prev_id = buttons(board_now)[0]["custom_id"]
        theirs = await quiz.click(board_id, prev_id, first)
        assert theirs.body["type"] == 4  # a new message, not an edit of the caller's
        copy = callback_message(theirs)
        assert copy["flags"] & EPHEMERAL
        assert copy["embeds"][0]["footer"]["text"] == "Page 1/2 · 12 members"
        assert copy["embeds"][0]["description"].splitlines()[0].startswith("**#1** member00")
        assert quiz.loopback.messages[board_id] == board_now
        # Paging their own copy edits it.
        copy_id = created_message_id(theirs)
        mine = await quiz.click(copy_id, buttons(copy)[1]["custom_id"], first)
        assert mine.body["type"] == 7
        assert callback_message(mine)["embeds"][0]["footer"]["text"] == "Page 2/2 · 12 members"
        # A page without the presser shows their rank line after the page.
        other = callback_message(await quiz.click(board_id, prev_id, members[10]))
        assert "You (member10)" in other["embeds"][0]["description"]

        week = callback_message(
            await quiz.loopback.interact(quiz.command(last, "leaderboard", {"period": "week"}))
        )
        assert week["embeds"][0]["title"] == "Leaderboard — this week"

        stats = callback_message(await quiz.loopback.interact(quiz.command(last, "stats")))
        fields = field_map(stats["embeds"][0])
        assert stats["flags"] & EPHEMERAL
        assert fields["Points"] == "0" and fields["Answers"] == "1" and fields["Accuracy"] == "0%"
        assert fields["Rank"] == "#11"
        assert fields["Streak (current / best)"] == "0 / 0"
        topic = quiz.bank[qid].topic
        assert fields["Accuracy by topic"] == f"{topic_name(topic, 'en')}: 0% (0/1)"

        other = callback_message(
            await quiz.loopback.interact(quiz.command(last, "stats", {"member": members[0]}))
        )
        fields = field_map(other["embeds"][0])
        assert (
            fields["Points"] == "1"
            and fields["Rank"] == "#1"
            and fields["Streak (current / best)"] == "1 / 1"
        )


async def test_whole_starting_test_shows_score_and_every_explanation(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    starting = quiz.bank.tagged("starting")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "test", locale="tr"))
        message_id = created_message_id(request)
        message = callback_message(request)
        assert message["flags"] & EPHEMERAL
        since = request.index
        for pos, question in enumerate(starting):
            embed = message["embeds"][0]
            assert embed["author"]["name"] == f"Soru {pos + 1}/8"
            assert question.text.tr in embed["description"]
            ids = [b["custom_id"] for b in buttons(message)]
            assert all(c.startswith("tpq:t:") and f":{pos}:" in c for c in ids)
            # Right on the first six, wrong on the last two: 6/8.
            right = question.correct_index
            pick = right if pos < 6 else (right + 1) % len(question.choices)
            reply = await quiz.click(
                message_id, next(c for c in ids if c.endswith(f":{pick}")), alice, locale="tr"
            )
            assert reply.body["type"] == 7  # the same ephemeral message moves on
            message = callback_message(reply)
        header, *embeds = message["embeds"]
        assert header["title"] == "Test bitti: 6/8"
        # Only the "Report a problem" button is left (tests/e2e/test_reports.py).
        assert [b["custom_id"][:9] for b in buttons(message)] == ["tpq:rp:t:"]
        # The rest of the summary arrives as followups, until all eight are shown.
        while len(embeds) < 8:
            followup = await quiz.loopback.wait_for(
                lambda r: r.route == FOLLOWUP_ROUTE and r.method == "POST", since=since
            )
            since = followup.index + 1
            assert followup.body["flags"] & EPHEMERAL
            embeds += followup.body["embeds"]
        assert len(embeds) == 8
        for question, embed in zip(starting, embeds, strict=True):
            fields = field_map(embed)
            assert question.explanation.tr in fields["Neden"]
            assert question.choices[question.correct_index].text.tr in fields["Doğru cevap"]
        assert [e["title"][0] for e in embeds] == ["✅"] * 6 + ["❌"] * 2

    assert count_answers(quiz, ALICE) == 8
    stats_bank = quiz.bank  # the test's answers count in stats like any other
    async with quiz.bot():
        stats = callback_message(await quiz.loopback.interact(quiz.command(alice, "stats")))
        fields = field_map(stats["embeds"][0])
        assert fields["Best test score"] == "6/8"
        assert fields["Points"] == "6" and fields["Answers"] == "8"
        assert len(stats_bank.tagged("starting")) == 8
