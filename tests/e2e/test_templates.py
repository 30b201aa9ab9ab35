"""End to end: computed questions (templates) through the loopback Discord.

The pool holds only templates here, so every post is computed. The numbers a post shows
must be the ones in the click reply, after a bot restart too, and in the daily reveal.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.bank.template_files import load_templates
from bot.quiz.model import Bank, Question
from bot.quiz.templates import TemplateSet
from tests.e2e.conftest import QuizHarness, buttons, callback_message, created_message_id
from tests.e2e.test_daily import DAILY_CHANNEL, admin, channel_posts, setup_guild, started
from tests.loopback.server import CHANNEL_MESSAGE_ROUTE

ALICE, BOB = 1_300_000_000_000_003_001, 1_300_000_000_000_003_002
TEMPLATES = load_templates()
CUSTOM_ID_LIMIT = 100
#: A number as the posts write them: 1,234.5 / 1.234,5 / 2048×16384.
NUMBER = re.compile(r"[0-9][0-9.,×]*")


@pytest.fixture
def computed(quiz: QuizHarness) -> QuizHarness:
    quiz.bank = Bank.of([])  # only templates in the pool
    quiz.templates = TEMPLATES
    return quiz


def stored(quiz: QuizHarness, post_id: int) -> Question:
    """The question a post shows, rebuilt from what the database holds for it."""
    with sqlite3.connect(quiz.db_path) as conn:
        qid, params = conn.execute(
            "SELECT question_id, params FROM posts WHERE id = ?", (post_id,)
        ).fetchone()
    assert isinstance(quiz.templates, TemplateSet)
    return quiz.templates.question(qid, params)


def numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def field_map(embed: dict[str, Any]) -> dict[str, str]:
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


def right_and_wrong(message: dict[str, Any], question: Question) -> tuple[str, str, list[str]]:
    ids = [b["custom_id"] for b in buttons(message)]
    assert all(len(c) <= CUSTOM_ID_LIMIT for c in ids)
    right = next(c for c in ids if c.endswith(f":{question.correct_index}"))
    return right, next(c for c in ids if c != right), ids


async def test_a_computed_post_the_reply_and_a_restart_show_the_same_numbers(
    computed: QuizHarness,
) -> None:
    quiz = computed
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "question"))
        message_id, message = created_message_id(request), callback_message(request)
        question = stored(quiz, _post_id(message))
        right, wrong, ids = right_and_wrong(message, question)
        assert question.id in TEMPLATES
        description = message["embeds"][0]["description"]
        assert question.text.en in description
        for pos, custom_id in enumerate(ids):
            choice = question.choices[int(custom_id.rsplit(":", 1)[1])]
            assert f"**{'ABCD'[pos]}.** {choice.text.en}" in description

        reply = callback_message(await quiz.click(message_id, right, alice))["embeds"][0]
        assert reply["title"] == "✅ Correct!"
        assert reply["description"] == question.text.en
        fields = field_map(reply)
        assert question.choices[question.correct_index].text.en in fields["Right answer"]
        assert fields["Why"] == question.explanation.en
        assert numbers(question.text.en) == numbers(description.split("\n\n")[0])

    async with quiz.bot():  # a restart: another process, another random source
        reply = callback_message(await quiz.click(message_id, wrong, bob, locale="tr"))
        answer = reply["embeds"][0]
        assert answer["title"] == "❌ Yanlış."
        assert answer["description"] == question.text.tr
        fields = field_map(answer)
        chosen = question.choices[int(wrong.rsplit(":", 1)[1])]
        letter = "ABCD"[ids.index(wrong)]
        assert chosen.feedback is not None
        assert fields[f"{letter} neden yanlış"] == chosen.feedback.tr
        assert fields["Neden"] == question.explanation.tr
        assert question.choices[question.correct_index].text.tr in fields["Doğru cevap"]


async def test_topic_option_picks_a_template_of_that_topic(computed: QuizHarness) -> None:
    quiz = computed
    alice = quiz.member(ALICE, "alice")
    topic = next(iter(TEMPLATES)).topic
    async with quiz.bot():
        for _ in range(3):
            request = await quiz.loopback.interact(
                quiz.command(alice, "question", {"topic": topic})
            )
            message = callback_message(request)
            assert stored(quiz, _post_id(message)).topic == topic


async def test_a_computed_daily_post_is_revealed_with_its_own_numbers(
    computed: QuizHarness,
) -> None:
    quiz = computed
    setup_guild(quiz)
    alice = quiz.member(ALICE, "alice")
    quiz.clock.now = datetime(2026, 12, 2, 8, tzinfo=UTC)
    async with quiz.bot() as bot:
        cog = await started(bot)
        await admin(quiz, "daily channel", {"channel": DAILY_CHANNEL, "time": "09:00"})
        quiz.clock.now = datetime(2026, 12, 2, 9, tzinfo=UTC)
        await cog.run_due(quiz.clock.now)
        (first,) = channel_posts(quiz)
        question = stored(quiz, _post_id(first.body))
        assert question.text.en in first.body["embeds"][0]["description"]
        message_id = int(first.response["id"])
        right, _, _ = right_and_wrong(first.body, question)
        await quiz.click(message_id, right, alice)

    async with quiz.bot() as bot:  # restart before the reveal
        cog = await started(bot)
        since = len(quiz.loopback.requests)
        quiz.clock.now = datetime(2026, 12, 3, 9, tzinfo=UTC)
        await cog.run_due(quiz.clock.now)
        reveal = await quiz.loopback.wait_for(
            lambda r: (
                r.method == "PATCH"
                and r.route == CHANNEL_MESSAGE_ROUTE
                and int(r.params["message_id"]) == message_id
                and "closed" in r.body["embeds"][0]["title"]
            ),
            since=since,
        )
        shown = reveal.body["embeds"][0]
        assert shown["description"].startswith(question.text.en)
        for choice in question.choices:
            assert choice.text.en in shown["description"]
        assert field_map(shown)["Why"] == question.explanation.en


def _post_id(message: dict[str, Any]) -> int:
    return int(buttons(message)[0]["custom_id"].split(":")[2])
