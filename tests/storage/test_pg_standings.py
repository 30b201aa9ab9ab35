"""One data set on both backends ranks the same: SQLite written by the real click path,
copied into PostgreSQL (bot/storage/copy.py), every leaderboard read compared."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from bot.storage.copy import copy_from_sqlite
from bot.storage.periods import DAY_MS, month_start_ms, week_start_ms
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.executor import PgExecutor
from bot.storage.pg.standings import PgStandings
from bot.storage.problems import DatabaseUnusable
from bot.storage.sql import Dialect, Query
from bot.storage.sqlite import Storage
from bot.storage.stores.posts import PostStore
from tests.factories import make_bank

GUILDS = (7, 2**62)
LAST = 1_764_700_000_000  # the newest answer: 2025-12-02


async def _fill(path: Path) -> None:
    """Two servers, 25 members with ties, 70 days of answers, some finished tests."""
    rng = random.Random(15)
    storage = await Storage.open(path)
    questions = list(make_bank())
    try:
        for guild in GUILDS:
            for user in range(1, 26):
                for q in rng.sample(questions, rng.randint(0, min(8, len(questions)))):
                    post = await storage.posts.create(
                        guild_id=guild, channel_id=1, question_id=q.id,
                        order=tuple(range(len(q.choices))), language="en", now_ms=0,
                    )  # fmt: skip
                    right = rng.random() < 0.6
                    await storage.answers.record(
                        guild_id=guild, user_id=user, name=f"member {user}", question=q,
                        choice_index=q.correct_index if right else (q.correct_index + 1) % 2,
                        now_ms=LAST - rng.randrange(70) * DAY_MS - rng.randrange(DAY_MS),
                        post_id=post.id,
                    )  # fmt: skip
                if user % 4 == 0:
                    run = await storage.test_runs.create(
                        guild_id=guild, user_id=user, question_ids=("a", "b", "c"),
                        orders=((0,), (0,), (0,)), now_ms=LAST - DAY_MS,
                    )  # fmt: skip
                    await storage.test_runs.finish(run.id, score=user % 3, now_ms=LAST)
    finally:
        await storage.close()


@pytest.fixture
async def both(tmp_path: Path, pg_url: str):
    path = tmp_path / "ranked.sqlite3"
    await _fill(path)
    pg = await PgDatabase.open(pg_url)
    copied = await copy_from_sqlite(path, pg)
    lite = await Storage.open(path)
    try:
        yield lite, pg, copied
    finally:
        await lite.close()
        await pg.close()


def _sinces() -> list[int | None]:
    return [
        None,
        week_start_ms(LAST),  # the current week: member_periods
        month_start_ms(LAST),  # the current month: member_periods
        week_start_ms(LAST) - 7 * DAY_MS,  # an earlier week: raw aggregation
        month_start_ms(month_start_ms(LAST) - 1),  # an earlier month: raw aggregation
        LAST - 20 * DAY_MS,  # any instant: raw aggregation
    ]


async def test_the_copy_holds_every_row(both, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lite, pg, copied = both
    with sqlite3.connect(tmp_path / "ranked.sqlite3") as conn:
        for table, count in copied.items():
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == count, table
    assert copied["answers"] > 100 and copied["member_periods"] > 0 and copied["cards"] > 0
    # The identity moved past the copied ids: the next post gets a fresh one.
    post = await PostStore(PgExecutor(pg)).create(
        guild_id=1, channel_id=1, question_id="q", order=(0,), language="en", now_ms=0
    )
    assert post.id == copied["posts"] + 1


async def test_a_second_copy_into_the_same_database_is_refused(both, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, pg, _ = both
    with pytest.raises(DatabaseUnusable, match=r"already holds rows \(table "):
        await copy_from_sqlite(tmp_path / "ranked.sqlite3", pg)


async def test_every_page_and_position_is_the_same_on_both(both) -> None:  # type: ignore[no-untyped-def]
    lite, pg, _ = both
    post = PgStandings(pg)
    for guild in (*GUILDS, 12345):
        for since in _sinces():
            assert await post.all_rows(guild, since) == await lite.standings.all_rows(
                guild, since
            ), (guild, since)
            for offset, limit in ((0, 10), (10, 10), (3, 1), (0, 0), (100, 10)):
                got = await post.page(guild, since, offset=offset, limit=limit)
                want = await lite.standings.page(guild, since, offset=offset, limit=limit)
                assert got == want, (guild, since, offset, limit)
            for user in range(0, 27):
                got_pos = await post.position(guild, user, since)
                assert got_pos == await lite.standings.position(guild, user, since), (
                    guild,
                    since,
                    user,
                )


async def test_every_members_stats_are_the_same_on_both(both) -> None:  # type: ignore[no-untyped-def]
    lite, pg, _ = both
    post = PgStandings(pg)
    seen_tests = 0
    for guild in GUILDS:
        for user in range(0, 27):
            got = await post.member_stats(guild, user)
            assert got == await lite.standings.member_stats(guild, user), (guild, user)
            seen_tests += got is not None and got.best_test is not None
    assert seen_tests > 0


def test_named_parameters_become_numbered_ones() -> None:
    sql, args = Query("SELECT :a, :b::text, :a WHERE x = :c").bind(
        Dialect.POSTGRESQL, {"a": 1, "b": "two", "c": None, "d": 4}
    )
    assert sql == "SELECT $1, $2::text, $1 WHERE x = $3"
    assert args == [1, "two", None]


async def test_each_read_of_the_current_periods_is_one_statement(both) -> None:  # type: ignore[no-untyped-def]
    """A round trip to the server is most of a read's time (bench/pg_scale.py): a page, a
    position and a member's stats for the bot's periods each take one statement; a bucket
    that is not the current one costs a second (and still ranks as SQLite does above)."""
    lite, pg, _ = both
    post = PgStandings(pg)
    statements: list[str] = []
    fetch = pg.fetch

    async def counted(sql: str, *args: object) -> list[object]:
        statements.append(sql)
        return await fetch(sql, *args)

    pg.fetch = counted
    try:
        for since in _sinces()[:3]:
            for call in (
                lambda s=since: post.page(GUILDS[0], s, offset=0, limit=10),
                lambda s=since: post.page(GUILDS[0], s, offset=100, limit=10),
                lambda s=since: post.position(GUILDS[0], 5, s),
                lambda s=since: post.position(GUILDS[0], 0, s),
            ):
                statements.clear()
                await call()
                assert len(statements) == 1, (since, statements)
        for user in (5, 0):
            statements.clear()
            await post.member_stats(GUILDS[0], user)
            assert len(statements) == 1, statements
        (first, last) = (await fetch(
            "SELECT MIN(starts_at), MAX(starts_at) FROM member_periods"
            " WHERE guild_id = $1 AND period = 'week'", GUILDS[0],
        ))[0]  # fmt: skip
        assert first < last  # the first week is not the current one
        statements.clear()
        got = await post.page(GUILDS[0], first, offset=0, limit=10)
        assert len(statements) == 3  # the guess, the check, the raw aggregation
        assert got == await lite.standings.page(GUILDS[0], first, offset=0, limit=10)
        statements.clear()
        assert await post.position(GUILDS[0], 5, first) == await lite.standings.position(
            GUILDS[0], 5, first
        )
        assert len(statements) == 3
    finally:
        pg.fetch = fetch
