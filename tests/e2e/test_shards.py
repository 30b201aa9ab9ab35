"""End to end: the bot split into Discord shards, against the loopback Discord.

One process running both shards of two answers clicks in guilds of both shards, each
guild's events arriving on its own shard's session. A process running shard 1 of 2
(another process, not started here, runs shard 0) answers its own guilds' clicks, posts
the daily question only for its own guilds and leaves the command sync to the owner of
shard 0. Guild ids are chosen by Discord's rule, `(guild_id >> 22) % 2`.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, cast

import pytest

from bench.botproc import BotProcess, bot_env, bot_token
from bot.client import ShardedTPQuizBot, TPQuizBot
from bot.daily_poster import SENDS_PER_SECOND
from bot.shards import shard_of
from cogs.daily import DailyCog
from cogs.health import gateway_connected
from tests.e2e.conftest import (
    CHANNEL_ID,
    GUILD_ID,
    QuizHarness,
    buttons,
    callback_message,
    created_message_id,
)
from tests.e2e.test_daily import utc
from tests.e2e.test_quiz import answer_buttons
from tests.loopback.server import ALL_PERMISSIONS, CHANNEL_MESSAGES_ROUTE, LoopbackDiscord

GUILD_0 = GUILD_ID  # the harness's guild: shard 0 of 2
GUILD_1 = (((GUILD_ID >> 22) + 1) << 22) | 1  # the next one: shard 1 of 2
CHANNEL_0, CHANNEL_1 = CHANNEL_ID, GUILD_1 + 1
DAILY_0, DAILY_1 = GUILD_0 + 50, GUILD_1 + 50
ADMIN, ALICE = 1_300_000_000_000_003_001, 1_300_000_000_000_003_002
GLOBAL_COMMANDS = "/applications/{application_id}/commands"


@pytest.fixture(autouse=True)
def no_identify_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip discord.py's 5 s pause before the second shard's IDENTIFY (harness docs)."""

    async def no_pause(self: object, shard_id: int | None, *, initial: bool = False) -> None:
        return None

    monkeypatch.setattr(ShardedTPQuizBot, "before_identify_hook", no_pause)


def two_guilds(quiz: QuizHarness) -> None:
    assert shard_of(GUILD_0, 2) == 0 and shard_of(GUILD_1, 2) == 1
    quiz.loopback.add_guild(GUILD_1, name="second shard's server", channel_ids=[CHANNEL_1])
    quiz.loopback.add_channel(GUILD_0, DAILY_0, name="daily")
    quiz.loopback.add_channel(GUILD_1, DAILY_1, name="daily")


async def answered_in(quiz: QuizHarness, guild_id: int, channel_id: int) -> None:
    """Post a question in the guild and click its right answer: the bot must say so."""
    alice = quiz.member(ALICE, "alice")
    request = await quiz.loopback.interact(
        quiz.command(alice, "question", guild_id=guild_id, channel_id=channel_id)
    )
    message = callback_message(request)
    _, _, right = answer_buttons(quiz, message)
    reply = callback_message(await quiz.click(created_message_id(request), right, alice))
    assert reply["embeds"][0]["title"] == "✅ Correct!"


def interaction_shards(quiz: QuizHarness) -> list[tuple[tuple[int, int] | None, int]]:
    return [
        (shard, int(data["guild_id"]))
        for shard, data in quiz.loopback.dispatched("INTERACTION_CREATE")
    ]


async def test_one_process_with_both_shards_answers_in_guilds_of_both(quiz: QuizHarness) -> None:
    two_guilds(quiz)
    async with quiz.bot(shard_count=2, shard_ids=(0, 1)) as bot:
        assert isinstance(bot, ShardedTPQuizBot) and sorted(bot.shards) == [0, 1]
        assert bot.ownership.owns_all
        await quiz.loopback.wait_connected(sessions=2)
        assert gateway_connected(bot)  # the heartbeat's test, on every shard
        assert {bot.get_guild(GUILD_0).shard_id, bot.get_guild(GUILD_1).shard_id} == {0, 1}  # type: ignore[union-attr]
        await answered_in(quiz, GUILD_0, CHANNEL_0)
        await answered_in(quiz, GUILD_1, CHANNEL_1)
        # Each guild's interactions (command, click) reached its own shard only.
        assert interaction_shards(quiz) == [((0, 2), GUILD_0)] * 2 + [((1, 2), GUILD_1)] * 2
        assert len(quiz.loopback.find("PUT", GLOBAL_COMMANDS)) == 1  # owns shard 0: synced


async def configure_daily(quiz: QuizHarness, guild_id: int, channel_id: int) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    request = await quiz.loopback.interact(
        quiz.command(
            admin,
            "daily channel",
            {"channel": channel_id, "time": "12:00", "timezone": "europe/istanbul"},
            command="tpquiz-admin",
            guild_id=guild_id,
            channel_id=guild_id + 1,
        )
    )
    assert "every day at **12:00**" in callback_message(request)["content"]


def daily_cog(bot: TPQuizBot) -> DailyCog:
    cog = bot.get_cog("DailyCog")
    assert cog is not None and type(cog).__name__ == "DailyCog"
    return cast(DailyCog, cog)


def daily_posts(quiz: QuizHarness) -> list[int]:
    """Channel ids of the daily posts sent (posts with answer buttons in a daily channel)."""
    return [
        int(r.params["channel_id"])
        for r in quiz.loopback.find("POST", CHANNEL_MESSAGES_ROUTE)
        if buttons(r.body)
    ]


async def test_a_process_of_shard_1_of_2_acts_only_for_its_guilds(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    two_guilds(quiz)
    quiz.clock.now = utc(2026, 12, 2, 8)  # 11:00 in Istanbul: before the daily time

    # Shard 1's process starts first on a fresh loopback: it syncs no commands.
    with caplog.at_level(logging.INFO, logger="bot.client"):
        async with quiz.bot(shard_count=2, shard_ids=(1,)) as bot:
            assert [g.id for g in bot.guilds] == [GUILD_1]
            assert not bot.ownership.syncs_commands
    assert quiz.loopback.find("PUT", GLOBAL_COMMANDS) == []
    assert "commands not synced: this process runs shards 1 of 2" in caplog.text

    # The owner of shard 0 (here: an unsharded start) synced them; both servers set
    # their daily question for noon in Istanbul (09:00 UTC).
    async with quiz.bot():
        assert len(quiz.loopback.find("PUT", GLOBAL_COMMANDS)) == 1
        await configure_daily(quiz, GUILD_0, DAILY_0)
        await configure_daily(quiz, GUILD_1, DAILY_1)
    assert daily_posts(quiz) == []

    async with quiz.bot(shard_count=2, shard_ids=(1,), process_count=2) as bot:
        # Two processes share Discord's per-bot limit: this one paces at half the rate.
        assert bot.poster.pacer.interval == pytest.approx(2 / SENDS_PER_SECOND)
        cog = daily_cog(bot)
        async with asyncio.timeout(5):
            await cog.first_tick_done.wait()
        await answered_in(quiz, GUILD_1, CHANNEL_1)

        quiz.clock.now = utc(2026, 12, 2, 9)
        run = await cog.run_due(quiz.clock.now)
        assert [guild for guild, _ in run.due] == [GUILD_1]
        assert [d.claim.post.guild_id for d in run.delivered] == [GUILD_1]
        assert daily_posts(quiz) == [DAILY_1]  # none for shard 0's server

        # Its daily post is answered too (a click arriving on shard 1).
        (post,) = [r for r in quiz.loopback.find("POST", CHANNEL_MESSAGES_ROUTE) if buttons(r.body)]
        message_id = int(post.response["id"])
        custom_id = buttons(post.body)[0]["custom_id"]
        reply: dict[str, Any] = callback_message(
            await quiz.click(message_id, custom_id, quiz.member(ALICE, "alice"))
        )
        assert reply["embeds"][0]["title"] in ("✅ Correct!", "❌ Wrong.")
        assert {shard for shard, _ in interaction_shards(quiz)[-3:]} == {(1, 2)}
    assert len(quiz.loopback.find("PUT", GLOBAL_COMMANDS)) == 1  # still only the one sync


# -- the real process: `python -m bot run` with the settings from the environment ----------


async def started_process(
    loopback: LoopbackDiscord, workdir: Path, n: int, **env: str
) -> BotProcess:
    """Start `python -m bot run`; return once its `n`-th IDENTIFY has everything."""
    bot = BotProcess(
        bot_env(
            rest_base=loopback.rest_base,
            gateway_url=loopback.gateway_url,
            token=loopback.token,
            db_path=workdir / "tpquiz.sqlite3",
            **env,
        ),
        workdir,
        log_name=f"bot{n}.log",
    )
    await bot.start()
    assert bot.proc is not None
    connected = asyncio.create_task(loopback.wait_connected(20.0, identifies=n))
    exited = asyncio.create_task(bot.proc.wait())
    done, _ = await asyncio.wait({connected, exited}, return_when=asyncio.FIRST_COMPLETED)
    if exited in done:
        connected.cancel()
        raise AssertionError(f"the bot exited with {exited.result()}:\n{bot.log_text()}")
    exited.cancel()
    connected.result()
    return bot


async def test_the_real_process_runs_shard_1_of_2_from_its_environment(
    loopback: LoopbackDiscord, tmp_path: Path
) -> None:
    loopback.token = bot_token(loopback.bot_user_id)  # `tpquiz run` checks the token's shape
    loopback.add_guild(GUILD_0, channel_ids=[CHANNEL_0])
    loopback.add_guild(GUILD_1, channel_ids=[CHANNEL_1])
    first = await started_process(loopback, tmp_path, 1)  # unsharded: syncs the commands
    assert await first.terminate() == 0
    assert len(loopback.find("PUT", GLOBAL_COMMANDS)) == 1
    since = len(loopback.requests)

    bot = await started_process(
        loopback, tmp_path, 2, TPQUIZ_SHARD_COUNT="2", TPQUIZ_SHARDS="1", TPQUIZ_PROCESS_COUNT="2"
    )
    try:
        # The second process's one session (the first one's is the last but one).
        assert list(loopback.sessions.values())[-1].shard == (1, 2)
        assert loopback.identify_count == 2
        assert not any(r.route == GLOBAL_COMMANDS for r in loopback.requests[since:])
        alice = loopback.member(ALICE, "alice")
        request = await loopback.interact(
            loopback.slash_command(GUILD_1, CHANNEL_1, alice, "tpquiz", "question"), timeout=10
        )
        message = request.response["resource"]["message"]
        custom_id = message["components"][0]["components"][0]["custom_id"]
        click = await loopback.interact(
            loopback.button_click(int(message["id"]), custom_id, alice), timeout=10
        )
        assert click.status == 200 and click.body["type"] == 4
        assert await bot.terminate() == 0
    finally:
        await bot.stop()
    log_text = bot.log_text()
    assert "commands not synced: this process runs shards 1 of 2" in log_text
    assert "Traceback" not in log_text
