"""The shard locks across a real PostgreSQL restart (issue 31, defect 2).

The locks are session-level advisory locks on one connection; `pg_ctl restart -m fast`
ends that session and so drops them. `PgShardLocks.watch` must notice, claim them again
once the server is back (a second claimant is then refused again), and raise
`ShardsLost` when another process claimed one first. Each test restarts a server of
its own (`own_pg_server`). The waits are bounded polls on a condition, or a gate the
test opens: never a sleep to let something happen.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

import asyncpg
import pytest

from bot.infra.config import DatabaseUrl
from bot.infra.shard_lock import ShardHeld, ShardsLost
from bot.storage.pg.shard_locks import PgShardLocks, ShardLocks, holders
from tests.pg_server import PgServer

#: Seconds a condition may take to come true before the test fails.
BOUND = 60.0


async def until(condition: Callable[[], Awaitable[bool]], what: str) -> None:
    """Poll `condition` until it holds; fail after BOUND seconds."""
    deadline = time.monotonic() + BOUND
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {BOUND:.0f} s: {what}")
        await asyncio.sleep(0.05)


async def held(url: DatabaseUrl, shards: set[int]) -> bool:
    try:
        found, _ = await holders(url)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):  # still starting
        return False
    return set(found) == shards


async def test_a_restart_drops_the_locks_and_the_watch_claims_them_again(
    own_pg_server: PgServer, caplog: pytest.LogCaptureFixture
) -> None:
    url = DatabaseUrl(own_pg_server.url())
    locks = PgShardLocks(url)
    await locks.claim((0, 1), 2, "the running bot")
    caplog.set_level(logging.INFO, logger="bot.storage.pg.shard_locks")
    watch = asyncio.create_task(locks.watch(interval=0.05, retry=0.05))
    try:
        own_pg_server.restart()
        await until(lambda: held(url, {0, 1}), "shards 0 and 1 held again after the restart")
        # Held again by the running bot: a second process is still refused.
        with pytest.raises(ShardHeld, match="shard 1 of 2 is already run by tpquiz"):
            await ShardLocks.claim(url, [1], 2)
        assert not watch.done()
    finally:
        watch.cancel()
        await asyncio.gather(watch, return_exceptions=True)
        await locks.release()
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name.endswith("shard_locks")]
    assert lines[-1] == (logging.INFO, "shards 0-1 of 2: their locks are held again")
    lost = [m for level, m in lines if level == logging.WARNING]
    assert lost and all("holding their locks is lost" in m for m in lost)
    assert url.password not in caplog.text


async def test_shards_taken_by_another_process_meanwhile_stop_the_watch(
    own_pg_server: PgServer,
) -> None:
    """The server restarts, and another process claims shard 0 before this one's watch
    looks again (the test holds the watch's next check until then)."""
    url = DatabaseUrl(own_pg_server.url())
    locks = PgShardLocks(url)
    await locks.claim((0,), 1, "the running bot")
    gate = asyncio.Event()

    async def pause(_: float) -> None:
        await gate.wait()

    watch = asyncio.create_task(locks.watch(pause=pause))
    other: ShardLocks | None = None
    try:
        own_pg_server.restart()
        other = await ShardLocks.claim(url, [0], 1)
        gate.set()
        with pytest.raises(ShardsLost) as raised:
            await asyncio.wait_for(watch, BOUND)
        assert raised.value.refusal.startswith(
            "lost the shard locks while PostgreSQL was unreachable, and shard 0 of 1 is"
            " already run by tpquiz "
        )
        assert raised.value.refusal.endswith(
            ": this process stops and leaves its shards to that one"
        )
        assert url.password not in raised.value.refusal
        # The other process keeps the shard; the stopped one left nothing held.
        assert other.alive
        shards, _ = await holders(url)
        assert set(shards) == {0} and shards[0].pid == other._conn.get_server_pid()
    finally:
        watch.cancel()
        await asyncio.gather(watch, return_exceptions=True)
        await locks.release()
        if other is not None:
            await other.release()


async def test_an_outage_is_waited_out_and_the_locks_are_claimed_when_it_ends(
    own_pg_server: PgServer,
) -> None:
    """The server stays down for several of the watch's retries; it claims once up."""
    url = DatabaseUrl(own_pg_server.url())
    locks = PgShardLocks(url)
    await locks.claim((0,), 1, "the running bot")
    tries = 0
    retried = asyncio.Event()

    async def pause(seconds: float) -> None:
        nonlocal tries
        if seconds == 0.5:  # `retry`: a claim failed while the server is down
            tries += 1
            if tries >= 3:
                retried.set()
        await asyncio.sleep(0.01)

    watch = asyncio.create_task(locks.watch(interval=0.25, retry=0.5, pause=pause))
    try:
        own_pg_server.halt()
        await asyncio.wait_for(retried.wait(), BOUND)
        assert not watch.done()
        own_pg_server.resume()
        await until(lambda: held(url, {0}), "shard 0 held again once the server is back")
        with pytest.raises(ShardHeld):
            await ShardLocks.claim(url, [0], 1)
    finally:
        watch.cancel()
        await asyncio.gather(watch, return_exceptions=True)
        await locks.release()


async def test_watch_needs_a_claim_first(pg_url: str) -> None:
    with pytest.raises(RuntimeError, match="before claim"):
        await PgShardLocks(DatabaseUrl(pg_url)).watch()


async def test_a_session_of_our_own_still_holding_the_locks_is_ended_on_reclaim(
    pg_url: str,
) -> None:
    """A network cut rather than a restart: the server still keeps the old session, with
    the locks. Recognised by its server pid (and our application name), it is ended and
    the locks taken; any other holder is a refusal."""
    url = DatabaseUrl(pg_url)
    old = await ShardLocks.claim(url, [0], 1)
    pid = old._conn.get_server_pid()
    with pytest.raises(ShardHeld):  # not ours to end: refused
        await ShardLocks._connect_and_take(url, (0,), 1, stale=pid + 1)
    conn = await ShardLocks._connect_and_take(url, (0,), 1, stale=pid)
    try:
        shards, _ = await holders(url)
        assert shards[0].pid == conn.get_server_pid() != pid
        with pytest.raises(ShardHeld):
            await ShardLocks.claim(url, [0], 1)
    finally:
        await conn.close()
        await old.release()
