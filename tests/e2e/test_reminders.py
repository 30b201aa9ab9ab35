"""End to end: opt-in review reminders by DM, on the loopback Discord with a moved clock.

The tick is the cog's `run_due(now)`, called by the test with the bot's clock moved, as
tests/e2e/test_daily.py does for daily posts; nothing sleeps to synchronise.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime
from typing import Any, cast

from cogs.reminders import ReminderCog
from tests.e2e.conftest import GUILD_ID, QuizHarness, buttons, callback_message, created_message_id
from tests.e2e.forged import with_custom_id
from tests.e2e.test_quiz import EPHEMERAL
from tests.loopback.server import CHANNEL_MESSAGES_ROUTE, FOLLOWUP_ROUTE

ALICE, BOB = 1_300_000_000_000_004_001, 1_300_000_000_000_004_002
DM_CREATE = "/users/@me/channels"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def after(quiz: QuizHarness, method: str, route: str, since: int) -> list[Any]:
    return [r for r in quiz.loopback.find(method, route) if r.index >= since]


def reminders(bot: Any) -> ReminderCog:
    # Not isinstance: load_extension executes cogs/reminders.py afresh for every bot.
    cog = bot.get_cog("ReminderCog")
    assert cog is not None and type(cog).__name__ == "ReminderCog"
    return cast(ReminderCog, cog)


def rows(quiz: QuizHarness, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute(sql, args).fetchall()


async def miss_the_test(quiz: QuizHarness, member: dict[str, Any]) -> int:
    """Answer every question of /tpquiz test wrong: eight cards due a day later."""
    request = await quiz.loopback.interact(quiz.command(member, "test"))
    message_id, message = created_message_id(request), callback_message(request)
    missed = 0
    # The test's last message carries only the "Report a problem" button (tpq:rp:…).
    while message.get("components") and buttons(message)[0]["custom_id"].startswith("tpq:t:"):
        run, position = buttons(message)[0]["custom_id"].split(":")[2:4]
        ((ids,),) = rows(quiz, "SELECT question_ids FROM test_runs WHERE id = ?", int(run))
        question = quiz.bank[json.loads(ids)[int(position)]]
        wrong = (question.correct_index + 1) % len(question.choices)
        custom_id = f"tpq:t:{run}:{position}:{wrong}"
        message = callback_message(await quiz.click(message_id, custom_id, member))
        missed += 1
    return missed


async def remind(quiz: QuizHarness, member: dict[str, Any], **options: str) -> str:
    request = await quiz.loopback.interact(quiz.command(member, "review", options))
    message = callback_message(request)
    assert message["flags"] & EPHEMERAL
    return str(message["content"])


async def test_a_reminder_dm_on_the_moved_clock_once_a_day_and_its_button(
    quiz: QuizHarness,
) -> None:
    alice = quiz.member(ALICE, "alice")
    quiz.clock.now = utc(2026, 12, 2, 9)
    async with quiz.bot() as bot:
        assert await miss_the_test(quiz, alice) >= 5
        text = await remind(quiz, alice, remind="on", time="19:00")
        assert text.startswith("Review reminders are on") and "at 19:00 (UTC)" in text
        cog = reminders(bot)

        quiz.clock.now = utc(2026, 12, 2, 19, 30)  # the time, but nothing due yet
        assert (await cog.run_due(quiz.clock.now)).sent == []
        quiz.clock.now = utc(2026, 12, 3, 18, 59)  # due, but not the time yet
        assert (await cog.run_due(quiz.clock.now)).sent == []

        quiz.clock.now = utc(2026, 12, 3, 19)
        since = len(quiz.loopback.requests)
        runs = await asyncio.gather(cog.run_due(quiz.clock.now), cog.run_due(quiz.clock.now))
        assert sum(len(r.sent) for r in runs) == 1  # claimed before sending: one DM
        assert (await cog.run_due(quiz.clock.now)).sent == []
        (opened,) = after(quiz, "POST", DM_CREATE, since)
        assert int(opened.body["recipient_id"]) == ALICE
        (dm,) = [
            r
            for r in after(quiz, "POST", CHANNEL_MESSAGES_ROUTE, since)
            if int(r.params["channel_id"]) == quiz.loopback.dm_channels[ALICE]
        ]
        embed = dm.body["embeds"][0]
        assert embed["title"] == "Time to review: 8 cards are due"
        assert "**TP study group**" in embed["description"]
        (button,) = buttons(dm.body)
        assert button["custom_id"] == f"tpq:rs:{GUILD_ID}" and button["label"] == "Review now"

        # The button starts the review in that server, from the DM; answers work there.
        dm_id = int(dm.response["id"])
        started = await quiz.loopback.interact(
            quiz.loopback.dm_button_click(dm_id, button["custom_id"], ALICE)
        )
        round_message = callback_message(started)
        assert round_message["embeds"][0]["title"] == "Review"
        first = buttons(round_message)[0]["custom_id"]
        answered = await quiz.loopback.interact(
            quiz.loopback.dm_button_click(created_message_id(started), first, ALICE)
        )
        assert answered.body["type"] == 7
        assert rows(
            quiz,
            "SELECT guild_id FROM answers WHERE test_run_id IS NOT NULL"
            " AND user_id = ? ORDER BY id DESC LIMIT 1",
            ALICE,
        ) == [(GUILD_ID,)]

        # The same button naming a server where Alice never turned reminders on: refused.
        payload = quiz.loopback.dm_button_click(dm_id, button["custom_id"], ALICE)
        forged = with_custom_id(quiz.loopback, payload, f"tpq:rs:{GUILD_ID + 7}")
        reply = callback_message(await quiz.loopback.interact(forged))
        assert "This review round could not be found" in reply["content"]

        # The next day: another one (still due), and off means off.
        quiz.clock.now = utc(2026, 12, 4, 19, 1)
        assert len((await cog.run_due(quiz.clock.now)).sent) == 1
        assert await remind(quiz, alice, remind="off") == "Review reminders are off."
        quiz.clock.now = utc(2026, 12, 5, 19, 1)
        assert (await cog.run_due(quiz.clock.now)).sent == []


async def test_dms_closed_turn_the_reminder_off_and_the_member_is_told_once(
    quiz: QuizHarness,
) -> None:
    bob = quiz.member(BOB, "bob")
    quiz.clock.now = utc(2026, 12, 2, 9)
    async with quiz.bot() as bot:
        await miss_the_test(quiz, bob)
        assert (await remind(quiz, bob, remind="on")).startswith("Review reminders are on")
        quiz.loopback.dms_closed.add(BOB)
        quiz.clock.now = utc(2026, 12, 3, 9, 1)  # the default: the daily post time, 09:00
        run = await reminders(bot).run_due(quiz.clock.now)
        assert [r.user_id for r in run.refused] == [BOB] and run.sent == []
        assert rows(quiz, "SELECT enabled FROM review_reminders WHERE user_id = ?", BOB) == [(0,)]

        since = len(quiz.loopback.requests)
        await quiz.loopback.interact(quiz.command(bob, "stats", locale="tr"))
        notice = await quiz.loopback.wait_for(
            lambda r: r.route == FOLLOWUP_ROUTE and r.method == "POST", since=since
        )
        assert notice.body["flags"] & EPHEMERAL
        assert notice.body["content"].startswith("Tekrar hatırlatmalarını kapattım")
        # Said once: the next command has no notice.
        since = len(quiz.loopback.requests)
        await quiz.loopback.interact(quiz.command(bob, "stats"))
        assert after(quiz, "POST", FOLLOWUP_ROUTE, since) == []
