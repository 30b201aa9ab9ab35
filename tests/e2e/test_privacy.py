"""End to end: `/tpquiz forget-me`, `/tpquiz my-data` and a server's retention.

On the loopback Discord with the real client: forget-me asks first and deletes nothing
until Confirm (Cancel, another member's click, or no click at all leave everything),
Confirm deletes the member's rows and the leaderboard ranks the others as if they never
played; my-data's attachment is parsed; a server that removes the bot loses its data
once the clock passes the retention, keeps it if the bot is added back in time, and an
outage (GUILD_DELETE with unavailable) changes nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from bot.runtime.bot import TPQuizBot
from bot.storage.member_data import MEMBER_TABLES
from tests.e2e.conftest import (
    CHANNEL_ID,
    GUILD_ID,
    QuizHarness,
    buttons,
    callback_message,
    created_message_id,
)
from tests.e2e.forged import with_custom_id
from tests.e2e.test_quiz import EPHEMERAL, answer_buttons, post_question

ALICE, BOB = 1_300_000_000_000_003_001, 1_300_000_000_000_003_002


def member_rows(quiz: QuizHarness, user: int) -> int:
    with sqlite3.connect(quiz.db_path) as conn:
        return sum(
            conn.execute(f"SELECT COUNT(*) FROM {t} WHERE user_id = ?", (user,)).fetchone()[0]
            for t in MEMBER_TABLES
        )


def guild_rows(quiz: QuizHarness) -> int:
    with sqlite3.connect(quiz.db_path) as conn:
        return sum(
            conn.execute(f"SELECT COUNT(*) FROM {t} WHERE guild_id = ?", (GUILD_ID,)).fetchone()[0]
            for t in ("answers", "posts", "members", "score_counts", "member_periods")
        )


async def both_answer(quiz: QuizHarness, alice: dict[str, Any], bob: dict[str, Any]) -> None:
    """A post that Alice answers right and Bob wrong."""
    message_id, message = await post_question(quiz, alice)
    _, ids, right = answer_buttons(quiz, message)
    await quiz.click(message_id, right, alice)
    await quiz.click(message_id, next(c for c in ids if c != right), bob)


async def test_forget_me_asks_and_deletes_only_on_confirm(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot():
        await both_answer(quiz, alice, bob)
        before = member_rows(quiz, ALICE)
        request = await quiz.loopback.interact(quiz.command(alice, "forget-me"))
        ask = callback_message(request)
        assert ask["flags"] & EPHEMERAL and "cannot be undone" in ask["content"]
        confirm, cancel = (b["custom_id"] for b in buttons(ask))
        assert confirm == f"tpq:forget:yes:{GUILD_ID}:{ALICE}"
        message_id = created_message_id(request)

        # Left unpressed, or pressed by Bob: nothing is deleted.
        assert member_rows(quiz, ALICE) == before > 0
        refused = await quiz.click(message_id, confirm, bob)
        assert "belongs to someone else" in callback_message(refused)["content"]
        assert member_rows(quiz, ALICE) == before

        # Cancelled (on a second confirmation): nothing is deleted either.
        again = await quiz.loopback.interact(quiz.command(alice, "forget-me"))
        cancelled = await quiz.click(created_message_id(again), cancel, alice)
        assert cancelled.body["type"] == 7
        assert "nothing was deleted" in callback_message(cancelled)["content"]
        assert member_rows(quiz, ALICE) == before

    # The confirmation survives a restart; Confirm deletes Alice's rows only.
    async with quiz.bot():
        done = await quiz.click(message_id, confirm, alice)
        body = callback_message(done)
        assert done.body["type"] == 7 and body["components"] == []
        assert f"the {before} records" in body["content"]
        assert member_rows(quiz, ALICE) == 0 and member_rows(quiz, BOB) > 0
        board = await quiz.loopback.interact(quiz.command(bob, "leaderboard"))
        text = json.dumps(callback_message(board), ensure_ascii=False)
        assert "alice" not in text and "bob" in text


async def test_forget_me_in_turkish(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "forget-me", locale="tr"))
        ask = callback_message(request)
        assert "geri alınamaz" in ask["content"]
        assert [b["label"] for b in buttons(ask)] == ["Evet, hepsini sil", "Vazgeç"]


async def test_my_data_attaches_the_members_json(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot():
        await both_answer(quiz, alice, bob)
        request = await quiz.loopback.interact(quiz.command(alice, "my-data"))
        message = callback_message(request)
        assert message["flags"] & EPHEMERAL and "_about" in message["content"]
        (upload,) = request.files
        assert upload.filename == f"tpquiz-my-data-{GUILD_ID}.json"
        data = json.loads(upload.data.decode("utf-8"))
    assert (data["guild_id"], data["user_id"]) == (GUILD_ID, ALICE)
    assert [a["user_id"] for a in data["answers"]] == [ALICE]
    assert data["answers"][0]["correct"] == 1 and data["members"][0]["name"] == "alice"
    assert data["_about"]["answers"]["points"]
    assert "bob" not in upload.data.decode("utf-8")


@asynccontextmanager
async def handled(bot: TPQuizBot) -> AsyncIterator[None]:
    """Wait, after the block, until the retention cog has handled a guild event."""
    # wait_for registers its listener at the call, before the event can arrive.
    waiter = bot.wait_for(
        "tpquiz_retention", check=lambda guild_id: guild_id == GUILD_ID, timeout=5
    )
    yield
    await waiter


def retention(bot: TPQuizBot) -> Any:
    cog = bot.get_cog("RetentionCog")
    assert cog is not None
    return cog


async def test_a_removed_server_is_deleted_after_the_retention(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot() as bot:
        await both_answer(quiz, alice, bob)
        before = guild_rows(quiz)
        # An outage is not a removal.
        quiz.loopback.remove_guild(GUILD_ID, unavailable=True)
        async with handled(bot):
            quiz.loopback.remove_guild(GUILD_ID)
        quiz.clock.advance(days=29, hours=23)
        assert await retention(bot).delete_due() == []
    # The pending deletion survives a restart.
    async with quiz.bot() as bot:
        assert guild_rows(quiz) == before
        quiz.clock.advance(days=1, hours=1)  # 31 days after the removal
        assert await retention(bot).delete_due() == [GUILD_ID]
        assert guild_rows(quiz) == 0 and member_rows(quiz, ALICE) == 0


async def test_a_server_that_adds_the_bot_back_in_time_keeps_its_data(
    quiz: QuizHarness,
) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot() as bot:
        await both_answer(quiz, alice, bob)
        before = guild_rows(quiz)
        async with handled(bot):
            quiz.loopback.remove_guild(GUILD_ID)
        quiz.clock.advance(days=20)
        async with handled(bot):
            quiz.loopback.add_guild(GUILD_ID, name="TP study group", channel_ids=[CHANNEL_ID])
        quiz.clock.advance(days=11)
        assert await retention(bot).delete_due() == []
        assert guild_rows(quiz) == before
        with sqlite3.connect(quiz.db_path) as conn:
            assert conn.execute("SELECT COUNT(*) FROM guild_removals").fetchone() == (0,)


async def test_an_outage_schedules_nothing(quiz: QuizHarness) -> None:
    async with quiz.bot() as bot:
        quiz.loopback.remove_guild(GUILD_ID, unavailable=True)
        # The outage's end (GUILD_CREATE of an unavailable guild) reaches the cog.
        async with handled(bot):
            payload = quiz.loopback.guilds[GUILD_ID]
            assert payload is not None
            await quiz.loopback.dispatch(
                "GUILD_CREATE", quiz.loopback._guild_create_payload(payload)
            )
        quiz.clock.advance(days=40)
        assert await retention(bot).delete_due() == []
        with sqlite3.connect(quiz.db_path) as conn:
            assert conn.execute("SELECT COUNT(*) FROM guild_removals").fetchone() == (0,)


async def test_forged_forget_buttons_delete_nothing(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot():
        await both_answer(quiz, alice, bob)
        before = member_rows(quiz, ALICE), member_rows(quiz, BOB)
        request = await quiz.loopback.interact(quiz.command(alice, "forget-me"))
        message_id, message = created_message_id(request), callback_message(request)
        click = quiz.loopback.button_click(message_id, buttons(message)[0]["custom_id"], alice)
        other_guild = GUILD_ID + 7
        for custom_id in (
            f"tpq:forget:yes:{GUILD_ID}:{BOB}",  # Alice pressing a button made for Bob
            f"tpq:forget:yes:{other_guild}:{ALICE}",  # made in another server
            f"tpq:forget:yes:0{GUILD_ID}:{ALICE}",  # not a number the bot writes
            f"tpq:forget:yes:{GUILD_ID}:{'9' * 25}",
        ):
            forged = await quiz.loopback.interact(with_custom_id(quiz.loopback, click, custom_id))
            assert "belongs to someone else" in callback_message(forged)["content"], custom_id
        assert (member_rows(quiz, ALICE), member_rows(quiz, BOB)) == before
