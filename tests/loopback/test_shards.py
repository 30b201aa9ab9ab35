"""Self-tests of the loopback Discord serving several shards, with a bare AutoShardedBot.

As on Discord: `GET /gateway/bot` recommends the loopback's `shard_count`, each shard
IDENTIFYs with `shard: [i, n]`, and a guild's GUILD_CREATE and INTERACTION_CREATEs go
only to the session of shard `(guild_id >> 22) % n`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import discord
from discord.ext import commands

from tests.loopback.fixtures import load_body_validator
from tests.loopback.harness import make_intents, running
from tests.loopback.server import LoopbackDiscord

#: Guild ids on shard 0 and shard 1 of 2 ((id >> 22) % 2).
GUILD_0 = (400_000_000_000 << 22) | 7
GUILD_1 = (400_000_000_001 << 22) | 7
ALICE_ID = 1_180_000_000_000_000_101


class ShardedTestBot(commands.AutoShardedBot):
    def __init__(self, **options: Any) -> None:
        super().__init__(
            command_prefix="!", intents=make_intents(), guild_ready_timeout=0.05, **options
        )

    async def setup_hook(self) -> None:
        @self.tree.command(name="where", description="Which shard am I on?")
        async def where(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message(f"shard {interaction.guild.shard_id}")  # type: ignore[union-attr]

        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Skip discord.py's 5 s pause before the second shard's IDENTIFY."""


async def started_loopback(shard_count: int) -> LoopbackDiscord:
    loopback = LoopbackDiscord(validator=load_body_validator(), shard_count=shard_count)
    await loopback.start()
    loopback.add_guild(GUILD_0, channel_ids=[GUILD_0 + 1])
    loopback.add_guild(GUILD_1, channel_ids=[GUILD_1 + 1])
    return loopback


async def test_recommended_shards_each_guild_on_its_own_session() -> None:
    loopback = await started_loopback(2)
    try:
        bot = ShardedTestBot()
        async with running(bot, loopback):
            await loopback.wait_connected(sessions=2)
            assert bot.shard_count == 2 and sorted(bot.shards) == [0, 1]
            assert sorted(s.shard for s in loopback.sessions.values()) == [(0, 2), (1, 2)]  # type: ignore[type-var]
            created = loopback.dispatched("GUILD_CREATE")
            assert sorted((shard, int(d["id"])) for shard, d in created) == [
                ((0, 2), GUILD_0),
                ((1, 2), GUILD_1),
            ]
            alice = loopback.member(ALICE_ID, "alice")
            for guild_id, shard in ((GUILD_0, 0), (GUILD_1, 1)):
                reply = await loopback.interact(
                    loopback.slash_command(guild_id, guild_id + 1, alice, "where")
                )
                assert reply.body["data"]["content"] == f"shard {shard}"
            delivered = [
                (shard, int(d["guild_id"]))
                for shard, d in loopback.dispatched("INTERACTION_CREATE")
            ]
            assert delivered == [((0, 2), GUILD_0), ((1, 2), GUILD_1)]
        assert not loopback.unknown_routes and not loopback.body_errors
    finally:
        await loopback.close()


async def test_one_shard_of_two_sees_only_its_guilds() -> None:
    loopback = await started_loopback(2)
    try:
        bot = ShardedTestBot(shard_count=2, shard_ids=[1])
        async with running(bot, loopback):
            assert [g.id for g in bot.guilds] == [GUILD_1]
            assert not loopback.find("GET", "/gateway/bot")  # the count was given
            alice = loopback.member(ALICE_ID, "alice")
            reply = await loopback.interact(
                loopback.slash_command(GUILD_1, GUILD_1 + 1, alice, "where")
            )
            assert reply.body["data"]["content"] == "shard 1"
            try:
                await loopback.interact(
                    loopback.slash_command(GUILD_0, GUILD_0 + 1, alice, "where")
                )
            except RuntimeError as exc:
                assert "no gateway session of the shard of guild" in str(exc)
            else:
                raise AssertionError("an interaction of an unserved shard was delivered")
    finally:
        await loopback.close()


async def test_identify_with_a_shard_outside_its_count_is_closed_4010() -> None:
    loopback = LoopbackDiscord(shard_count=2)
    await loopback.start()
    try:
        async with aiohttp.ClientSession() as http, http.ws_connect(loopback.gateway_url) as ws:
            hello = json.loads((await ws.receive()).data)
            assert hello["op"] == 10
            identify = {"token": loopback.token, "intents": 1, "properties": {}, "shard": [2, 2]}
            await ws.send_str(json.dumps({"op": 2, "d": identify}))
            async with asyncio.timeout(5):
                while not ws.closed:
                    await ws.receive()
            assert ws.close_code == 4010
        assert loopback.identify_count == 0
    finally:
        await loopback.close()
