"""End to end: `/tpquiz review` on the loopback Discord with the bot's clock moved.

A member misses a question in a post and one in the test; a day later the review brings
those two first, each answer shows its feedback at once, right answers push a card days
ahead and a wrong one brings it back the next day. The round survives a restart, and a
second `/tpquiz review` continues it, also when five are sent at once. A computed
question is one card, and comes back with numbers of its own.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from typing import Any

from bot.bank.template_files import load_templates
from bot.quiz.memory import DAY_MS
from bot.quiz.model import Bank
from tests.e2e.conftest import QuizHarness, buttons, callback_message, created_message_id
from tests.e2e.forged import with_custom_id
from tests.e2e.test_quiz import EPHEMERAL, answer_buttons, field_map, post_question

ALICE, BOB = 1_300_000_000_000_002_001, 1_300_000_000_000_002_002


def rows(quiz: QuizHarness, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute(sql, args).fetchall()


def card_due(quiz: QuizHarness, user: int, qid: str) -> int:
    ((due,),) = rows(quiz, "SELECT due FROM cards WHERE user_id = ? AND question_id = ?", user, qid)
    return int(due)


def review_round(quiz: QuizHarness, user: int) -> list[str]:
    """The question ids of the member's newest review round."""
    ((ids,),) = rows(
        quiz,
        "SELECT question_ids FROM test_runs WHERE user_id = ? AND kind = 'review'"
        " ORDER BY id DESC LIMIT 1",
        user,
    )
    return list(json.loads(ids))


def now_ms(quiz: QuizHarness) -> int:
    return int(quiz.clock.now.timestamp() * 1000)


def run_id(message: dict[str, Any]) -> int:
    return int(buttons(message)[0]["custom_id"].split(":")[2])


def choose(message: dict[str, Any], choice: int) -> str:
    return next(b["custom_id"] for b in buttons(message) if b["custom_id"].endswith(f":{choice}"))


async def miss_two(quiz: QuizHarness, member: dict[str, Any]) -> tuple[str, str]:
    """Miss one question in a post, then another in the test an hour later."""
    message_id, message = await post_question(quiz, member)
    posted, ids, right = answer_buttons(quiz, message)
    await quiz.click(message_id, next(c for c in ids if c != right), member)
    quiz.clock.advance(hours=1)
    request = await quiz.loopback.interact(quiz.command(member, "test"))
    run = callback_message(request)
    ((test_ids,),) = rows(quiz, "SELECT question_ids FROM test_runs WHERE kind = 'test'")
    position = next(i for i, q in enumerate(json.loads(test_ids)) if q != posted)
    missed = json.loads(test_ids)[position]
    wrong = (quiz.bank[missed].correct_index + 1) % len(quiz.bank[missed].choices)
    custom_id = f"tpq:t:{buttons(run)[0]['custom_id'].split(':')[2]}:{position}:{wrong}"
    await quiz.click(created_message_id(request), custom_id, member)
    return posted, missed


async def test_review_brings_misses_first_and_reschedules_them(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        posted, tested = await miss_two(quiz, alice)
        assert card_due(quiz, ALICE, posted) < card_due(quiz, ALICE, tested)

        # Before they are due, a round holds only new questions.
        quiz.clock.advance(days=1, minutes=30)
        request = await quiz.loopback.interact(quiz.command(alice, "review"))
        message, message_id = callback_message(request), created_message_id(request)
        assert message["flags"] & EPHEMERAL
        chosen = review_round(quiz, ALICE)
        assert chosen[:2] == [posted, tested]  # most overdue first
        assert len(chosen) == 10 and len(set(chosen)) == 10
        embed = message["embeds"][0]
        assert embed["title"] == "Review" and embed["author"]["name"] == "Question 1/10"
        assert quiz.bank[posted].text.en in embed["description"]
        assert all(b["custom_id"].startswith("tpq:r:") for b in buttons(message))
        first_row = message["components"]

        right_answers = 0
        for position, qid in enumerate(chosen):
            question = quiz.bank[qid]
            wrong_one = position == 1  # the test's miss is missed again
            pick = question.correct_index
            if wrong_one:
                pick = (pick + 1) % len(question.choices)
            reply = await quiz.click(message_id, choose(message, pick), alice)
            assert reply.body["type"] == 7  # the same ephemeral message moves on
            message = callback_message(reply)
            feedback, after = message["embeds"]
            fields = field_map(feedback)
            assert question.explanation.en in fields["Why"]
            assert question.choices[question.correct_index].text.en in fields["Right answer"]
            if wrong_one:
                assert feedback["title"] == "❌ Wrong."
                why_not = [name for name in fields if name.startswith("Why ") and "wrong" in name]
                assert why_not or question.choices[pick].feedback is None
            else:
                right_answers += 1
                assert feedback["title"] == "✅ Correct!"
            # Reviews of answered questions earn nothing; a first answer earns its point.
            awarded = 0 if position < 2 or wrong_one else 1
            assert feedback["footer"]["text"].startswith(f"+{awarded} points"), position
            if position < len(chosen) - 1:
                assert after["author"]["name"] == f"Question {position + 2}/10"
        assert after["title"] == f"Review finished: {right_answers}/10 right"
        [report] = buttons(message)  # the end carries only "Report a problem"
        assert report["custom_id"] == f"tpq:rp:r:{run_id({'components': first_row})}"
        assert "Cards due by tomorrow: 1; in the next 7 days: 10." in after["description"]
        assert re.search(r"falls due <t:\d+:R> \(<t:\d+:f>\)", after["description"])

        now = now_ms(quiz)
        assert card_due(quiz, ALICE, posted) >= now + 2 * DAY_MS  # right: days ahead
        assert card_due(quiz, ALICE, tested) == now + DAY_MS  # wrong: back tomorrow
        ((points,),) = rows(quiz, "SELECT points FROM members WHERE user_id = ?", ALICE)
        assert points == 8  # the eight new questions; the two reviews earned nothing

        # The next day the one missed again comes back first.
        quiz.clock.advance(days=1, minutes=1)
        request = await quiz.loopback.interact(quiz.command(alice, "review", locale="tr"))
        message = callback_message(request)
        assert review_round(quiz, ALICE)[0] == tested
        assert message["embeds"][0]["title"] == "Tekrar"
        assert quiz.bank[tested].text.tr in message["embeds"][0]["description"]


async def test_a_round_survives_a_restart_and_a_second_command_continues_it(
    quiz: QuizHarness,
) -> None:
    bob = quiz.member(BOB, "bob")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(bob, "review"))
        first_id, first = created_message_id(request), callback_message(request)
        chosen = review_round(quiz, BOB)
        await quiz.click(first_id, choose(first, quiz.bank[chosen[0]].correct_index), bob)
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(bob, "review"))
        second_id, second = created_message_id(request), callback_message(request)
        embed = second["embeds"][0]
        assert review_round(quiz, BOB) == chosen  # no second round
        assert "Continuing your open review round" in embed["description"]
        assert embed["author"]["name"] == "Question 2/10"
        assert quiz.bank[chosen[1]].text.en in embed["description"]
        # The first message's buttons (now on question 2) still answer after the restart.
        reply = await quiz.click(first_id, choose(first_now(quiz, first_id), 0), bob)
        assert callback_message(reply)["embeds"][1]["author"]["name"] == "Question 3/10"
        # The same question from the second message is its first answer, shown again.
        again = await quiz.click(second_id, choose(second, 1), bob)
        assert "You already answered" in callback_message(again)["embeds"][0]["description"]
        ((answers,),) = rows(quiz, "SELECT COUNT(*) FROM answers WHERE user_id = ?", BOB)
        assert answers == 2


async def test_five_review_commands_at_once_open_one_round_each_reply_continues(
    quiz: QuizHarness,
) -> None:
    """A double tap or two devices (issue 31): one round, whichever command wins."""
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        payloads = [quiz.command(alice, "review") for _ in range(5)]
        replies = await asyncio.gather(*(quiz.loopback.interact(p) for p in payloads))
        assert rows(quiz, "SELECT COUNT(*) FROM test_runs WHERE kind = 'review'") == [(1,)]
        ((round_id,),) = rows(quiz, "SELECT id FROM test_runs WHERE kind = 'review'")
        chosen = review_round(quiz, ALICE)
        messages = [callback_message(r) for r in replies]
        assert [run_id(m) for m in messages] == [round_id] * 5
        embeds = [m["embeds"][0] for m in messages]
        assert [e["author"]["name"] for e in embeds] == ["Question 1/10"] * 5
        assert all(quiz.bank[chosen[0]].text.en in e["description"] for e in embeds)
        continuing = ["Continuing your open review round" in e["description"] for e in embeds]
        assert sorted(continuing) == [False] + [True] * 4
        # The first question answered from two of the replies counts once.
        right = quiz.bank[chosen[0]].correct_index
        first = await quiz.click(created_message_id(replies[0]), choose(messages[0], right), alice)
        assert callback_message(first)["embeds"][0]["title"] == "✅ Correct!"
        again = await quiz.click(created_message_id(replies[3]), choose(messages[3], right), alice)
        assert "You already answered" in callback_message(again)["embeds"][0]["description"]
        assert rows(quiz, "SELECT COUNT(*), SUM(points) FROM answers WHERE user_id = ?", ALICE) == [
            (1, 1)
        ]
        assert rows(quiz, "SELECT reps FROM cards WHERE user_id = ?", ALICE) == [(1,)]


def first_now(quiz: QuizHarness, message_id: int) -> dict[str, Any]:
    """The message as the loopback holds it now (after the bot's edits)."""
    return quiz.loopback.messages[message_id]


async def test_someone_elses_round_and_a_forged_button_get_a_sentence(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "review"))
        message_id, message = created_message_id(request), callback_message(request)
        theirs = await quiz.click(message_id, buttons(message)[0]["custom_id"], bob)
        assert "belongs to someone else" in callback_message(theirs)["content"]
        click = quiz.loopback.button_click(message_id, buttons(message)[0]["custom_id"], alice)
        for custom_id, wanted in {
            "tpq:r:007:0:1": "This review round could not be found",
            f"tpq:r:{run_id(message)}:0:9": "That choice is not valid",
            "tpq:rs:12x": "This review round could not be found",
            # A review round is not a test: the test's buttons do not answer it.
            f"tpq:t:{run_id(message)}:0:0": "This test could not be found",
        }.items():
            forged = await quiz.loopback.interact(with_custom_id(quiz.loopback, click, custom_id))
            assert wanted in callback_message(forged)["content"], custom_id
    assert rows(quiz, "SELECT COUNT(*) FROM answers") == [(0,)]


async def test_a_computed_question_is_one_card_and_returns_with_its_own_numbers(
    quiz: QuizHarness,
) -> None:
    quiz.bank, quiz.templates = Bank.of([]), load_templates()  # only templates in the pool
    bob = quiz.member(BOB, "bob")
    async with quiz.bot():
        message_id, message = await post_question(quiz, bob)
        ids = [b["custom_id"] for b in buttons(message)]
        ((template_id, params),) = rows(quiz, "SELECT question_id, params FROM posts")
        posted = quiz.templates.question(template_id, params)
        wrong = next(c for c in ids if not c.endswith(f":{posted.correct_index}"))
        await quiz.click(message_id, wrong, bob)
        assert rows(quiz, "SELECT question_id, reps FROM cards") == [(template_id, 1)]

        quiz.clock.advance(days=1, minutes=1)
        request = await quiz.loopback.interact(quiz.command(bob, "review"))
        message, message_id = callback_message(request), created_message_id(request)
        assert review_round(quiz, BOB)[0] == template_id
        ((stored,),) = rows(quiz, "SELECT params FROM test_runs WHERE kind = 'review'")
        shown = quiz.templates.question(template_id, json.loads(stored)[0])
        assert shown.text.en in message["embeds"][0]["description"]
        reply = await quiz.click(message_id, choose(message, shown.correct_index), bob)
        feedback = callback_message(reply)["embeds"][0]
        assert feedback["title"] == "✅ Correct!"
        assert feedback["footer"]["text"].startswith("+0 points")  # answered before
        assert rows(
            quiz, "SELECT reps FROM cards WHERE user_id = ? AND question_id = ?", BOB, template_id
        ) == [(2,)]
