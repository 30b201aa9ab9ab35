"""End to end: "Report a problem" on answer replies, its modal and the limits (issue #13).

The modal the bot sends (callback type 9) is checked against Discord's OpenAPI schema by
the loopback like every other body; the submission is built from that modal as Discord
would send it (`LoopbackDiscord.modal_submit`).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from bot.quiz.reports import DAILY_LIMIT
from bot.services.quiz import to_ms
from bot.storage.sqlite.reports import add_report
from tests.e2e.conftest import (
    CHANNEL_ID,
    GUILD_ID,
    QuizHarness,
    buttons,
    callback_message,
    created_message_id,
)
from tests.e2e.test_quiz import answer_buttons, post_question

EPHEMERAL = 64
ALICE, BOB = 1_300_000_000_000_002_001, 1_300_000_000_000_002_002


def _reports(quiz: QuizHarness) -> list[tuple[Any, ...]]:
    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute(
            "SELECT guild_id, user_id, question_id, language, reason, body FROM reports ORDER BY id"
        ).fetchall()


async def _answered(quiz: QuizHarness, member: dict[str, Any], locale: str = "en-US"):
    """Post a question, answer it; (question id, the reply message id, the reply)."""
    message_id, message = await post_question(quiz, member)
    qid, _, right = answer_buttons(quiz, message)
    request = await quiz.click(message_id, right, member, locale=locale)
    return qid, created_message_id(request), callback_message(request)


async def _open_modal(
    quiz: QuizHarness, reply_id: int, reply: dict[str, Any], member, locale="en-US"
):
    [report] = [b for b in buttons(reply) if b["custom_id"].startswith("tpq:rp:")]
    request = await quiz.click(reply_id, report["custom_id"], member, locale=locale)
    assert request.body["type"] == 9  # a modal
    return report, request.body["data"]


async def _submit(quiz: QuizHarness, member, modal, values, locale="en-US") -> dict[str, Any]:
    payload = quiz.loopback.modal_submit(GUILD_ID, CHANNEL_ID, member, modal, values,
                                         locale=locale)  # fmt: skip
    request = await quiz.loopback.interact(payload)
    assert request.body["type"] == 4
    message = callback_message(request)
    assert message["flags"] & EPHEMERAL
    return message


async def test_report_from_a_post_reply_is_stored_once(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        qid, reply_id, reply = await _answered(quiz, alice, locale="tr")
        report, modal = await _open_modal(quiz, reply_id, reply, alice, locale="tr")
        assert report["label"] == "Sorun bildir"
        assert modal["title"] == "Soruyla ilgili bir sorun bildir"
        reason, body = (c["component"] for c in modal["components"])
        assert [o["value"] for o in reason["options"]] == [
            "wrong_answer", "unclear", "typo", "outdated", "other"]  # fmt: skip
        assert reason["options"][0]["label"] == "Cevap yanlış"
        assert (body["max_length"], body["required"]) == (500, False)

        text = "<@&1> @everyone **B** [link](https://example.com) is right"
        thanks = await _submit(quiz, alice, modal, {"reason": ["wrong_answer"], "body": text},
                               locale="tr")  # fmt: skip
        assert thanks["content"].startswith("Teşekkürler!")
        assert _reports(quiz) == [(GUILD_ID, ALICE, qid, "tr", "wrong_answer", text)]

        # The same question again: refused, in the member's language.
        again = await _submit(quiz, alice, modal, {"reason": ["typo"]})
        assert (
            again["content"]
            == "You already reported this question; one report per question is enough."
        )
        assert len(_reports(quiz)) == 1


async def test_the_daily_limit_and_a_forged_reason(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot():
        qid, reply_id, reply = await _answered(quiz, alice)
        _, modal = await _open_modal(quiz, reply_id, reply, alice)
        # Bob's forged submission with a reason the modal does not offer.
        forged = dict(modal, components=[dict(c) for c in modal["components"]])
        forged["components"][0] = {
            **forged["components"][0],
            "component": {**forged["components"][0]["component"], "options": [{"label": "x", "value": "spam"}]},
        }  # fmt: skip
        refused = await _submit(quiz, bob, forged, {"reason": ["spam"]})
        assert refused["content"] == "That reason is not valid; pick one from the list."
        # Alice filed five reports in the last hours: the sixth is refused.
        now = to_ms(quiz.clock())
        with sqlite3.connect(quiz.db_path, isolation_level=None) as conn:
            for i in range(DAILY_LIMIT):
                add_report(conn, guild_id=GUILD_ID, user_id=ALICE, question_id=f"other-{i}",
                           language="en", reason="unclear", body="", now_ms=now - 3_600_000)  # fmt: skip
        limited = await _submit(quiz, alice, modal, {"reason": ["unclear"]})
        assert limited["content"].startswith("You sent 5 reports in the last 24 hours")
        quiz.clock.advance(hours=23)
        thanks = await _submit(quiz, alice, modal, {"reason": ["unclear"]})
        assert thanks["content"].startswith("Thank you!")
        assert _reports(quiz)[-1][:3] == (GUILD_ID, ALICE, qid)


async def test_report_from_the_test_end_names_the_question_and_survives_a_restart(
    quiz: QuizHarness,
) -> None:
    alice = quiz.member(ALICE, "alice")
    starting = quiz.bank.tagged("starting")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "test"))
        message_id = created_message_id(request)
        message = callback_message(request)
        for question in starting:
            ids = [b["custom_id"] for b in buttons(message)]
            pick = next(c for c in ids if c.endswith(f":{question.correct_index}"))
            message = callback_message(await quiz.click(message_id, pick, alice))
        [report] = buttons(message)  # the summary carries the report button only
        assert report["custom_id"].startswith("tpq:rp:t:") and report["label"] == "Report a problem"
        request = await quiz.click(message_id, report["custom_id"], alice)
        modal = request.body["data"]
        which = modal["components"][0]["component"]
        assert [o["value"] for o in which["options"]] == [str(i) for i in range(len(starting))]
        assert which["options"][2]["label"].startswith(f"3. {starting[2].text.en}"[:100])
    async with quiz.bot():  # the modal was still open when the bot restarted
        thanks = await _submit(quiz, alice, modal, {"which": ["2"], "reason": ["outdated"],
                                                    "body": "old numbers"})  # fmt: skip
        assert thanks["content"].startswith("Thank you!")
    assert _reports(quiz) == [(GUILD_ID, ALICE, starting[2].id, "en", "outdated", "old numbers")]


async def test_report_from_a_review_rounds_end_names_the_question(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "review", locale="tr"))
        message_id, message = created_message_id(request), callback_message(request)
        run = int(buttons(message)[0]["custom_id"].split(":")[2])
        with sqlite3.connect(quiz.db_path) as conn:
            ((ids,),) = conn.execute("SELECT question_ids FROM test_runs WHERE id = ?", (run,))
        round_ids = json.loads(ids)
        while not buttons(message)[0]["custom_id"].startswith("tpq:rp:"):
            message = callback_message(
                await quiz.click(message_id, buttons(message)[0]["custom_id"], alice, locale="tr")
            )
        [report] = buttons(message)
        assert (report["custom_id"], report["label"]) == (f"tpq:rp:r:{run}", "Sorun bildir")
        # Someone else's click on it (or a forged one) gets a sentence, not the modal.
        theirs = await quiz.click(message_id, report["custom_id"], bob)
        assert theirs.body["type"] == 4
        assert callback_message(theirs)["content"].startswith(
            "This review round belongs to someone else."
        )
        request = await quiz.click(message_id, report["custom_id"], alice, locale="tr")
        assert request.body["type"] == 9
        modal = request.body["data"]
        which = modal["components"][0]["component"]
        assert len(which["options"]) == len(round_ids)
        thanks = await _submit(quiz, alice, modal, {"which": ["1"], "reason": ["unclear"]},
                               locale="tr")  # fmt: skip
        assert thanks["content"].startswith("Teşekkürler!")
    assert _reports(quiz) == [(GUILD_ID, ALICE, round_ids[1], "tr", "unclear", "")]
