"""A click that waited past Discord's 3-second window (issue 30): not recorded as a
scored answer its member never saw.

Under overload a click can wait before its handler runs (the gateway's backlog, a busy
event loop). Its id carries its creation time, so here the wait is built into the id:
the click is dispatched as Discord would deliver it after that wait, with no sleeping.
A click already 3.5 s old is not answered (Discord would refuse any reply) and its
answer is not written; one 2.2 s old is deferred at once (the defer moment, 2 s after
creation, has passed) and its answer follows as a followup, recorded.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from typing import Any

import pytest

from tests.e2e.conftest import QuizHarness, callback_message
from tests.e2e.test_quiz import answer_buttons, count_answers, post_question
from tests.loopback.server import CALLBACK_ROUTE, DISCORD_EPOCH_MS, FOLLOWUP_ROUTE

ALICE, BOB, CAROL = 1_300_000_000_000_003_001, 1_300_000_000_000_003_002, 1_300_000_000_000_003_003
EPHEMERAL = 64


def waited(payload: dict[str, Any], seconds: float) -> dict[str, Any]:
    """`payload` as Discord delivers it after `seconds` in a queue: its id (its creation
    time) that much older. The loopback records the interaction under this id."""
    created_ms = int((time.time() - seconds) * 1000)
    payload["id"] = str((created_ms - DISCORD_EPOCH_MS) << 22)
    return payload


async def test_a_click_past_three_seconds_is_neither_answered_nor_recorded(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="bot.ui.responses")
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot() as bot:
        message_id, message = await post_question(quiz, alice)
        _, _, right = answer_buttons(quiz, message)
        since = len(quiz.loopback.requests)
        late = waited(quiz.loopback.button_click(message_id, right, alice), 3.5)
        await quiz.loopback.dispatch("INTERACTION_CREATE", late)
        # A fresh click after it: handlers start in the order Discord delivered them,
        # and the late one is refused before its first await, so once Bob is answered
        # Alice's click has been dealt with.
        fresh = callback_message(await quiz.click(message_id, right, bob))
        assert fresh["embeds"][0]["title"] == "✅ Correct!"
        assert bot.metrics.value("tpquiz_interactions_expired_total") == 1
    assert f"interaction {late['id']} expired before it was answered" in caplog.text
    assert count_answers(quiz, ALICE) == 0
    assert count_answers(quiz, BOB) == 1
    answered = {r.params.get("interaction_id") for r in quiz.loopback.requests[since:]}
    assert late["id"] not in answered  # no callback: Discord would have refused it
    with sqlite3.connect(quiz.db_path) as conn:
        assert conn.execute(
            "SELECT COALESCE(SUM(points), 0) FROM answers WHERE user_id = ?", (ALICE,)
        ).fetchone() == (0,)


async def test_a_click_past_its_defer_moment_is_deferred_at_once_and_recorded(
    quiz: QuizHarness,
) -> None:
    carol = quiz.member(CAROL, "carol")
    async with quiz.bot():
        message_id, message = await post_question(quiz, carol)
        _, _, right = answer_buttons(quiz, message)
        payload = waited(quiz.loopback.button_click(message_id, right, carol), 2.2)
        callback = await quiz.loopback.interact(payload)
        assert callback.route == CALLBACK_ROUTE
        assert callback.body["type"] == 5  # deferred, "thinking": Discord keeps waiting
        assert callback.body["data"]["flags"] & EPHEMERAL
        followup = await quiz.loopback.wait_for(
            lambda r: r.method == "POST" and r.route == FOLLOWUP_ROUTE and r.status == 200,
            since=callback.index,
        )
        assert followup.body["embeds"][0]["title"] == "✅ Correct!"
    assert count_answers(quiz, CAROL) == 1


async def test_a_click_whose_window_closes_while_it_queues_is_not_recorded(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    """The database is held (a batch on its thread, as under overload or a backup's
    lock), Bob's click is in that batch and Carol's queues behind it. Carol's defer comes
    when Discord has closed her window (the loopback refuses it, 10062): the bot gives
    her click up while it is still queued, so it is never written; Bob's commits."""
    caplog.set_level(logging.WARNING, logger="bot.ui.responses")
    alice, bob, carol = (quiz.member(u, n) for u, n in ((ALICE, "a"), (BOB, "b"), (CAROL, "c")))
    async with quiz.bot() as bot:
        message_id, message = await post_question(quiz, alice)
        _, _, right = answer_buttons(quiz, message)
        clicks = bot.storage.answers.clicks  # type: ignore[attr-defined]  (SQLite's group commit)
        real = clicks.db
        entered, release = asyncio.Event(), asyncio.Event()

        class Held:
            async def run_transaction(self, work: Any) -> Any:
                entered.set()
                await release.wait()
                return await real.run_transaction(work)

        clicks.db = Held()
        try:
            first = quiz.loopback.button_click(message_id, right, bob)
            await quiz.loopback.dispatch("INTERACTION_CREATE", first)
            await entered.wait()  # Bob's batch holds the database thread
            late = waited(quiz.loopback.button_click(message_id, right, carol), 2.2)
            quiz.loopback.expire(late["id"])  # Discord's window for it closes meanwhile
            refused = await quiz.loopback.interact(late)
            assert (refused.status, refused.response.get("code")) == (404, 10062)
            assert refused.body["type"] == 5  # the bot tried to defer, at once
            ((work, queued),) = clicks._queue  # Carol's click, waiting for the next batch
            async with asyncio.timeout(10):  # a click not given up would wait forever
                await asyncio.wait({queued})  # given up by the bot: cancelled, not written
            assert queued.cancelled()
        finally:
            release.set()
        answered = await quiz.loopback.wait_for(
            lambda r: (
                r.route in (CALLBACK_ROUTE, FOLLOWUP_ROUTE)
                and r.status == 200
                and r.body.get("type") in (4, None)
                and bool((r.body.get("data") or r.body).get("embeds"))
            ),
            since=refused.index,
        )
        assert answered.status == 200
        clicks.db = real
    assert count_answers(quiz, BOB) == 1
    assert count_answers(quiz, CAROL) == 0
    assert f"interaction {late['id']} expired before it was answered" in caplog.text
