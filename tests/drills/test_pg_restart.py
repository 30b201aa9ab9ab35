"""A PostgreSQL restart under a running `tpquiz run` (issue 31, defect 2), as production runs.

The real bot process (`python -m bot run`, shard 0 of 2) on a PostgreSQL server of the
test's own, against the loopback Discord. The server is restarted (`pg_ctl restart -m
fast`), which ends the session holding the shard locks. The running bot must claim them
again by itself, so that a second process for the same shard, started after the
restart, is still refused in one line (exit 2), and the first one keeps answering.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import asyncpg

from bench.botproc import bot_token
from bot.infra.config import DatabaseUrl
from bot.infra.shards import shard_of
from bot.storage.pg.shard_locks import holders
from tests.drills.conftest import START_TIMEOUT
from tests.drills.test_two_processes_pg import GUILD_0, MEMBERS, Pair
from tests.loopback.fixtures import loopback  # noqa: F401  (fixture)
from tests.loopback.server import LoopbackDiscord
from tests.pg_server import PgServer

#: Seconds the bot may take to hold its shard again (a check every 5 s, then a claim).
HELD_AGAIN = 60.0


async def shard_held(url: DatabaseUrl) -> bool:
    try:
        shards, _ = await holders(url)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):  # still starting
        return False
    return 0 in shards


async def test_a_restart_under_a_running_bot_leaves_its_shard_held_and_a_second_refused(
    loopback: LoopbackDiscord,  # noqa: F811
    own_pg_server: PgServer,
    tmp_path: Path,
) -> None:
    loopback.token = bot_token(loopback.bot_user_id)
    loopback.shard_count = 2
    loopback.add_guild(GUILD_0, name="server 0", channel_ids=[GUILD_0 + 1])
    assert shard_of(GUILD_0, 2) == 0
    url = own_pg_server.url()
    pair = Pair(loopback, tmp_path, url)
    try:
        first = await pair.start(0, identifies=1)
        post = await pair.post_question(GUILD_0)

        own_pg_server.restart()
        deadline = time.monotonic() + HELD_AGAIN
        while not await shard_held(DatabaseUrl(url)):
            assert time.monotonic() < deadline, first.log_text()
            assert first.running(), first.log_text()
            await asyncio.sleep(0.1)
        assert "shards 0 of 2: their locks are held again" in first.log_text()

        second = await pair.process(0).start()
        assert await second.wait(START_TIMEOUT) == 2, second.log_text()
        refusal = [line for line in second.log_text().splitlines() if "shard 0 of 2" in line]
        assert refusal and "already run by" in refusal[0], second.log_text()

        # The first process still answers, on the restarted server.
        reply = await loopback.interact(pair.click(post, MEMBERS + 7), timeout=10)
        assert reply.body["type"] == 4
        assert await pair.rows("SELECT COUNT(*) FROM answers") == [(1,)]
    finally:
        for bot in pair.bots:
            await bot.stop()
