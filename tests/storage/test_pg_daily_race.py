"""The daily claim of one (server, local date) by two processes at the same moment.

Two bot processes ticking their daily schedulers (issue 15) may both find a server due
and claim its day at once. bot/storage/stores/daily.py `claim` relies on the settings row
lock taken by its conditional UPDATE (the second claimer waits for the first to commit,
then re-checks the condition and gets no row) and on the slot's primary key. A test that
only fires claims together may let one finish before the other starts; here a third
session holds the server's settings row lock until the server reports both claimers
waiting on a lock, so the two claims are truly in flight together when it lets go.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.storage.pg.db import PgDatabase
from bot.storage.pg.executor import PgExecutor
from bot.storage.records import Post
from bot.storage.stores.daily import DailyStore

GUILD = 111
DAY = "2026-12-04"
HOUR = 3_600_000


@pytest.fixture
async def two_processes(pg_url: str) -> AsyncIterator[tuple[PgDatabase, PgDatabase]]:
    """Two databases on one server, each a single session of its own (two processes)."""
    first = await PgDatabase.open(pg_url, max_size=1)  # migrates
    second = await PgDatabase.open(pg_url, migrate=False, max_size=1)
    try:
        yield first, second
    finally:
        await asyncio.gather(first.close(), second.close())


async def _claim(db: PgDatabase) -> Post | None:
    return await DailyStore(PgExecutor(db)).claim(
        GUILD,
        DAY,
        channel_id=5,
        question_id="mlp-split-01",
        round_=1,
        order=(1, 0, 2, 3),
        language="en",
        now_ms=10,
        closes_at=10 + 24 * HOUR,
    )


async def _until_waiting_on_locks(observer: asyncpg.Connection, count: int) -> None:
    """Return once `count` sessions of this database wait on a lock (each query is a
    fresh look at pg_stat_activity, since the observer is outside any transaction)."""
    async with asyncio.timeout(30):
        while True:
            waiting = await observer.fetchval(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if waiting >= count:
                return


async def test_two_processes_claiming_one_day_at_once_make_one_post(
    two_processes: tuple[PgDatabase, PgDatabase], pg_url: str
) -> None:
    first, second = two_processes
    await DailyStore(PgExecutor(first)).set_schedule(
        GUILD, channel_id=5, post_time="09:00", timezone="UTC", now_ms=0
    )
    blocker = await asyncpg.connect(pg_url)
    observer = await asyncpg.connect(pg_url)
    try:
        hold = blocker.transaction()
        await hold.start()
        await blocker.execute("SELECT 1 FROM daily_settings WHERE guild_id = $1 FOR UPDATE", GUILD)
        claims = [asyncio.create_task(_claim(db)) for db in (first, second)]
        await _until_waiting_on_locks(observer, 2)
        await hold.rollback()
        results = await asyncio.gather(*claims)
        posts = await observer.fetch("SELECT id, daily_date FROM posts WHERE kind = 'daily'")
        slots = await observer.fetch("SELECT post_id FROM daily_slots WHERE guild_id = $1", GUILD)
    finally:
        await blocker.close()
        await observer.close()
    won = [p for p in results if p is not None]
    assert len(won) == 1 and won[0].daily_date == DAY
    assert [(r["id"], r["daily_date"]) for r in posts] == [(won[0].id, DAY)]
    assert [r["post_id"] for r in slots] == [won[0].id]
