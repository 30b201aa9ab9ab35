"""End to end (issue 29): figures reach members as attachments their embeds point at.

The real discord.py client against the loopback Discord, whose every request body (the
`payload_json` of a multipart upload included) is checked against Discord's OpenAPI
description. A post carries its question's figure once (with the alt text as the
attachment's description) and keeps it through the count edits; an answer reply offers
"Diagram", which sends the explanation's figure, also after a restart; the test's summary,
review feedback and the daily reveal carry the explanation's figures.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from typing import Any

import pytest

from bot.bank.figure_checks import png_size
from bot.quiz.model import Bank
from tests.e2e.conftest import (
    QuizHarness,
    buttons,
    callback_message,
    created_message_id,
)
from tests.e2e.forged import with_custom_id
from tests.e2e.test_daily import DAILY_CHANNEL, admin, channel_posts, setup_guild, started, utc
from tests.loopback.server import (
    CHANNEL_MESSAGE_ROUTE,
    FOLLOWUP_ROUTE,
    RecordedRequest,
)

ALICE, BOB = 1_300_000_000_000_029_001, 1_300_000_000_000_029_002
EPHEMERAL = 64


def only(quiz: QuizHarness, *ids: str) -> QuizHarness:
    """The harness with a bank of just these questions of the bundled bank."""
    return dataclasses.replace(quiz, bank=Bank.of(quiz.bank[i] for i in ids))


async def final(quiz: QuizHarness, request: RecordedRequest) -> RecordedRequest:
    """The request that carried the reply: the callback, or the followup after a deferral."""
    if request.body["type"] != 5:
        return request
    return await quiz.loopback.wait_for(
        lambda r: r.route == FOLLOWUP_ROUTE and r.method == "POST", since=request.index
    )


def payload(request: RecordedRequest) -> dict[str, Any]:
    body = request.body
    return body["data"] if "data" in body and "type" in body else body


def assert_figure(request: RecordedRequest, filename: str, alt: str) -> None:
    """One PNG of 800 px named `filename`, described by `alt`, that an embed shows."""
    names = [f.filename for f in request.files]
    assert filename in names, names
    upload = request.files[names.index(filename)]
    assert png_size(upload.data)[0] == 800 and len(upload.data) < 200 * 1024
    body = payload(request)
    described = {a["filename"]: a.get("description") for a in body["attachments"]}
    assert described[filename] == alt
    images = [e.get("image", {}).get("url") for e in body["embeds"]]
    assert f"attachment://{filename}" in images


def rows(quiz: QuizHarness, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute(sql, args).fetchall()


async def test_a_post_carries_its_figure_once_and_keeps_it_through_count_edits(
    quiz: QuizHarness,
) -> None:
    quiz = only(quiz, "mlp-split-07")
    question = quiz.bank["mlp-split-07"]
    assert question.figure is not None
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "question"))
        assert_figure(request, "figure-mlp-split-07.png", question.figure.alt.en)
        assert len(request.files) == 1
        message = callback_message(request)
        ids = [b["custom_id"] for b in buttons(message)]
        await quiz.click(created_message_id(request), ids[0], alice)
        edit = await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE
        )
        # The count edit uploads nothing and leaves the attachment where it is.
        assert edit.files == [] and "attachments" not in edit.body
        assert edit.body["embeds"][0]["image"]["url"] == "attachment://figure-mlp-split-07.png"


async def test_a_turkish_server_gets_the_turkish_figure(quiz: QuizHarness) -> None:
    quiz = only(quiz, "mlp-split-07")
    alt = quiz.bank["mlp-split-07"].figure.alt.tr  # type: ignore[union-attr]
    async with quiz.bot():
        request = await quiz.loopback.interact(
            quiz.command(quiz.member(ALICE, "alice"), "question", guild_locale="tr")
        )
        assert_figure(request, "figure-mlp-split-07.png", alt)


async def test_the_diagram_button_sends_the_explanation_figure_also_after_a_restart(
    quiz: QuizHarness,
) -> None:
    quiz = only(quiz, "start-02")
    question = quiz.bank["start-02"]
    assert question.figure is None and question.explanation_figure is not None
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot() as bot:
        request = await quiz.loopback.interact(quiz.command(alice, "question"))
        assert request.files == [] and "image" not in callback_message(request)["embeds"][0]
        post_message = created_message_id(request)
        ids = [b["custom_id"] for b in buttons(callback_message(request))]
        answer = await quiz.click(post_message, ids[0], alice)
        reply = callback_message(answer)
        assert answer.files == [], "the answer reply uploads nothing until asked"
        labels = {b["label"]: b["custom_id"] for b in buttons(reply)}
        diagram = labels["Diagram"]
        assert diagram.startswith("tpq:d:") and "Report a problem" in labels
        shown = await final(quiz, await quiz.click(created_message_id(answer), diagram, alice))
        assert payload(shown)["flags"] & EPHEMERAL
        assert_figure(shown, "explanation-start-02.png", question.explanation_figure.alt.en)
        assert bot.figures.draws == 1

        # Bob, in Turkish: his own language's picture.
        answer = await quiz.click(post_message, ids[1], bob, locale="tr")
        (tr_diagram,) = [b for b in buttons(callback_message(answer)) if b["custom_id"] == diagram]
        assert tr_diagram["label"] == "Diyagram"
        shown = await final(
            quiz, await quiz.click(created_message_id(answer), diagram, bob, locale="tr")
        )
        assert_figure(shown, "explanation-start-02.png", question.explanation_figure.alt.tr)

    async with quiz.bot() as bot:  # a new process: the button still works
        shown = await final(quiz, await quiz.click(created_message_id(answer), diagram, bob))
        assert_figure(shown, "explanation-start-02.png", question.explanation_figure.alt.en)
        # A forged post number is refused in one sentence, with no upload.
        click = quiz.loopback.button_click(created_message_id(answer), diagram, bob)
        for forged_id, sentence in (
            ("tpq:d:x1", "can no longer be found"),
            (f"tpq:d:{int(diagram.split(':')[2]) + 999}", "can no longer be found"),
        ):
            refused = await quiz.loopback.interact(with_custom_id(quiz.loopback, click, forged_id))
            assert refused.files == [] and sentence in callback_message(refused)["content"]


async def test_many_diagram_clicks_draw_once(quiz: QuizHarness) -> None:
    quiz = only(quiz, "start-05")
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot() as bot:
        request = await quiz.loopback.interact(quiz.command(alice, "question"))
        ids = [b["custom_id"] for b in buttons(callback_message(request))]
        answer = await quiz.click(created_message_id(request), ids[0], alice)
        diagram = next(
            b["custom_id"] for b in buttons(callback_message(answer)) if b["label"] == "Diagram"
        )
        for _ in range(20):
            await quiz.click(created_message_id(answer), diagram, alice)
        assert (bot.figures.draws, bot.figures.hits) == (1, 19)


async def test_the_test_summary_shows_every_explanation_figure(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "test"))
        first_question = quiz.bank[
            json.loads(rows(quiz, "SELECT question_ids FROM test_runs")[0][0])[0]
        ]
        message_id, message = created_message_id(request), callback_message(request)
        assert request.files == [] or first_question.figure is not None
        last = request
        while buttons(message) and buttons(message)[0]["custom_id"].startswith("tpq:t:"):
            last = await quiz.click(message_id, buttons(message)[0]["custom_id"], alice)
            message = callback_message(last)
        since = last.index
        followups = []
        summary_embeds = len(message["embeds"])
        while summary_embeds < 9:  # the score and eight questions, over several messages
            followup = await quiz.loopback.wait_for(
                lambda r: r.route == FOLLOWUP_ROUTE and r.method == "POST", since=since
            )
            followups.append(followup)
            summary_embeds += len(followup.body["embeds"])
            since = followup.index + 1
        uploads = [*last.files, *(f for r in followups for f in r.files)]
        starting = quiz.bank.tagged("starting")
        assert sorted(u.filename for u in uploads) == sorted(
            f"explanation-{q.id}.png" for q in starting
        )
        for q in starting:
            carrier = next(
                r
                for r in (last, *followups)
                if f"explanation-{q.id}.png" in [f.filename for f in r.files]
            )
            assert_figure(carrier, f"explanation-{q.id}.png", q.explanation_figure.alt.en)  # type: ignore[union-attr]


async def test_review_feedback_carries_the_explanation_figure(quiz: QuizHarness) -> None:
    quiz = only(quiz, "start-04", "start-07")
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "question"))
        qid = rows(quiz, "SELECT question_id FROM posts")[0][0]
        wrong = (quiz.bank[qid].correct_index + 1) % len(quiz.bank[qid].choices)
        ids = [b["custom_id"] for b in buttons(callback_message(request))]
        await quiz.click(
            created_message_id(request), next(c for c in ids if c.endswith(f":{wrong}")), alice
        )
        quiz.clock.advance(days=1, hours=1)
        opened = await final(quiz, await quiz.loopback.interact(quiz.command(alice, "review")))
        round_message = payload(opened)
        (choice,) = [b["custom_id"] for b in buttons(round_message)][:1]
        step = await quiz.click(created_message_id(opened), choice, alice)
        assert_figure(step, f"explanation-{qid}.png", quiz.bank[qid].explanation_figure.alt.en)  # type: ignore[union-attr]


@pytest.mark.parametrize("qid", ["start-04", "mlp-split-07"])
async def test_the_daily_post_and_reveal_show_the_figures(quiz: QuizHarness, qid: str) -> None:
    """start-04 has an explanation figure (the reveal swaps it in), mlp-split-07 a question
    figure (on the post, and kept by the reveal)."""
    quiz = only(quiz, qid)
    setup_guild(quiz)
    quiz.clock.now = utc(2026, 12, 2, 8)
    async with quiz.bot() as bot:
        cog = await started(bot)
        await admin(quiz, "daily channel", {"channel": DAILY_CHANNEL, "time": "09:00"})
        quiz.clock.now = utc(2026, 12, 2, 9)
        await cog.run_due(quiz.clock.now)
        quiz.clock.now = utc(2026, 12, 3, 9)
        await cog.run_due(quiz.clock.now)
        first, second = channel_posts(quiz)
        posted = [rows(quiz, "SELECT question_id FROM posts ORDER BY id")[i][0] for i in (0, 1)]
        for request, qid in zip((first, second), posted, strict=True):
            ref = quiz.bank[qid].figure
            if ref is not None:  # the question's figure rides on the daily post
                assert_figure(request, f"figure-{qid}.png", ref.alt.en)
            else:
                assert request.files == []
        reveal = await quiz.loopback.wait_for(
            lambda r: (
                r.method == "PATCH"
                and r.route == CHANNEL_MESSAGE_ROUTE
                and "closed" in r.body["embeds"][0]["title"]
            )
        )
        explained = quiz.bank[posted[0]].explanation_figure
        if explained is not None:
            assert_figure(reveal, f"explanation-{posted[0]}.png", explained.alt.en)
        else:  # nothing to add: the question's figure stays, nothing is uploaded again
            assert reveal.files == [] and "attachments" not in reveal.body
            assert (
                reveal.body["embeds"][0]["image"]["url"] == f"attachment://figure-{posted[0]}.png"
            )


async def test_no_diagram_button_without_an_explanation_figure(quiz: QuizHarness) -> None:
    quiz = only(quiz, "mlp-split-07")
    assert quiz.bank["mlp-split-07"].explanation_figure is None
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "question"))
        ids = [b["custom_id"] for b in buttons(callback_message(request))]
        answer = await quiz.click(created_message_id(request), ids[0], alice)
        reply_buttons = buttons(callback_message(answer))
        assert [b["label"] for b in reply_buttons] == ["Report a problem"]
        # A Diagram click forged for this post: one sentence, nothing uploaded.
        post_id = ids[0].split(":")[2]
        click = quiz.loopback.button_click(
            created_message_id(answer), reply_buttons[0]["custom_id"], alice
        )
        refused = await quiz.loopback.interact(
            with_custom_id(quiz.loopback, click, f"tpq:d:{post_id}")
        )
        assert refused.files == []
        assert callback_message(refused)["content"] == "This question's explanation has no diagram."


async def test_a_review_round_shows_the_question_figure_and_drops_it_after(
    quiz: QuizHarness,
) -> None:
    quiz = only(quiz, "mlp-split-07")
    question = quiz.bank["mlp-split-07"]
    assert question.figure is not None and question.explanation_figure is None
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "question"))
        wrong = (question.correct_index + 1) % len(question.choices)
        ids = [b["custom_id"] for b in buttons(callback_message(request))]
        await quiz.click(
            created_message_id(request), next(c for c in ids if c.endswith(f":{wrong}")), alice
        )
        quiz.clock.advance(days=1, hours=1)
        opened = await final(quiz, await quiz.loopback.interact(quiz.command(alice, "review")))
        assert_figure(opened, "figure-mlp-split-07.png", question.figure.alt.en)
        choice = buttons(payload(opened))[0]["custom_id"]
        step = await quiz.click(created_message_id(opened), choice, alice)
        # The feedback and the round's end show no figure: the question's is taken away.
        assert step.files == [] and payload(step)["attachments"] == []
        assert all("image" not in e for e in payload(step)["embeds"])
