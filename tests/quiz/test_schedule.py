"""Daily scheduling rules with fixed clocks: DST gaps and overlaps, date-line zones,
admins changing the time mid-day, catch-up after a restart, question rounds, streaks."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, date, datetime, time, timedelta

import pytest

from bot.quiz.model import Bank
from bot.quiz.schedule import (
    DailyConfig,
    ScheduleError,
    canonical_zone,
    closes_at,
    current_daily_streak,
    due_date,
    local_date,
    next_daily_streak,
    next_post_at,
    parse_time,
    pick_daily,
    post_instant,
    timezone_suggestions,
    zone,
)
from tests.factories import make_question

LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def cfg(at: str = "09:00", tz: str = "UTC", set_at: datetime | None = LONG_AGO) -> DailyConfig:
    return DailyConfig(enabled=True, post_time=parse_time(at), timezone=tz, set_at=set_at)


# -- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("09:00", time(9)), ("9:05", time(9, 5)), ("23:59", time(23, 59)), (" 7.30 ", time(7, 30))],
)
def test_times_admins_type_are_read(text: str, expected: time) -> None:
    assert parse_time(text) == expected


@pytest.mark.parametrize("text", ["24:00", "9", "09:60", "nine", "", "09:00:00", "-1:00"])
def test_bad_times_are_refused_with_a_message_key(text: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_time(text)
    assert caught.value.key == "daily_bad_time"


def test_time_zones_are_matched_case_insensitively_and_unknown_ones_refused() -> None:
    assert canonical_zone("europe/istanbul") == "Europe/Istanbul"
    assert canonical_zone("America/New York") == "America/New_York"
    for bad in ("Mars/Olympus_Mons", "", "../etc/passwd", "localtime"):
        with pytest.raises(ScheduleError) as caught:
            canonical_zone(bad)
        assert caught.value.key == "daily_bad_timezone"


def test_time_zone_suggestions_are_filtered_and_at_most_25() -> None:
    assert "Europe/Istanbul" in timezone_suggestions("istan")
    assert timezone_suggestions("europe/ist")[0] == "Europe/Istanbul"
    assert timezone_suggestions("new_y")[0] == "America/New_York"
    assert len(timezone_suggestions("a")) == 25
    assert len(timezone_suggestions("")) <= 25 and "UTC" in timezone_suggestions("")
    assert timezone_suggestions("zzzz-nothing") == []


# -- instants ------------------------------------------------------------------------------


def test_istanbul_has_no_dst_and_posts_at_06_utc_all_year() -> None:
    tz = zone("Europe/Istanbul")
    for day in (date(2024, 1, 15), date(2024, 7, 15), date(2024, 12, 2)):
        assert post_instant(day, time(9), tz) == datetime.combine(day, time(6), UTC)


def test_new_york_moves_with_dst() -> None:
    tz = zone("America/New_York")
    assert post_instant(date(2024, 3, 9), time(9), tz) == utc(2024, 3, 9, 14)  # EST
    assert post_instant(date(2024, 3, 10), time(9), tz) == utc(2024, 3, 10, 13)  # EDT
    assert post_instant(date(2024, 11, 2), time(9), tz) == utc(2024, 11, 2, 13)  # EDT
    assert post_instant(date(2024, 11, 3), time(9), tz) == utc(2024, 11, 3, 14)  # EST


def test_a_time_skipped_by_spring_forward_posts_when_the_gap_ends() -> None:
    tz = zone("America/New_York")
    instant = post_instant(date(2024, 3, 10), time(2, 30), tz)
    assert instant == utc(2024, 3, 10, 7)  # 03:00 EDT, the first valid instant after
    assert instant.astimezone(tz).strftime("%H:%M %Z") == "03:00 EDT"


def test_a_time_repeated_by_fall_back_posts_once_at_its_first_occurrence() -> None:
    tz = zone("America/New_York")
    first = post_instant(date(2024, 11, 3), time(1, 30), tz)
    assert first == utc(2024, 11, 3, 5, 30)  # 01:30 EDT; 01:30 EST is 06:30 UTC
    config = cfg("01:30", "America/New_York")
    assert due_date(config, date(2024, 11, 2), utc(2024, 11, 3, 5, 29)) is None
    assert due_date(config, date(2024, 11, 2), first) == date(2024, 11, 3)
    # The second 01:30 (EST) comes after the day was posted: nothing more.
    assert due_date(config, date(2024, 11, 3), utc(2024, 11, 3, 6, 30)) is None


def test_spring_forward_day_due_check() -> None:
    config = cfg("02:30", "America/New_York")
    assert due_date(config, date(2024, 3, 9), utc(2024, 3, 10, 6, 59, 59)) is None
    assert due_date(config, date(2024, 3, 9), utc(2024, 3, 10, 7)) == date(2024, 3, 10)
    # The next day 02:30 exists again (EDT).
    assert next_post_at(config, date(2024, 3, 10), utc(2024, 3, 10, 7)) == utc(2024, 3, 11, 6, 30)


def test_a_day_across_spring_forward_is_23_hours_long() -> None:
    config = cfg("09:00", "America/New_York")
    posted = utc(2024, 3, 9, 14)
    assert closes_at(config, date(2024, 3, 9), posted) - posted == timedelta(hours=23)
    posted = utc(2024, 11, 2, 13)
    assert closes_at(config, date(2024, 11, 2), posted) - posted == timedelta(hours=25)


def test_kiritimati_is_a_day_ahead_of_utc() -> None:
    config = cfg("09:00", "Pacific/Kiritimati")  # UTC+14
    tz = zone("Pacific/Kiritimati")
    assert post_instant(date(2024, 12, 2), time(9), tz) == utc(2024, 12, 1, 19)
    assert local_date(utc(2024, 12, 1, 19), tz) == date(2024, 12, 2)
    assert due_date(config, date(2024, 12, 1), utc(2024, 12, 1, 18, 59)) is None
    assert due_date(config, date(2024, 12, 1), utc(2024, 12, 1, 19)) == date(2024, 12, 2)
    assert next_post_at(config, date(2024, 12, 2), utc(2024, 12, 1, 19)) == utc(2024, 12, 2, 19)


def test_apia_skipped_30_december_2011_and_its_post_with_it() -> None:
    config = cfg("09:00", "Pacific/Apia")
    tz = zone("Pacific/Apia")
    # 29 Dec 09:00 was UTC-10; 31 Dec 09:00 was UTC+14. 30 Dec never happened there.
    assert post_instant(date(2011, 12, 29), time(9), tz) == utc(2011, 12, 29, 19)
    assert post_instant(date(2011, 12, 31), time(9), tz) == utc(2011, 12, 30, 19)
    assert next_post_at(config, date(2011, 12, 29), utc(2011, 12, 29, 19)) == utc(2011, 12, 30, 19)
    moments = [utc(2011, 12, 29, 19) + timedelta(minutes=30 * i) for i in range(60)]
    assert date(2011, 12, 30) not in {due_date(config, date(2011, 12, 29), m) for m in moments}
    assert due_date(config, date(2011, 12, 29), utc(2011, 12, 30, 19)) == date(2011, 12, 31)


# -- due: catch-up, restarts, admins ------------------------------------------------------


def test_due_exactly_at_the_post_time_and_once_per_day() -> None:
    config = cfg("09:00", "Europe/Istanbul")
    yesterday = date(2024, 12, 1)
    assert due_date(config, yesterday, utc(2024, 12, 2, 5, 59, 59)) is None
    assert due_date(config, yesterday, utc(2024, 12, 2, 6)) == date(2024, 12, 2)
    assert due_date(config, date(2024, 12, 2), utc(2024, 12, 2, 6, 0, 30)) is None
    assert due_date(config, date(2024, 12, 2), utc(2024, 12, 3, 6)) == date(2024, 12, 3)


def test_started_late_the_same_day_it_catches_up_once() -> None:
    config = cfg("09:00", "Europe/Istanbul")
    late = utc(2024, 12, 2, 14)  # 17:00 local; 09:00 was missed while down
    assert due_date(config, date(2024, 12, 1), late) == date(2024, 12, 2)
    assert due_date(config, date(2024, 12, 2), late + timedelta(minutes=5)) is None


def test_a_day_missed_entirely_is_not_posted_late() -> None:
    config = cfg("09:00", "Europe/Istanbul")
    # Down all of 2 December; started 3 December 08:00 local: nothing until 09:00.
    assert due_date(config, date(2024, 12, 1), utc(2024, 12, 3, 5)) is None
    assert due_date(config, date(2024, 12, 1), utc(2024, 12, 3, 6)) == date(2024, 12, 3)


def test_an_admin_setting_an_earlier_time_mid_day_starts_tomorrow() -> None:
    noon = utc(2024, 12, 2, 12)
    config = cfg("10:00", "UTC", set_at=noon)
    assert due_date(config, None, noon + timedelta(minutes=1)) is None
    assert next_post_at(config, None, noon) == utc(2024, 12, 3, 10)
    assert due_date(config, None, utc(2024, 12, 3, 10)) == date(2024, 12, 3)


def test_an_admin_setting_a_later_time_mid_day_posts_today() -> None:
    noon = utc(2024, 12, 2, 12)
    config = cfg("14:00", "UTC", set_at=noon)
    assert next_post_at(config, date(2024, 12, 1), noon) == utc(2024, 12, 2, 14)
    assert due_date(config, date(2024, 12, 1), utc(2024, 12, 2, 14)) == date(2024, 12, 2)


def test_moving_the_time_after_todays_post_does_not_post_again() -> None:
    # Posted at 09:00; at noon the admin moves the time to 15:00.
    config = cfg("15:00", "UTC", set_at=utc(2024, 12, 2, 12))
    assert due_date(config, date(2024, 12, 2), utc(2024, 12, 2, 15)) is None
    assert next_post_at(config, date(2024, 12, 2), utc(2024, 12, 2, 15)) == utc(2024, 12, 3, 15)


def test_changing_the_zone_mid_day_never_posts_a_date_twice() -> None:
    # Posted 2 December in Kiritimati (UTC+14); moved to Honolulu (UTC-10), where it is
    # still 1 December: 1 December is before the last posted date, so nothing is due.
    config = cfg("09:00", "Pacific/Honolulu", set_at=utc(2024, 12, 1, 20))
    assert due_date(config, date(2024, 12, 2), utc(2024, 12, 1, 21)) is None
    assert next_post_at(config, date(2024, 12, 2), utc(2024, 12, 1, 21)) == utc(2024, 12, 3, 19)


def test_off_means_never_due() -> None:
    config = DailyConfig(enabled=False)
    assert due_date(config, None, utc(2024, 12, 2, 12)) is None
    assert next_post_at(config, None, utc(2024, 12, 2, 12)) is None


# -- which question ------------------------------------------------------------------------


def _bank(topics: dict[str, int]) -> Bank:
    return Bank.of(
        make_question(f"{topic}-{i:02d}", topic=topic)
        for topic, n in topics.items()
        for i in range(n)
    )


def _run(bank: Bank, days: int, seed: int) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    history: list[tuple[str, int]] = []  # newest first
    for _ in range(days):
        pick = pick_daily(bank, history, rng)
        history.insert(0, (pick.question.id, pick.round))
    return history[::-1]


def test_every_question_once_per_round_then_a_new_order() -> None:
    bank = _bank({"basics": 4, "memory": 3, "overlap": 3, "inference": 2})
    posted = _run(bank, 24, seed=7)
    first = [q for q, r in posted if r == 1]
    second = [q for q, r in posted if r == 2]
    assert sorted(first) == sorted(q.id for q in bank) == sorted(second)
    assert first != second


@pytest.mark.parametrize("seed", range(20))
def test_topics_never_repeat_on_consecutive_days_when_avoidable(seed: int) -> None:
    bank = _bank({"basics": 5, "memory": 3, "overlap": 2})  # 5 <= ceil(10/2): avoidable
    posted = _run(bank, 30, seed=seed)
    topics = [bank[q].topic for q, _ in posted]
    round_one = topics[:10]
    assert all(a != b for a, b in zip(round_one, round_one[1:], strict=False))
    assert Counter(round_one) == {"basics": 5, "memory": 3, "overlap": 2}


def test_unavoidable_repeats_still_finish_the_round() -> None:
    bank = _bank({"basics": 4, "memory": 1})
    posted = _run(bank, 5, seed=1)
    assert sorted(q for q, _ in posted) == sorted(q.id for q in bank)
    assert [bank[q].topic for q, _ in posted][:3] == ["basics", "memory", "basics"]


def test_an_empty_bank_is_an_error() -> None:
    with pytest.raises(LookupError):
        pick_daily(Bank.of([]), [], random.Random(0))


# -- daily streaks -------------------------------------------------------------------------


def test_daily_streak_grows_on_consecutive_daily_questions_and_resets_after_a_miss() -> None:
    d = date(2024, 12, 2)
    one = timedelta(days=1)
    assert next_daily_streak(0, None, d, None) == 1
    assert next_daily_streak(1, d, d + one, d) == 2
    assert next_daily_streak(2, d, d + 2 * one, d + one) == 1  # missed d+1
    assert next_daily_streak(3, d, d, d - one) == 3  # the same day counts once
    # No post on d+1 (bot down): answering d+2 continues the streak.
    assert next_daily_streak(4, d, d + 2 * one, d) == 5


def test_a_closed_question_without_an_answer_shows_the_streak_as_zero() -> None:
    d = date(2024, 12, 2)
    assert current_daily_streak(3, d, d) == 3  # answered the latest closed one
    assert current_daily_streak(3, d, None) == 3
    assert current_daily_streak(3, d, d + timedelta(days=1)) == 0
    assert current_daily_streak(0, None, d) == 0
