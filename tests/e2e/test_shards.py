"""End to end: the bot split into Discord shards, against the loopback Discord.

One process running both shards of two answers clicks in guilds of both shards, each
guild's events arriving on its own shard's session. A process running shard 1 of 2
(another process, not started here, runs shard 0) answers its own guilds' clicks, posts
the daily question only for its own guilds and leaves the command sync to the owner of
shard 0. Two bots, one per shard, ticking at the same moment: each posts the daily
question, sends the reminders and deletes the removed servers of its own guilds only.
And the real `python -m bot run` process takes its shard from the environment. Guild ids
are chosen by Discord's rule, `(guild_id >> 22) % 2`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from pathlib import Path
from typing import Any, cast

import pytest
from discord.ext import commands

from bench.botproc import BotProcess, bot_env, bot_token
from bot.infra.shards import shard_of
from bot.runtime.bot import ShardedTPQuizBot, TPQuizBot
from bot.ui.poster import SENDS_PER_SECOND
from cogs.daily import DailyCog
from cogs.health import gateway_connected
from cogs.reminders import ReminderCog
from cogs.retention import RetentionCog
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
    with caplog.at_level(logging.INFO, logger="bot.runtime.bot"):
        async with quiz.bot(shard_count=2, shard_ids=(1,)) as bot:
            assert [g.id for g in bot.guilds] == [GUILD_1]
            assert not bot.ownership.syncs_commands
    assert quiz.loopback.find("PUT", GLOBAL_COMMANDS) == []
    assert "commands not synced: this process runs shards 1 of 2" in caplog.text

    # The owner of shard 0 (here: an unsharded start) synced them; both servers set
    # their daily question for noon in Istanbul (09:00 UTC).
    async with quiz.bot() as plain:
        assert not isinstance(plain, commands.AutoShardedBot)  # unsharded: as before
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


async def test_two_bots_one_per_shard_each_post_their_own_daily_once(quiz: QuizHarness) -> None:
    """Both shards' bots tick at the same moment; every server gets one post, from its owner.

    Two bots in one test process on one SQLite file stand in for the two processes on
    PostgreSQL (a second `tpquiz run` on SQLite is refused by the run lock).
    """
    two_guilds(quiz)
    quiz.clock.now = utc(2026, 12, 2, 8)
    async with (
        quiz.bot(shard_count=2, shard_ids=(0,), process_count=2) as first,
        quiz.bot(shard_count=2, shard_ids=(1,), process_count=2) as second,
    ):
        assert len(quiz.loopback.find("PUT", GLOBAL_COMMANDS)) == 1  # by shard 0's owner
        assert [g.id for g in first.guilds] == [GUILD_0]
        assert [g.id for g in second.guilds] == [GUILD_1]
        await configure_daily(quiz, GUILD_0, DAILY_0)  # answered by the first bot
        await configure_daily(quiz, GUILD_1, DAILY_1)  # by the second
        for bot in (first, second):
            async with asyncio.timeout(5):
                await daily_cog(bot).first_tick_done.wait()

        quiz.clock.now = utc(2026, 12, 2, 9)
        runs = await asyncio.gather(
            daily_cog(first).run_due(quiz.clock.now), daily_cog(second).run_due(quiz.clock.now)
        )
        assert [[d.claim.post.guild_id for d in run.delivered] for run in runs] == [
            [GUILD_0],
            [GUILD_1],
        ]
        assert sorted(daily_posts(quiz)) == sorted([DAILY_0, DAILY_1])  # each once
        again = await asyncio.gather(
            daily_cog(first).run_due(quiz.clock.now), daily_cog(second).run_due(quiz.clock.now)
        )
        assert [run.delivered for run in again] == [[], []]
        assert {
            (shard, int(d["guild_id"]))
            for shard, d in quiz.loopback.dispatched("INTERACTION_CREATE")
        } == {
            ((0, 2), GUILD_0),
            ((1, 2), GUILD_1),
        }


async def miss_a_test(quiz: QuizHarness, member: dict[str, Any], guild_id: int) -> None:
    """Answer every question of /tpquiz test wrong in the guild: review cards fall due."""
    request = await quiz.loopback.interact(
        quiz.command(member, "test", guild_id=guild_id, channel_id=guild_id + 1)
    )
    message_id, message = created_message_id(request), callback_message(request)
    while message.get("components") and buttons(message)[0]["custom_id"].startswith("tpq:t:"):
        run, position = buttons(message)[0]["custom_id"].split(":")[2:4]
        with sqlite3.connect(quiz.db_path) as conn:
            ((ids,),) = conn.execute("SELECT question_ids FROM test_runs WHERE id = ?", (int(run),))
        question = quiz.bank[json.loads(ids)[int(position)]]
        wrong = (question.correct_index + 1) % len(question.choices)
        message = callback_message(
            await quiz.click(message_id, f"tpq:t:{run}:{position}:{wrong}", member)
        )
    reply = await quiz.loopback.interact(
        quiz.command(
            member,
            "review",
            {"remind": "on", "time": "19:00"},
            guild_id=guild_id,
            channel_id=guild_id + 1,
        )
    )
    assert callback_message(reply)["content"].startswith("Review reminders are on")


async def test_two_bots_one_per_shard_each_remind_for_their_own_guilds(
    quiz: QuizHarness,
) -> None:
    two_guilds(quiz)
    alice = quiz.member(ALICE, "alice")
    quiz.clock.now = utc(2026, 12, 2, 9)
    async with (
        quiz.bot(shard_count=2, shard_ids=(0,), process_count=2) as first,
        quiz.bot(shard_count=2, shard_ids=(1,), process_count=2) as second,
    ):
        await miss_a_test(quiz, alice, GUILD_0)
        await miss_a_test(quiz, alice, GUILD_1)
        cogs = [cast(ReminderCog, bot.get_cog("ReminderCog")) for bot in (first, second)]
        quiz.clock.now = utc(2026, 12, 3, 19)
        runs = await asyncio.gather(*(cog.run_due(quiz.clock.now) for cog in cogs))
        assert [[r.guild_id for r in run.sent] for run in runs] == [[GUILD_0], [GUILD_1]]


async def test_two_bots_one_per_shard_each_delete_their_own_removed_guilds(
    quiz: QuizHarness,
) -> None:
    two_guilds(quiz)
    async with (
        quiz.bot(shard_count=2, shard_ids=(0,), process_count=2) as first,
        quiz.bot(shard_count=2, shard_ids=(1,), process_count=2) as second,
    ):
        for bot, guild_id in ((first, GUILD_0), (second, GUILD_1)):
            waiter = bot.wait_for(
                "tpquiz_retention", check=lambda g, g0=guild_id: g == g0, timeout=5
            )
            quiz.loopback.remove_guild(guild_id)  # GUILD_DELETE, on the guild's shard
            await waiter
        quiz.clock.advance(days=31)  # both are due
        retention = [cast(RetentionCog, bot.get_cog("RetentionCog")) for bot in (first, second)]
        assert await retention[1].delete_due() == [GUILD_1]  # not the first bot's server
        assert await retention[0].delete_due() == [GUILD_0]


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
