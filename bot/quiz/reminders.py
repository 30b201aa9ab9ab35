"""When a member's review reminder is due: pure, with the instant passed in.

A reminder fires once per local day (the server's time zone) at the member's chosen
time, or at the server's daily post time when they chose none, and only when at least
`MIN_DUE` cards are due then (fewer are not worth a DM). The day arithmetic is the daily
post's (`bot.quiz.schedule.due_date`): a time already passed when the reminder was set
starts the next day, and a day missed while the bot was down is not sent late.
"""

from __future__ import annotations

from datetime import date, datetime, time

from bot.quiz.schedule import DailyConfig, due_date, parse_time

#: Cards due before a reminder is worth sending.
MIN_DUE = 5


def reminder_day(
    *,
    remind_time: str | None,
    post_time: str,
    timezone: str,
    set_at: datetime,
    last_date: date | None,
    now: datetime,
) -> date | None:
    """The local date whose reminder is due at `now`, or None."""
    at: time = parse_time(remind_time or post_time)
    config = DailyConfig(enabled=True, post_time=at, timezone=timezone, set_at=set_at)
    return due_date(config, last_date, now)


def worth_sending(due_cards: int) -> bool:
    return due_cards >= MIN_DUE
