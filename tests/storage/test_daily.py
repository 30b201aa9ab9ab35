"""Daily posts in storage: one slot per server and day even under concurrent claims and
across restarts, delivery errors, closing, daily streaks. The store's own tests run on
SQLite and on PostgreSQL (the `backend` fixture); the SQLite migration, the second
process on one SQLite file stays SQLite-only. The service-level tests get the backend's
stores in place of `Storage` (they use only contract methods)."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from bot.services.daily import DailyService
from bot.services.quiz import QuizError, QuizService, to_ms
from bot.storage.records import Post
from bot.storage.sqlite import Storage
from bot.storage.sqlite.migrate import migrations
from tests.factories import make_bank
from tests.storage.conftest import Backend

GUILD, OTHER = 111, 222
CHANNEL = 5
ALICE, BOB = 1001, 1002
DAY = "2024-12-02"
HOUR = 3_600_000


@pytest.fixture
async def storage(tmp_path: Path):
    s = await Storage.open(tmp_path / "quiz.sqlite3")
    yield s
    await s.close()


async def _enable(storage: Storage | Backend, guild: int = GUILD, now_ms: int = 0) -> None:
    await storage.daily.set_schedule(
        guild, channel_id=CHANNEL, post_time="09:00", timezone="UTC", now_ms=now_ms
    )


async def _claim(
    storage: Storage | Backend,
    guild: int = GUILD,
    day: str = DAY,
    qid: str = "mlp-split-01",
    now: int = 10,
) -> Post | None:
    return await storage.daily.claim(
        guild,
        day,
        channel_id=CHANNEL,
        question_id=qid,
        round_=1,
        order=(1, 0, 2, 3),
        language="en",
        now_ms=now,
        closes_at=now + 24 * HOUR,
    )


async def test_the_migration_adds_the_daily_tables(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    s = await Storage.open(path)
    assert await s.db.schema_version() == len(migrations()) >= 2
    await s.close()
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        columns = {r[1] for r in conn.execute("PRAGMA table_info(posts)")}
    assert {"daily_settings", "daily_slots", "daily_streaks"} <= tables
    assert "daily_date" in columns


async def test_a_day_is_claimed_once(backend: Backend) -> None:
    await _enable(backend)
    post = await _claim(backend)
    assert post is not None and post.kind == "daily" and post.daily_date == DAY
    assert post.closes_at == 10 + 24 * HOUR
    assert await _claim(backend) is None
    assert await _claim(backend, day="2024-12-01") is None  # an earlier day neither
    assert (await backend.daily.get(GUILD)).last_date == DAY  # type: ignore[union-attr]
    assert await backend.daily.slot(GUILD, DAY) == ("claimed", post.id)


async def test_twenty_concurrent_claims_of_a_day_create_one_post(backend: Backend) -> None:
    await _enable(backend)
    await _enable(backend, OTHER)
    results = await asyncio.gather(
        *(_claim(backend, guild) for guild in (GUILD, OTHER) for _ in range(10))
    )
    won = [p for p in results if p is not None]
    assert sorted(p.guild_id for p in won) == [GUILD, OTHER]
    assert await backend.scalar("SELECT COUNT(*) FROM posts WHERE kind = 'daily'", ()) == 2


async def test_a_second_process_on_the_same_file_cannot_claim_the_day_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "shared.sqlite3"
    first, second = await Storage.open(path), await Storage.open(path)
    try:
        await _enable(first)
        results = await asyncio.gather(_claim(first), _claim(second))
        assert sum(r is not None for r in results) == 1
    finally:
        await first.close()
        await second.close()


async def test_the_claim_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "restart.sqlite3"
    s = await Storage.open(path)
    await _enable(s)
    assert await _claim(s) is not None
    await s.close()
    s = await Storage.open(path)
    try:
        assert await _claim(s) is None
        assert await _claim(s, day="2024-12-03") is not None
    finally:
        await s.close()


async def test_no_claim_without_daily_settings(backend: Backend) -> None:
    assert await _claim(backend) is None


async def test_a_failed_send_keeps_the_day_records_the_error_and_forgets_the_post(
    backend: Backend,
) -> None:
    await _enable(backend)
    post = await _claim(backend)
    assert post is not None
    await backend.daily.failed(post, code=50013, status=403, text="Missing Permissions", now_ms=99)
    settings = await backend.daily.get(GUILD)
    assert settings is not None
    assert (settings.error_code, settings.error_status, settings.error_channel) == (
        50013,
        403,
        CHANNEL,
    )
    assert await backend.posts.get(post.id) is None
    assert await backend.daily.slot(GUILD, DAY) == ("failed", None)
    assert await backend.daily.history(GUILD) == []
    assert await _claim(backend) is None  # not retried the same day
    nxt = await _claim(backend, day="2024-12-03")
    assert nxt is not None
    older = await backend.daily.delivered(nxt, message_id=777)
    assert older == []
    assert (await backend.daily.get(GUILD)).error_code is None  # type: ignore[union-attr]


async def test_delivery_returns_the_older_open_post_and_builds_history(backend: Backend) -> None:
    await _enable(backend)
    first = await _claim(backend, day="2024-12-01", qid="start-01")
    assert first is not None
    assert await backend.daily.delivered(first, 501) == []
    second = await _claim(backend, day="2024-12-02", qid="start-02")
    assert second is not None
    older = await backend.daily.delivered(second, 502)
    assert [p.id for p in older] == [first.id]
    assert older[0].message_id == 501
    assert await backend.daily.history(GUILD) == [("start-02", 1), ("start-01", 1)]


async def test_closing_is_done_by_one_closer(backend: Backend) -> None:
    await _enable(backend)
    post = await _claim(backend, now=1_000)
    assert post is not None
    await backend.daily.delivered(post, 9)
    assert await backend.daily.due_to_close(1_000 + 24 * HOUR - 1) == []
    assert [p.id for p in await backend.daily.due_to_close(1_000 + 24 * HOUR)] == [post.id]
    closed = await asyncio.gather(*(backend.daily.close(post.id, 5_000) for _ in range(5)))
    assert sum(c is not None for c in closed) == 1
    assert await backend.daily.due_to_close(10 * 24 * HOUR) == []


async def test_turning_off_closes_the_open_post_24_hours_after_it_was_posted(
    backend: Backend,
) -> None:
    await _enable(backend)
    post = await backend.daily.claim(
        GUILD,
        DAY,
        channel_id=CHANNEL,
        question_id="start-01",
        round_=1,
        order=(0, 1, 2, 3),
        language="en",
        now_ms=1_000,
        closes_at=1_000 + 40 * HOUR,
    )
    assert post is not None
    assert await backend.daily.disable(GUILD, close_after_ms=24 * HOUR)
    assert not await backend.daily.disable(GUILD, close_after_ms=24 * HOUR)
    assert (await backend.posts.get(post.id)).closes_at == 1_000 + 24 * HOUR  # type: ignore[union-attr]
    assert await backend.daily.enabled() == []


async def test_a_new_schedule_moves_the_open_posts_closing_time_and_clears_the_error(
    backend: Backend,
) -> None:
    await _enable(backend)
    post = await _claim(backend)
    assert post is not None
    await backend.daily.failed(post, code=10003, status=404, text="Unknown Channel", now_ms=5)
    open_post = await _claim(backend, day="2024-12-03")
    assert open_post is not None
    await backend.daily.set_schedule(
        GUILD,
        channel_id=6,
        post_time="15:00",
        timezone="Europe/Istanbul",
        now_ms=7,
        open_closes_at=123_456,
    )
    settings = await backend.daily.get(GUILD)
    assert settings is not None
    assert (settings.channel_id, settings.post_time, settings.timezone) == (
        6,
        "15:00",
        "Europe/Istanbul",
    )
    assert settings.error_code is None and settings.last_date == "2024-12-03"
    assert (await backend.posts.get(open_post.id)).closes_at == 123_456  # type: ignore[union-attr]


# -- streaks through the service -----------------------------------------------------------


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


async def test_daily_streaks_count_consecutive_daily_questions(backend: Backend) -> None:
    bank = make_bank()
    clock = Clock(datetime(2024, 12, 1, 9, tzinfo=UTC))
    quiz = QuizService(
        bank,
        backend,  # type: ignore[arg-type]  # the stores it uses
        clock,
        random.Random(3),
    )
    daily = DailyService(quiz)
    await daily.configure(GUILD, channel_id=CHANNEL, time_text="09:00", timezone="UTC")
    # configure at 09:00 sharp: today's 09:00 is not before the moment it was set.

    async def post_day(day: date) -> Post:
        clock.now = datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=9)
        assert await daily.due(clock.now) == [(GUILD, day)]
        claim = await daily.claim(GUILD, day, clock.now)
        assert claim is not None
        for old in await daily.delivered(claim, message_id=day.day):
            await daily.close(old.id, clock.now)
        return claim.post

    async def answer(post: Post, user: int) -> None:
        question = bank[post.question_id]
        await quiz.answer_post(
            post_id=post.id,
            guild_id=GUILD,
            user_id=user,
            name=str(user),
            choice_index=question.correct_index,
        )

    d1 = date(2024, 12, 1)
    days = [d1 + timedelta(days=i) for i in range(4)]
    p1 = await post_day(days[0])
    await answer(p1, ALICE)
    await answer(p1, BOB)
    await answer(p1, ALICE)  # a duplicate click changes nothing
    p2 = await post_day(days[1])
    await answer(p2, ALICE)
    assert await backend.daily.current_streaks(GUILD, [ALICE, BOB]) == {
        ALICE: (2, 2),
        BOB: (1, 1),  # day 2 is still open: Bob can still answer it
    }
    p3 = await post_day(days[2])  # closes day 2: Bob missed it
    assert await backend.daily.current_streaks(GUILD, [ALICE, BOB]) == {
        ALICE: (2, 2),
        BOB: (0, 1),
    }
    await answer(p3, ALICE)
    await answer(p3, BOB)
    assert await backend.daily.current_streaks(GUILD, [ALICE, BOB]) == {
        ALICE: (3, 3),
        BOB: (1, 1),
    }
    report = await quiz.stats(guild_id=GUILD, user_id=ALICE)
    assert report is not None and report.daily_streak == (3, 3)
    board = await quiz.leaderboard(guild_id=GUILD, user_id=ALICE, period="all", page=0)
    assert board.daily_streaks == {ALICE: 3, BOB: 1}
    # A closed daily post answers "closed" and records nothing.
    closed = await quiz.answer_post(
        post_id=p2.id, guild_id=GUILD, user_id=BOB, name="bob", choice_index=0
    )
    assert closed.closed and closed.result is None


async def test_daily_now_counts_as_today_and_refuses_a_second_time(backend: Backend) -> None:
    clock = Clock(datetime(2024, 12, 2, 15, tzinfo=UTC))
    quiz = QuizService(
        make_bank(),
        backend,  # type: ignore[arg-type]
        clock,
        random.Random(3),
    )
    daily = DailyService(quiz)
    with pytest.raises(QuizError) as caught:
        await daily.claim_now(GUILD)
    assert caught.value.key == "daily_not_on"
    await daily.configure(GUILD, channel_id=CHANNEL, time_text="18:00", timezone="Europe/Istanbul")
    claim = await daily.claim_now(GUILD)
    assert claim.day == date(2024, 12, 2)
    # Closes at tomorrow's 18:00 Istanbul (15:00 UTC).
    assert claim.post.closes_at == to_ms(datetime(2024, 12, 3, 15, tzinfo=UTC))
    with pytest.raises(QuizError) as caught:
        await daily.claim_now(GUILD)
    assert caught.value.key == "daily_already_today"
    clock.now = datetime(2024, 12, 2, 15, 30, tzinfo=UTC)  # 18:30 Istanbul: already posted
    assert await daily.due(clock.now) == []


async def test_configure_refuses_bad_values_and_changes_nothing(backend: Backend) -> None:
    clock = Clock(datetime(2024, 12, 2, 15, tzinfo=UTC))
    daily = DailyService(
        QuizService(
            make_bank(),
            backend,  # type: ignore[arg-type]
            clock,
            random.Random(3),
        )
    )
    for kwargs, key in (
        ({"time_text": "25:00"}, "daily_bad_time"),
        ({"timezone": "Mars/Base"}, "daily_bad_timezone"),
    ):
        with pytest.raises(QuizError) as caught:
            await daily.configure(GUILD, channel_id=CHANNEL, **kwargs)  # type: ignore[arg-type]
        assert caught.value.key == key
    assert await backend.daily.get(GUILD) is None
    overview = await daily.configure(GUILD, channel_id=CHANNEL, timezone="asia/tokyo")
    assert (overview.timezone, overview.post_time.hour) == ("Asia/Tokyo", 9)
    # The zone is remembered: a later call without one keeps it.
    overview = await daily.configure(GUILD, channel_id=CHANNEL, time_text="07:15")
    assert overview.timezone == "Asia/Tokyo"
    assert overview.next_at == datetime(2024, 12, 2, 22, 15, tzinfo=UTC)  # 07:15 on the 3rd
