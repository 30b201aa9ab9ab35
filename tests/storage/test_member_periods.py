"""Leaderboard summaries (migration 0003) and the leaderboards read from them.

The index-backed leaderboard must give exactly what ranking every answer would: these
tests compare `Standings` with a brute-force ranking in Python over random answers, for
the current week and month (read from `member_periods`), all time (from `members`) and
other `since` values (the raw aggregation fallback), check that the migration's
backfill of existing answers equals what `AnswerStore.record` keeps up to date, and that
`score_counts` always equals a recount. The rankings and the recount run on SQLite and
on PostgreSQL (the `backend` fixture); the backfill is SQLite's migration.
"""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.quiz.periods import period_start
from bot.storage.migration_files import split_sql
from bot.storage.periods import month_start_ms, week_start_ms
from bot.storage.pg.standings import PgStandings
from bot.storage.sqlite import Storage
from bot.storage.sqlite.migrate import migrations
from bot.storage.sqlite.standings import Standings
from tests.factories import make_bank
from tests.storage.conftest import Backend

GUILD = 77
DAY = 86_400_000


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


@pytest.mark.parametrize("seed", range(5))
def test_bucket_starts_agree_with_the_periods_of_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    special = [
        datetime(2026, 6, 1, tzinfo=UTC),  # a Monday that is also the 1st
        datetime(2026, 6, 1, tzinfo=UTC) - timedelta(milliseconds=1),
        datetime(2024, 2, 29, 23, 59, 59, tzinfo=UTC),
        datetime(1970, 1, 1, tzinfo=UTC),
    ]
    moments = special + [
        datetime(2020, 1, 1, tzinfo=UTC) + timedelta(milliseconds=rng.randrange(10 * 365 * DAY))
        for _ in range(500)
    ]
    for moment in moments:
        week, month = period_start("week", moment), period_start("month", moment)
        assert week is not None and month is not None
        assert week_start_ms(_ms(moment)) == _ms(week), moment
        assert month_start_ms(_ms(moment)) == _ms(month), moment


def _brute_force(
    answers: list[tuple[int, int, int, int]], since: int | None
) -> list[tuple[int, int, int, int, int]]:
    """(rank, user, points, answered, correct) in leaderboard order, from raw answers."""
    totals: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    for user, points, correct, at in answers:
        if since is None or at >= since:
            t = totals[user]
            t[0] += points
            t[1] += 1
            t[2] += correct
    order = sorted(totals.items(), key=lambda kv: (-kv[1][0], -kv[1][2], kv[1][1], kv[0]))
    ranked = []
    for user, (points, answered, correct) in order:
        ahead = sum(1 for p, _, c in totals.values() if (p, c) > (points, correct))
        ranked.append((ahead + 1, user, points, answered, correct))
    return ranked


async def _fill(stores: Storage | Backend) -> datetime:
    """60 members answering over ten weeks up to the returned `now`, many ties (points
    are 0 or 1), through the real click path."""
    bank = make_bank()
    questions = list(bank)
    rng = random.Random(42)
    now = datetime(2026, 12, 9, 9, 0, tzinfo=UTC)  # a Wednesday; Monday and the 1st had posts
    posts = []
    for i in range(40):
        q = questions[i % len(questions)]
        post = await stores.posts.create(
            guild_id=GUILD,
            channel_id=1,
            question_id=q.id,
            order=tuple(range(len(q.choices))),
            language="en",
            now_ms=0,
        )
        posts.append((post.id, q, _ms(now) - (40 - i) * 42 * 3_600_000))
    for post_id, q, at in posts:
        for user in rng.sample(range(1, 61), rng.randrange(5, 40)):
            choice = q.correct_index if rng.random() < 0.6 else (q.correct_index + 1) % 2
            await stores.answers.record(
                guild_id=GUILD,
                user_id=user,
                name=f"u{user}",
                question=q,
                choice_index=choice,
                now_ms=at,
                post_id=post_id,
            )
    return now


@pytest.fixture
async def random_answers(backend: Backend):
    """The answers of `_fill` on each backend."""
    now = await _fill(backend)
    yield backend, now


@pytest.fixture
async def sqlite_answers(tmp_path: Path):
    """The answers of `_fill` in a SQLite file (for the SQLite migration's backfill)."""
    storage = await Storage.open(tmp_path / "p.sqlite3")
    now = await _fill(storage)
    yield storage, now
    await storage.close()


async def test_every_source_ranks_like_the_brute_force(random_answers) -> None:
    storage, now = random_answers
    answers = await storage.rows(
        "SELECT user_id, points, correct, answered_at FROM answers WHERE guild_id = ?", (GUILD,)
    )
    week, month = period_start("week", now), period_start("month", now)
    assert week is not None and month is not None
    sinces = [None, _ms(week), _ms(month), _ms(week) - 7 * DAY, _ms(now) - 20 * DAY - 12345]
    # The current week and month come from member_periods, an older week from the raw
    # answers (a later week exists), any other instant too.
    standings = storage.standings
    assert isinstance(standings, Standings | PgStandings)
    sources = [(await standings._source(GUILD, s)).table for s in sinces]
    assert sources[:3] == ["members", "member_periods", "member_periods"]
    assert all(t.startswith("(SELECT") for t in sources[3:])
    for since in sinces:
        expected = _brute_force(answers, since)
        rows, total = await storage.standings.page(GUILD, since, offset=0, limit=-1)
        got = [
            (r.rank, r.score.user_id, r.score.points, r.score.answered, r.score.correct)
            for r in rows
        ]
        assert (got, total) == (expected, len(expected)), since
        for offset in (0, 7, len(expected) - 3):
            page, _ = await storage.standings.page(GUILD, since, offset=offset, limit=10)
            assert [(r.rank, r.score.user_id) for r in page] == [
                (e[0], e[1]) for e in expected[offset : offset + 10]
            ], (since, offset)
        for row_index, (rank, user, points, _, _) in enumerate(expected):
            found = await storage.standings.position(GUILD, user, since)
            assert found is not None
            assert (found[0].rank, found[0].score.points, found[1]) == (rank, points, row_index)
        assert await storage.standings.position(GUILD, 10_000, since) is None


async def test_the_backfill_equals_what_recording_keeps(sqlite_answers, tmp_path: Path) -> None:
    storage, _ = sqlite_answers
    # A database at schema version 2 holding the same posts, answers and member totals,
    # then opened (0003 runs).
    old = tmp_path / "old.sqlite3"
    with sqlite3.connect(old, isolation_level=None) as conn:
        for version, _, sql in migrations():
            if version > 2:
                break
            for statement in split_sql(sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
        # The columns posts had at schema version 2 (0004 added params).
        async with storage.db.conn.execute(
            "SELECT id, guild_id, channel_id, message_id, question_id, choice_order, language,"
            " kind, created_at, closes_at, closed_at, answer_count, daily_date FROM posts"
        ) as cur:
            posts = [tuple(r) for r in await cur.fetchall()]
        conn.executemany(f"INSERT INTO posts VALUES ({','.join('?' * len(posts[0]))})", posts)
        async with storage.db.conn.execute(
            "SELECT guild_id, user_id, question_id, topic, post_id, choice_index, correct,"
            " first, points, answered_at FROM answers"
        ) as cur:
            rows = [tuple(r) for r in await cur.fetchall()]
        conn.executemany(
            "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id, choice_index,"
            " correct, first, points, answered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        async with storage.db.conn.execute("SELECT * FROM members") as cur:
            members = [tuple(r) for r in await cur.fetchall()]
        conn.executemany(f"INSERT INTO members VALUES ({','.join('?' * 8)})", members)
    migrated = await Storage.open(old)
    try:
        for query in (
            "SELECT * FROM member_periods ORDER BY guild_id, period, starts_at, user_id",
            # Recording leaves pairs nobody holds any more at 0; the backfill has none.
            "SELECT * FROM score_counts WHERE members > 0"
            " ORDER BY guild_id, period, starts_at, points, correct",
        ):
            async with migrated.db.conn.execute(query) as cur:
                backfilled = [tuple(r) for r in await cur.fetchall()]
            async with storage.db.conn.execute(query) as cur:
                kept = [tuple(r) for r in await cur.fetchall()]
            assert backfilled == kept and len(kept) > 20, query
    finally:
        await migrated.close()


async def test_score_counts_match_a_recount(random_answers) -> None:
    storage, _ = random_answers
    kept = await storage.rows(
        "SELECT period, starts_at, points, correct, members FROM score_counts"
        " WHERE guild_id = ? AND members > 0 ORDER BY 1, 2, 3, 4",
        (GUILD,),
    )
    recount = await storage.rows(
        "SELECT 'all', 0, points, correct, COUNT(*) FROM members WHERE guild_id = ?"
        " GROUP BY 3, 4"
        " UNION ALL SELECT period, starts_at, points, correct, COUNT(*) FROM member_periods"
        " WHERE guild_id = ? GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
        (GUILD, GUILD),
    )
    assert kept == recount and len(kept) > 20
