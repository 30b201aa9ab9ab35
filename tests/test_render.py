"""Every bundled question renders inside Discord's limits, in both languages."""

from __future__ import annotations

import random

import discord
import pytest

from bot.bank.loader import load_bank
from bot.quiz.model import LANGS, Bank
from bot.quiz.picking import shuffled_order
from bot.quiz.scoring import AnswerResult, MemberScore
from bot.quiz.testrun import TestAnswer
from bot.ui import render

# https://discord.com/developers/docs/resources/message#embed-object-embed-limits
TITLE, DESCRIPTION, FIELD_NAME, FIELD_VALUE, FOOTER, TOTAL, FIELDS = (
    256,
    4096,
    256,
    1024,
    2048,
    6000,
    25,
)


def check_embed(embed: discord.Embed) -> None:
    data = embed.to_dict()
    assert len(data.get("title", "")) <= TITLE
    assert len(data.get("description", "")) <= DESCRIPTION
    fields = data.get("fields", [])
    assert len(fields) <= FIELDS
    for field in fields:
        assert 0 < len(field["name"]) <= FIELD_NAME
        assert 0 < len(field["value"]) <= FIELD_VALUE
    assert len(data.get("footer", {}).get("text", "")) <= FOOTER
    assert len(embed) <= TOTAL


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank()


def test_every_question_renders_within_limits(bank: Bank) -> None:
    rng = random.Random(0)
    score = MemberScore(1, "x" * 32, 10_000, 20_000, 10_000, 500, 900)
    for question in bank:
        order = shuffled_order(len(question.choices), rng)
        for lang in LANGS:
            check_embed(render.question_embed(question, order, lang, answered=99_999))
            check_embed(render.closed_embed(question, order, lang))
            for choice in range(len(question.choices)):
                result = AnswerResult(
                    question.id, choice, choice == question.correct_index, 0, True, score, 99_999
                )
                check_embed(render.answer_embed(question, order, result, lang))


def test_the_starting_quiz_summary_respects_message_limits(bank: Bank) -> None:
    starting = bank.tagged("starting")
    assert len(starting) == 8
    for lang in LANGS:
        # Every answer wrong: the longest summary, with feedback on each question.
        summary = [
            TestAnswer(q, tuple(range(len(q.choices))), (q.correct_index + 1) % len(q.choices))
            for q in starting
        ]
        messages = render.test_summary_messages(summary, lang)
        assert sum(len(m) for m in messages) == 9  # the score and one embed per question
        for embeds in messages:
            assert len(embeds) <= 10
            assert sum(len(e) for e in embeds) <= TOTAL
            for embed in embeds:
                check_embed(embed)


def test_every_template_draw_renders_within_limits() -> None:
    """Computed questions: 10 draws of each template, every embed a post can show."""
    from datetime import date

    from bot.bank.template_files import load_templates
    from bot.storage.records import Post

    rng = random.Random(1)
    score = MemberScore(1, "x" * 32, 10_000, 20_000, 10_000, 500, 900)
    for template in load_templates():
        for _ in range(10):
            question = template.materialize(template.draw(rng))
            order = shuffled_order(len(question.choices), rng)
            for lang in LANGS:
                post = Post(1, 1, 1, 1, question.id, order, lang, "daily", 0, 0, 0, 9, "2026-12-02")
                check_embed(render.question_embed(question, order, lang, answered=99_999))
                check_embed(
                    render.daily_embed(question, order, lang, day=date(2026, 12, 2), closes_at_ms=0)
                )
                check_embed(render.reveal_embed(post, question, {i: 99_999 for i in order}))
                check_embed(render.closed_embed(question, order, lang))
                for choice in range(len(question.choices)):
                    result = AnswerResult(
                        question.id, choice, choice == question.correct_index, 0, True, score, 9
                    )
                    check_embed(render.answer_embed(question, order, result, lang))


# -- topics by name (issue 32) -------------------------------------------------------------


def test_every_post_and_the_admins_view_name_the_topic_never_its_slug(bank: Bank) -> None:
    from datetime import date

    from bot.storage.records import Post
    from bot.ui import render_items

    question = bank["attention-split-01"]
    order = tuple(range(len(question.choices)))
    expected = {
        "tr": f"Konu: Attention'ın bölünmesi · Zorluk: {question.difficulty}/3",
        "en": f"Topic: Splitting attention · Difficulty: {question.difficulty}/3",
    }
    for lang in LANGS:
        post = Post(1, 1, 1, 1, question.id, order, lang, "daily", 0, 0, 0, 9, "2026-12-02")
        embeds = [
            render.question_embed(question, order, lang),
            render.daily_embed(question, order, lang, day=date(2026, 12, 2), closes_at_ms=0),
            render.reveal_embed(post, question, {0: 3, 1: 1}),
            render_items.question_embed(question, None, [], lang),
        ]
        for embed in embeds:
            check_embed(embed)
            footer = embed.to_dict()["footer"]["text"]
            assert footer.startswith(expected[lang]), footer
            assert "attention-split" not in footer


def test_stats_name_each_topic_and_the_weakest_in_the_readers_language() -> None:
    from bot.services.quiz import StatsReport
    from bot.storage.records import MemberStats

    per_topic = {"rng-and-dropout": (4, 1), "basics": (2, 2), "vs-other-parallelism": (5, 2)}
    stats = MemberStats(MemberScore(1, "ayşe", 5, 11, 5), 3, per_topic, None)
    report = StatsReport(stats, ["rng-and-dropout", "vs-other-parallelism"])
    expected = {
        "tr": (
            "Konulara göre isabet",
            "Temel kavramlar: 100% (2/2)\nTP ve diğer paralellikler: 40% (2/5)\n"
            "RNG ve dropout: 25% (1/4)",
            "En zayıf konular",
            "RNG ve dropout, TP ve diğer paralellikler",
        ),
        "en": (
            "Accuracy by topic",
            "Basics: 100% (2/2)\nTP vs. other parallelism: 40% (2/5)\nRNG and dropout: 25% (1/4)",
            "Weakest topics",
            "RNG and dropout, TP vs. other parallelism",
        ),
    }
    for lang in LANGS:
        embed = render.stats_embed("ayşe", report, lang)
        check_embed(embed)
        fields = {f.name: f.value for f in embed.fields}
        by_topic, listed, weakest, named = expected[lang]
        assert (fields[by_topic], fields[weakest]) == (listed, named)
