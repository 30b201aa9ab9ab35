"""The week and month buckets of the period leaderboards, as Unix milliseconds.

Why a neutral module: `member_periods` and `score_counts` (migration 0003) key each
member's week and month totals by the bucket's start, and the click that writes them,
the leaderboards and the progress picture that read them compute the same starts on
both backends. Plain arithmetic on integers, so both backends and the migration's
backfill agree to the millisecond.
"""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["DAY_MS", "WEEK_MS", "month_start_ms", "period_buckets", "week_start_ms"]

DAY_MS = 86_400_000
WEEK_MS = 7 * DAY_MS


def week_start_ms(ms: int) -> int:
    """The Monday 00:00 UTC at or before `ms` (Unix ms; day 0, 1970-01-01, was a Thursday).

    The same arithmetic as migration 0003's backfill, and the same instant as
    `bot.quiz.periods.period_start("week", ...)` (a test checks both).
    """
    day = ms // DAY_MS
    return (day - (day + 3) % 7) * DAY_MS


def month_start_ms(ms: int) -> int:
    """The 1st of the month 00:00 UTC at or before `ms` (Unix ms)."""
    moment = datetime.fromtimestamp(ms // 1000, UTC)
    return int(moment.replace(day=1, hour=0, minute=0, second=0).timestamp()) * 1000


def period_buckets(ms: int) -> tuple[tuple[str, int], tuple[str, int]]:
    """The `member_periods` rows an answer at `ms` counts in: its week and its month."""
    return (("week", week_start_ms(ms)), ("month", month_start_ms(ms)))
