"""What `tpquiz run` holds on PostgreSQL: this process's shard locks, then the stores.

Why claim first: several processes share one PostgreSQL database, and two running the
same shard would both post each of its servers' daily question. So the process claims
the lock of each shard it runs (bot/infra/shard_lock.py `shards_to_claim`) before it
migrates or connects to Discord; a second process on the same shards is refused there
(`ShardHeld`, one line naming the holder). The locks are watched while the bot runs: a
database restart drops them and they are claimed again; taken meanwhile by another
process, the watch ends with `ShardsLost`, which stops this bot. Reached only through
`bot.storage.factory.open_for_run`, as SQLite's run lock is.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import asyncpg

from bot.infra.shard_lock import holder_name, shards_to_claim
from bot.infra.shards import Ownership
from bot.storage.pg.db import cannot_connect
from bot.storage.pg.shard_locks import PgShardLocks
from bot.storage.pg.storage import PgStorage
from bot.storage.problems import DatabaseUnusable

if TYPE_CHECKING:
    from bot.infra.config import Settings

__all__ = ["claimed_storage"]


@asynccontextmanager
async def claimed_storage(
    settings: Settings,
) -> AsyncIterator[tuple[PgStorage, asyncio.Task[None]]]:
    """Claim this process's shard locks, open (and migrate) the stores, and yield them with
    the locks' watch (done when the locks are lost; its result raises why). The caller
    closes the stores; the locks are given back on the way out, also when it fails."""
    url = settings.database_url
    assert url is not None
    shard_ids, shard_count = shards_to_claim(Ownership.of(settings.shard_count, settings.shard_ids))
    locks = PgShardLocks(url)
    try:
        await locks.claim(shard_ids, shard_count, holder_name())
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise DatabaseUnusable(cannot_connect(url, exc)) from None
    # Watched from here on: a database restart drops the locks, and they are claimed
    # again; taken meanwhile by another process, this one stops (ShardsLost).
    watch = asyncio.create_task(locks.watch())
    try:
        storage = await PgStorage.open(url)
        yield storage, watch
        if watch.done():
            watch.result()  # raises what stopped the bot
    finally:
        watch.cancel()
        await asyncio.gather(watch, return_exceptions=True)
        await locks.release()
