"""When a review reminder is due, with a fixed clock (bot/quiz/reminders.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bot.quiz.reminders import MIN_DUE, reminder_day, worth_sending

SET = datetime(2026, 12, 1, 8, tzinfo=UTC)


def day(now: datetime, *, remind_time: str | None = "19:00", last: date | None = None, **kw):
    return reminder_day(
        remind_time=remind_time,
        post_time=kw.get("post_time", "09:00"),
        timezone=kw.get("timezone", "UTC"),
        set_at=kw.get("set_at", SET),
        last_date=last,
        now=now,
    )


def test_due_from_the_chosen_time_once_a_day() -> None:
    assert day(datetime(2026, 12, 2, 18, 59, tzinfo=UTC)) is None
    assert day(datetime(2026, 12, 2, 19, tzinfo=UTC)) == date(2026, 12, 2)
    assert day(datetime(2026, 12, 2, 23, tzinfo=UTC), last=date(2026, 12, 2)) is None
    assert day(datetime(2026, 12, 3, 19, 5, tzinfo=UTC), last=date(2026, 12, 2)) == date(
        2026, 12, 3
    )


def test_no_time_means_the_daily_post_time_in_the_server_zone() -> None:
    # 09:00 in Istanbul is 06:00 UTC.
    now = datetime(2026, 12, 2, 6, tzinfo=UTC)
    assert day(now, remind_time=None, timezone="Europe/Istanbul") == date(2026, 12, 2)
    assert day(now, remind_time=None, timezone="UTC") is None


def test_a_time_already_passed_when_set_starts_the_next_day() -> None:
    set_late = datetime(2026, 12, 2, 20, tzinfo=UTC)
    assert day(datetime(2026, 12, 2, 21, tzinfo=UTC), set_at=set_late) is None
    assert day(datetime(2026, 12, 3, 19, tzinfo=UTC), set_at=set_late) == date(2026, 12, 3)


def test_only_enough_due_cards_are_worth_a_dm() -> None:
    assert MIN_DUE == 5
    assert not worth_sending(4) and worth_sending(5)
