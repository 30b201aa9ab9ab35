"""End to end: what Discord's client would not send gets one clear reply and changes nothing.

Forged option values (issue #10, item 12), commands from a DM (13), custom_ids with
numbers the bot never writes (14) and over-long text (20), each delivered to the real
discord.py client by the loopback. Every reply is checked word for word, the database and
the metrics for "nothing recorded", and the log for one escaped line and no traceback.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest

from bot.quiz.model import TOPICS
from tests.e2e.conftest import (
    CHANNEL_ID,
    GUILD_ID,
    QuizHarness,
    buttons,
    callback_message,
    created_message_id,
)
from tests.e2e.forged import in_dm, with_custom_id
from tests.loopback.server import ALL_PERMISSIONS, CALLBACK_ROUTE, CHANNEL_MESSAGES_ROUTE

ALICE, ADMIN = 1_300_000_000_000_003_001, 1_300_000_000_000_003_002
DAILY_CHANNEL = GUILD_ID + 60
EPHEMERAL = 64

UNKNOWN_POST = "This question can no longer be found. Ask for a new one with `/tpquiz question`."
UNKNOWN_TEST = "This test could not be found. Start again with `/tpquiz test`."
BAD_CHOICE = "That choice is not valid."
GUILD_ONLY = "This command only works in a server."


def rows(quiz: QuizHarness, sql: str) -> int:
    with sqlite3.connect(quiz.db_path) as conn:
        return int(conn.execute(sql).fetchone()[0])


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("refused")]


async def ephemeral_text(quiz: QuizHarness, payload: dict[str, Any]) -> str:
    message = callback_message(await quiz.loopback.interact(payload))
    assert message["flags"] & EPHEMERAL
    assert "embeds" not in message or not message["embeds"]
    return str(message["content"])


# -- 12: option values that are not among the choices ---------------------------------------


async def test_a_forged_topic_or_period_is_refused_naming_the_choices(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    alice = quiz.member(ALICE, "alice")
    forged = "nonsense\x00\nINFO fake log line"
    topic = [{"name": "topic", "type": 3, "value": forged}]
    async with quiz.bot() as bot:
        caplog.set_level(logging.INFO)
        text = await ephemeral_text(quiz, quiz.command(alice, "question", topic))
        choices = ", ".join(f"`{t}`" for t in TOPICS)
        assert text == (
            f"'nonsense  INFO fake log line' is not one of the choices for **topic**."
            f" Choices: {choices}."
        )
        period = [{"name": "period", "type": 3, "value": "year"}]
        text = await ephemeral_text(quiz, quiz.command(alice, "leaderboard", period))
        assert text == (
            "'year' is not one of the choices for **period**. Choices: `week`, `month`, `all`."
        )
        text = await ephemeral_text(quiz, quiz.command(alice, "leaderboard", period, locale="tr"))
        assert text == (
            "'year', **dönem** için seçeneklerden biri değil. Seçenekler: `week`, `month`, `all`."
        )
        # A value of the wrong JSON type is not a choice either.
        number = [{"name": "topic", "type": 3, "value": 7}]
        text = await ephemeral_text(quiz, quiz.command(alice, "question", number))
        assert text.startswith("'7' is not one of the choices for **topic**.")
        assert rows(quiz, "SELECT COUNT(*) FROM posts") == 0
        assert bot.metrics.value("tpquiz_answers_recorded_total", outcome="correct") == 0
    logged = refusals(caplog)
    assert logged[0] == (
        f"refused /tpquiz question from user {ALICE} in guild {GUILD_ID}:"
        " option topic='nonsense\\x00\\nINFO fake log line' (option_not_a_choice)"
    )
    assert all("\n" not in m and "\x00" not in m for m in logged)
    assert not any("\x00" in r.getMessage() for r in caplog.records)
    no_tracebacks(caplog)


async def test_a_member_option_that_resolves_to_no_member_is_refused(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    alice = quiz.member(ALICE, "alice")
    stranger = 1_300_000_000_000_003_999
    wanted = (
        "I could not find the member given for **member** in this server; pick a member"
        " from the list."
    )
    async with quiz.bot():
        # An id with nothing in data.resolved.
        unresolved = [{"name": "member", "type": 6, "value": str(stranger)}]
        assert await ephemeral_text(quiz, quiz.command(alice, "stats", unresolved)) == wanted
        # A user who is not a member of this server (resolved as a user only).
        user = {"id": str(stranger), "username": "x", "discriminator": "0", "avatar": None}
        payload = quiz.loopback.slash_command(
            GUILD_ID,
            CHANNEL_ID,
            alice,
            "tpquiz",
            "stats",
            unresolved,
            resolved={"users": {str(stranger): user}},
        )
        assert await ephemeral_text(quiz, payload) == wanted
    no_tracebacks(caplog)


# -- 13: guild commands from a DM ----------------------------------------------------------


@pytest.mark.parametrize("sub", ["question", "test", "stats", "leaderboard"])
async def test_tpquiz_commands_from_a_dm_get_the_guild_only_reply(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture, sub: str
) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        dm = in_dm(quiz.loopback, quiz.command(alice, sub))
        assert await ephemeral_text(quiz, dm) == GUILD_ONLY
        dm = in_dm(quiz.loopback, quiz.command(alice, sub, locale="tr"))
        dm["locale"] = "tr"
        assert await ephemeral_text(quiz, dm) == "Bu komut yalnızca bir sunucuda çalışır."
    assert rows(quiz, "SELECT COUNT(*) FROM posts") == 0
    assert rows(quiz, "SELECT COUNT(*) FROM test_runs") == 0
    no_tracebacks(caplog)


async def test_the_admin_command_from_a_dm_gets_the_guild_only_reply(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        for sub in ("settings", "daily off"):
            payload = quiz.command(admin, sub, command="tpquiz-admin")
            assert await ephemeral_text(quiz, in_dm(quiz.loopback, payload)) == GUILD_ONLY
    no_tracebacks(caplog)


# -- 14: custom_ids with numbers the bot never writes ----------------------------------------


async def test_forged_answer_button_numbers_get_the_unknown_post_reply_and_record_nothing(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot() as bot:
        caplog.set_level(logging.INFO)
        request = await quiz.loopback.interact(quiz.command(alice, "question"))
        message_id = created_message_id(request)
        real = buttons(callback_message(request))[0]["custom_id"]
        post = real.split(":")[2]
        forged = {
            "tpq:a:9999999999999999999:0": UNKNOWN_POST,  # beyond int64
            "tpq:a:99999999999999999999999999999:0": UNKNOWN_POST,
            "tpq:a:-1:0": UNKNOWN_POST,
            f"tpq:a:0{post}:0": UNKNOWN_POST,  # leading zero
            "tpq:a:²:0": UNKNOWN_POST,  # str.isdigit() says yes
            "tpq:a:١٢٣:0": UNKNOWN_POST,  # Arabic-Indic digits, \d says yes
            "tpq:a: 1:0": UNKNOWN_POST,
            f"tpq:a:{post}:9": BAD_CHOICE,
            f"tpq:a:{post}:²": BAD_CHOICE,
            f"tpq:a:{post}:10": BAD_CHOICE,
        }
        click = quiz.loopback.button_click(message_id, real, alice)
        for custom_id, wanted in forged.items():
            payload = with_custom_id(quiz.loopback, click, custom_id)
            assert await ephemeral_text(quiz, payload) == wanted, custom_id
        assert rows(quiz, "SELECT COUNT(*) FROM answers") == 0
        recorded = bot.metrics.value
        assert [
            recorded("tpquiz_answers_recorded_total", outcome=o)
            for o in ("correct", "wrong", "duplicate")
        ] == [0, 0, 0]
    logged = refusals(caplog)
    assert len(logged) == len(forged) - 1  # choice 9 is a number: the service refuses it
    assert logged[0] == (
        f"refused a click from user {ALICE} in guild {GUILD_ID}:"
        " custom_id 'tpq:a:9999999999999999999:0' (unknown_post)"
    )
    no_tracebacks(caplog)


async def test_forged_test_and_leaderboard_button_numbers_are_answered(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "test"))
        message_id = created_message_id(request)
        real = buttons(callback_message(request))[0]["custom_id"]
        run = real.split(":")[2]
        click = quiz.loopback.button_click(message_id, real, alice)
        forged = {
            "tpq:t:9999999999999999999:0:0": UNKNOWN_TEST,
            "tpq:t:٣:0:0": UNKNOWN_TEST,
            f"tpq:t:{run}:100:0": BAD_CHOICE,
            f"tpq:t:{run}:0:-1": BAD_CHOICE,
        }
        for custom_id, wanted in forged.items():
            payload = with_custom_id(quiz.loopback, click, custom_id)
            assert await ephemeral_text(quiz, payload) == wanted, custom_id
        assert rows(quiz, "SELECT COUNT(*) FROM answers") == 0

        # A leaderboard page beyond any number: the first page, not a traceback.
        request = await quiz.loopback.interact(quiz.command(alice, "leaderboard"))
        board_id = created_message_id(request)
        real = buttons(callback_message(request))[1]["custom_id"]
        click = quiz.loopback.button_click(board_id, real, alice)
        for custom_id in ("tpq:lb:all:9999999999999999999999:next", "tpq:lb:year:٣:prev"):
            payload = with_custom_id(quiz.loopback, click, custom_id)
            answer = await quiz.loopback.interact(payload)
            assert answer.route == CALLBACK_ROUTE and answer.body["type"] == 7
            embed = answer.body["data"]["embeds"][0]
            assert embed["title"] == "Leaderboard — all time"
            assert embed["description"].startswith("No answers in this period yet.")
    no_tracebacks(caplog)


# -- 20: lengths enforced on arrival, echoed text bounded -----------------------------------


async def test_an_overlong_time_zone_or_time_is_refused_on_arrival_and_changes_nothing(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    quiz.loopback.add_channel(GUILD_ID, DAILY_CHANNEL, name="daily")
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)

    def daily(options: dict[str, Any], locale: str = "en-US") -> dict[str, Any]:
        return quiz.command(admin, "daily channel", options, command="tpquiz-admin", locale=locale)

    async with quiz.bot():
        text = await ephemeral_text(quiz, daily({"channel": DAILY_CHANNEL, "timezone": "A" * 6000}))
        assert text == (
            "**timezone** must be 1 to 64 characters long; this one has 6000. Nothing was changed."
        )
        text = await ephemeral_text(
            quiz, daily({"channel": DAILY_CHANNEL, "time": "9" * 500}, locale="tr")
        )
        assert text == (
            "**saat** 1 ile 8 karakter arasında olmalı; gönderilen 500 karakter."
            " Hiçbir şey değiştirilmedi."
        )
        text = await ephemeral_text(quiz, daily({"channel": DAILY_CHANNEL, "timezone": ""}))
        assert text.startswith("**timezone** must be 1 to 64 characters long; this one has 0.")
        # The longest time zone the option allows is echoed whole, in one short line.
        long_zone = "Z" * 64
        text = await ephemeral_text(quiz, daily({"channel": DAILY_CHANNEL, "timezone": long_zone}))
        assert text.startswith(f"'{long_zone}' is not a time zone I know.") and len(text) < 2000
        # A channel id with nothing resolved behind it.
        forged = quiz.command(
            admin, "daily channel", {"channel": DAILY_CHANNEL}, command="tpquiz-admin"
        )
        forged["data"]["options"][0]["options"][0]["options"][0]["value"] = str(GUILD_ID + 999)
        forged["data"].pop("resolved", None)
        assert await ephemeral_text(quiz, forged) == (
            "I could not find the channel given for **channel**; pick a text channel from the list."
        )
        assert rows(quiz, "SELECT COUNT(*) FROM daily_settings") == 0

        # The autocomplete of a 6,000-character query answers, with nothing.
        payload = quiz.loopback.autocomplete(
            GUILD_ID,
            CHANNEL_ID,
            admin,
            "tpquiz-admin",
            "daily channel",
            {"channel": DAILY_CHANNEL, "timezone": "istan" * 1200},
            "timezone",
        )
        await quiz.loopback.interact(payload)
        assert quiz.loopback.interaction(payload).choices == []
    no_tracebacks(caplog)


async def test_an_overlong_nickname_is_cut_where_it_arrives(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    alice = quiz.member(ALICE, "alice", nick="N" * 5000 + "\nline two")
    async with quiz.bot():
        request = await quiz.loopback.interact(quiz.command(alice, "question"))
        message_id = created_message_id(request)
        custom_id = buttons(callback_message(request))[0]["custom_id"]
        await quiz.click(message_id, custom_id, alice)
        stats = callback_message(await quiz.loopback.interact(quiz.command(alice, "stats")))
        assert stats["embeds"][0]["title"] == "N" * 31 + "… — statistics"
        board = callback_message(await quiz.loopback.interact(quiz.command(alice, "leaderboard")))
        assert f"**#1** {'N' * 31}… — " in board["embeds"][0]["description"]
    with sqlite3.connect(quiz.db_path) as conn:
        (name,) = conn.execute("SELECT name FROM members").fetchone()
    assert name == "N" * 31 + "…"
    no_tracebacks(caplog)


# -- neighbours: a command or options this version does not have ---------------------------


async def test_an_unknown_subcommand_or_a_missing_required_option_is_one_sentence(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    alice = quiz.member(ALICE, "alice")
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    wanted = (
        "This command does not exist in this version or has changed. Reload Discord (Ctrl+R)"
        " and try again."
    )
    async with quiz.bot():
        stale = quiz.command(alice, "stats")
        stale["data"]["options"][0]["name"] = "hack"
        assert await ephemeral_text(quiz, stale) == wanted
        language = quiz.command(admin, "language", {"language": "tr"}, command="tpquiz-admin")
        language["data"]["options"][0]["options"] = []  # the required option left out
        assert await ephemeral_text(quiz, language) == wanted
        assert rows(quiz, "SELECT COUNT(*) FROM guild_settings") == 0
    no_tracebacks(caplog)


async def test_a_long_discord_error_in_a_reply_is_cut_to_discords_limit(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    """The last net (bot.ui.limits.fit): an error text Discord sent back, echoed to the admin."""
    quiz.loopback.add_channel(GUILD_ID, DAILY_CHANNEL, name="daily")
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        on = quiz.command(
            admin, "daily channel", {"channel": DAILY_CHANNEL}, command="tpquiz-admin"
        )
        assert (await ephemeral_text(quiz, on)).startswith("Daily questions are on")
        quiz.loopback.fail_next(
            "POST", CHANNEL_MESSAGES_ROUTE, 400, {"message": "E" * 5000, "code": 0}
        )
        now = quiz.command(admin, "daily now", command="tpquiz-admin")
        text = await ephemeral_text(quiz, now)
    assert len(text) == 2000 and text.endswith("E…")
    assert text.startswith(f"I could not post in <#{DAILY_CHANNEL}>: HTTP 400: EEE")
    no_tracebacks(caplog)
