"""Leaderboard periods. Weeks start Monday 00:00 UTC, months on the 1st 00:00 UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Literal

Period = Literal["week", "month", "all"]
PERIODS: tuple[Period, ...] = ("week", "month", "all")


def period_start(period: Period, now: datetime) -> datetime | None:
    """The first instant counted in `period` at `now`, or None for all time."""
    now = now.astimezone(UTC)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "week":
        return midnight - timedelta(days=now.weekday())
    if period == "month":
        return midnight.replace(day=1)
    if period == "all":
        return None
    raise ValueError(f"unknown period {period!r}; expected one of {PERIODS}")
