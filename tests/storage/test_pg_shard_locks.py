"""Advisory locks per shard on a real PostgreSQL server (bot/storage/pg/shard_locks.py)."""

from __future__ import annotations

import asyncpg
import pytest

from bot.infra.config import DatabaseUrl
from bot.infra.shard_lock import ShardCountMismatch, ShardHeld
from bot.storage.pg.shard_locks import PgShardLocks, ShardLocks, application_name, holders


async def test_a_second_process_asking_for_a_held_shard_is_refused_naming_the_holder(
    pg_url: str,
) -> None:
    url = DatabaseUrl.parse(pg_url)
    first = await ShardLocks.claim(url, [0, 1], 2)
    try:
        with pytest.raises(ShardHeld) as raised:
            await ShardLocks.claim(url, [1], 2)
        message = raised.value.refusal
        assert message.startswith("shard 1 of 2 is already run by tpquiz ")
        assert application_name() in message and "\n" not in message
        shards, counts = await holders(url)
        assert set(shards) == {0, 1} and set(counts) == {2}
        assert shards[0].application == application_name()
    finally:
        await first.release()
    # Refused, the second claim kept nothing: the shard is free once the first lets go.
    again = await ShardLocks.claim(url, [1], 2)
    await again.release()
    assert await holders(url) == ({}, {})


async def test_processes_with_disjoint_shards_run_side_by_side(pg_url: str) -> None:
    url = DatabaseUrl.parse(pg_url)
    left = await ShardLocks.claim(url, [0, 1], 4)
    right = await ShardLocks.claim(url, [3, 2], 4)
    try:
        assert right.shard_ids == (2, 3)
        assert set((await holders(url))[0]) == {0, 1, 2, 3}
    finally:
        await left.release()
        await right.release()


async def test_a_process_with_another_shard_count_is_refused(pg_url: str) -> None:
    url = DatabaseUrl.parse(pg_url)
    running = await ShardLocks.claim(url, [0], 2)
    try:
        with pytest.raises(ShardCountMismatch, match="TPQUIZ_SHARD_COUNT=2, not 4"):
            await ShardLocks.claim(url, [3], 4)
        assert set((await holders(url))[1]) == {2}  # the refused count left no lock
    finally:
        await running.release()


async def test_the_locks_die_with_their_connection_as_with_a_killed_process(pg_url: str) -> None:
    url = DatabaseUrl.parse(pg_url)
    crashed = await ShardLocks.claim(url, [0], 1)
    shards, _ = await holders(url)
    admin = await asyncpg.connect(pg_url)
    try:
        await admin.execute("SELECT pg_terminate_backend($1)", shards[0].pid)
    finally:
        await admin.close()
    successor = await ShardLocks.claim(url, [0], 1)
    try:
        assert successor.alive
    finally:
        await successor.release()
        await crashed.release()
    assert not crashed.alive


@pytest.mark.parametrize(("ids", "count"), [([], 2), ([2], 2), ([-1], 2), ([0], 0)])
async def test_shards_that_do_not_fit_the_count_are_a_programming_error(
    ids: list[int], count: int
) -> None:
    with pytest.raises(ValueError, match="do not fit"):
        await ShardLocks.claim(DatabaseUrl.parse("postgresql://u@localhost/db"), ids, count)


async def test_the_seam_claims_and_releases_on_postgresql(pg_url: str) -> None:
    url = DatabaseUrl.parse(pg_url)
    locks = PgShardLocks(url)
    await locks.claim((0, 1), 2, "host pid 1")
    try:
        with pytest.raises(ShardHeld):
            await PgShardLocks(url).claim((1,), 2, "host pid 2")
    finally:
        await locks.release()
    assert await holders(url) == ({}, {})
