"""Two bot processes, one Discord shard each, on one PostgreSQL (issue 15).

The real `python -m bot run`, twice, with TPQUIZ_DATABASE_URL pointing at the test
PostgreSQL server and TPQUIZ_SHARD_COUNT=2, one with TPQUIZ_SHARDS=0 and one with 1,
against the loopback Discord serving two shards (each guild's events go to the session
of its shard, `(guild_id >> 22) % 2`). What must hold: a click is answered by the process
owning its guild's shard; twenty concurrent clicks by one member make one answer; a
process SIGKILLed mid-burst and started again leaves every acknowledged click recorded
once; a third process asking for a shard already held refuses to start, in one line;
and with daily posts on in a server of each shard and both processes ticking at once,
each server gets its daily question once, posted by the process owning its shard.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bench.botproc import BotProcess, bot_env, bot_token
from bot.infra.shards import shard_of
from bot.storage.pg.storage import PgStorage
from tests.drills.conftest import START_TIMEOUT
from tests.loopback.fixtures import loopback  # noqa: F401  (fixture)
from tests.loopback.server import CALLBACK_ROUTE, CHANNEL_MESSAGES_ROUTE, LoopbackDiscord

GUILD_0 = 1_500_000_000_000_000_001
GUILD_1 = (((GUILD_0 >> 22) + 1) << 22) | 1
MEMBERS = 1_500_000_000_000_200_000
POSTER = 1_500_000_000_000_000_900


@dataclass
class Pair:
    loopback: LoopbackDiscord
    workdir: Path
    url: str
    bots: list[BotProcess] = field(default_factory=list)

    def process(self, shard: int) -> BotProcess:
        env = bot_env(
            rest_base=self.loopback.rest_base,
            gateway_url=self.loopback.gateway_url,
            token=self.loopback.token,
            db_path=None,
            TPQUIZ_DATABASE_URL=self.url,
            TPQUIZ_SHARD_COUNT="2",
            TPQUIZ_SHARDS=str(shard),
            TPQUIZ_PROCESS_COUNT="2",
        )
        bot = BotProcess(env, self.workdir / f"shard{shard}-{len(self.bots)}", log_name="bot.log")
        self.bots.append(bot)
        return bot

    async def start(self, shard: int, identifies: int) -> BotProcess:
        bot = await self.process(shard).start()
        assert bot.proc is not None
        connected = asyncio.create_task(
            self.loopback.wait_connected(START_TIMEOUT, identifies=identifies)
        )
        exited = asyncio.create_task(bot.proc.wait())
        done, _ = await asyncio.wait({connected, exited}, return_when=asyncio.FIRST_COMPLETED)
        if exited in done:
            connected.cancel()
            raise AssertionError(f"shard {shard} exited {exited.result()}:\n{bot.log_text()}")
        exited.cancel()
        connected.result()
        return bot

    async def post_question(self, guild_id: int) -> tuple[int, list[str]]:
        poster = self.loopback.member(POSTER, "poster")
        request = await self.loopback.interact(
            self.loopback.slash_command(guild_id, guild_id + 1, poster, "tpquiz", "question"),
            timeout=10,
        )
        assert request.status == 200 and request.body["type"] == 4, request.body
        message = request.response["resource"]["message"]
        ids = [c["custom_id"] for row in message["components"] for c in row["components"]]
        return int(message["id"]), ids

    def click(self, post: tuple[int, list[str]], member: int, letter: int = 0) -> dict[str, Any]:
        message_id, ids = post
        return self.loopback.button_click(
            message_id, ids[letter % len(ids)], self.loopback.member(member, f"m{member}")
        )

    async def rows(self, sql: str, *args: object) -> list[tuple[Any, ...]]:
        conn = await asyncpg.connect(self.url)
        try:
            return [tuple(r) for r in await conn.fetch(sql, *args)]
        finally:
            await conn.close()


@pytest.fixture
async def pair(loopback: LoopbackDiscord, pg_url: str, tmp_path: Path) -> AsyncIterator[Pair]:  # noqa: F811
    loopback.token = bot_token(loopback.bot_user_id)
    loopback.shard_count = 2
    for guild in (GUILD_0, GUILD_1):
        loopback.add_guild(guild, name=f"server {shard_of(guild, 2)}", channel_ids=[guild + 1])
    harness = Pair(loopback, tmp_path, pg_url)
    try:
        yield harness
    finally:
        for bot in harness.bots:
            await bot.stop()


def answered(pair: Pair, since: int) -> set[str]:
    return {
        r.params["interaction_id"]
        for r in pair.loopback.requests[since:]
        if r.route == CALLBACK_ROUTE and r.status == 200 and r.body["type"] == 4
    }


async def test_two_processes_one_shard_each_share_one_postgresql(pair: Pair) -> None:
    assert shard_of(GUILD_0, 2) == 0 and shard_of(GUILD_1, 2) == 1
    first = await pair.start(0, identifies=1)
    await pair.start(1, identifies=2)
    posts = {guild: await pair.post_question(guild) for guild in (GUILD_0, GUILD_1)}

    # Clicks in both servers are answered, each by its own shard's process.
    for i, guild in enumerate((GUILD_0, GUILD_1)):
        reply = await pair.loopback.interact(pair.click(posts[guild], MEMBERS + i), timeout=10)
        assert reply.status == 200 and reply.body["type"] == 4, reply.body

    assert await pair.rows(
        "SELECT guild_id, COUNT(*) FROM answers GROUP BY guild_id ORDER BY guild_id"
    ) == sorted([(GUILD_0, 1), (GUILD_1, 1)])  # both in the one PostgreSQL

    # Twenty concurrent clicks by one member: one answer.
    same = [pair.click(posts[GUILD_1], MEMBERS + 99, letter) for letter in range(20)]
    replies = await asyncio.gather(*(pair.loopback.interact(p, timeout=10) for p in same))
    assert all(r.body["type"] == 4 for r in replies)
    assert await pair.rows("SELECT COUNT(*) FROM answers WHERE user_id = $1", MEMBERS + 99) == [
        (1,)
    ]

    # A third process asking for shard 0, already held, refuses to start in one line.
    third = await pair.process(0).start()
    assert await third.wait(START_TIMEOUT) == 2
    refusal = [line for line in third.log_text().splitlines() if "shard 0 of 2" in line]
    assert refusal and "already run by" in refusal[0], third.log_text()

    # SIGKILL the shard-0 process mid-burst, start it again: every acknowledged click is
    # recorded once, and the new process answers the rest.
    burst = [pair.click(posts[GUILD_0], MEMBERS + 1000 + i, i) for i in range(60)]
    since = len(pair.loopback.requests)
    gate = pair.loopback.hold_after("POST", CALLBACK_ROUTE, 20)
    await asyncio.gather(*(pair.loopback.dispatch("INTERACTION_CREATE", p) for p in burst))
    waited = pair.loopback.wait_for(
        lambda r: len(answered(pair, since)) >= 20, since=since, timeout=10
    )
    await waited
    assert await first.kill() == -9
    gate.drop()
    acknowledged = answered(pair, since)
    assert 20 <= len(acknowledged) < len(burst)
    by_id = {p["id"]: int(p["member"]["user"]["id"]) for p in burst}
    counts = dict(
        await pair.rows(
            "SELECT user_id, COUNT(*) FROM answers WHERE guild_id = $1 AND user_id >= $2"
            " GROUP BY user_id",
            GUILD_0,
            MEMBERS + 1000,
        )
    )
    for interaction in acknowledged:
        assert counts.get(by_id[interaction]) == 1
    assert all(n == 1 for n in counts.values())
    await pair.start(0, identifies=3)
    retry = pair.click(posts[GUILD_0], MEMBERS + 5000)
    reply = await pair.loopback.interact(retry, timeout=10)
    assert reply.body["type"] == 4


def daily_posts(pair: Pair) -> dict[int, int]:
    """Channel id -> daily questions the loopback received there (sent and accepted)."""
    found: dict[int, int] = {}
    for r in pair.loopback.find("POST", CHANNEL_MESSAGES_ROUTE):
        if r.status == 200:
            channel = int(r.params["channel_id"])
            found[channel] = found.get(channel, 0) + 1
    return found


async def _logged(bot: BotProcess, text: str) -> None:
    """Return once `text` is in the bot's log; fail with the log after START_TIMEOUT s
    (polling the log file: the condition is the line itself, as test_pg_restart.py polls
    the lock)."""
    deadline = time.monotonic() + START_TIMEOUT
    while text not in bot.log_text():
        assert time.monotonic() < deadline, f"{text!r} not logged:\n{bot.log_text()}"
        assert bot.running(), bot.log_text()
        await asyncio.sleep(0.05)


async def test_both_processes_ticking_post_each_servers_daily_question_once(pair: Pair) -> None:
    # Daily posts on in a server of each shard, due since midnight UTC today (the
    # schedule was set long before), written before either process starts.
    storage = await PgStorage.open(pair.url)
    try:
        for guild in (GUILD_0, GUILD_1):
            await storage.daily.set_schedule(
                guild, channel_id=guild + 1, post_time="00:00", timezone="UTC", now_ms=0
            )
    finally:
        await storage.close()

    # Both start at once: each runs its catch-up tick as soon as it is ready, so the two
    # ticks overlap, and both find their due servers in the one database.
    bots = await asyncio.gather(pair.start(0, identifies=1), pair.start(1, identifies=2))
    for guild in (GUILD_0, GUILD_1):
        await pair.loopback.wait_for(
            lambda r, channel=guild + 1: (
                r.method == "POST"
                and r.route == CHANNEL_MESSAGES_ROUTE
                and int(r.params["channel_id"]) == channel
            ),
            timeout=START_TIMEOUT,
        )
    rows = await pair.rows(
        "SELECT guild_id, COUNT(*) FROM posts WHERE kind = 'daily' GROUP BY guild_id"
    )
    assert sorted(rows) == sorted([(GUILD_0, 1), (GUILD_1, 1)])

    assert daily_posts(pair) == {GUILD_0 + 1: 1, GUILD_1 + 1: 1}

    # Each process saw exactly its own shard's server as due and posted it. The tick's
    # summary line is written after Discord answered the post, so the loopback can see
    # the post before the line is in the log: wait for the line, not for a time.
    for shard, bot in enumerate(bots):
        await _logged(bot, "daily tick:")
        lines = bot.log_text().splitlines()
        ticks = [line for line in lines if "daily tick:" in line]
        assert len(ticks) == 1 and "1 due, 1 posted, 0 failed" in ticks[0], bot.log_text()
        posted = [line for line in lines if "posted in guild" in line]
        owned = GUILD_0 if shard == 0 else GUILD_1
        assert len(posted) == 1 and f"posted in guild {owned} " in posted[0], bot.log_text()
