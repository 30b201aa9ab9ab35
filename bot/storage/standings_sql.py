"""Where a leaderboard's totals come from, and the SQL of "members ahead": both backends'.

Why a neutral module: the standings are tuned per backend (bot/storage/sqlite/standings.py
reads in several short statements, one hop each to aiosqlite's thread;
bot/storage/pg/standings.py folds them into one statement per call, each a round trip
to the server), but both read the same index ranges over the same summaries
(members, member_periods, score_counts: migration 0003), so the same data ranks the
same on both. Those ranges, the rule for which bucket is current, the SQL counting
the members strictly ahead of a score and how a page's rows get their ranks are written
once here, the SQL with named parameters (`:guild`), which sqlite3 binds as they are and
PostgreSQL through bot/storage/sql.py.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.quiz.scoring import MemberScore
from bot.storage.periods import month_start_ms, week_start_ms
from bot.storage.records import RankedScore

__all__ = [
    "LATER_BUCKET",
    "Source",
    "ahead_sql",
    "all_time",
    "bucket",
    "buckets_at",
    "current_source",
    "page_ranks",
    "raw",
]

#: A backend's read: named-parameter SQL and its values in, rows out.
Fetch = Callable[[str, Mapping[str, object]], Awaitable[Sequence[Any]]]


@dataclass(frozen=True, slots=True)
class Source:
    """Where a leaderboard's totals come from: a FROM item and its WHERE clause.

    Every read of the standings is an index range on one of these; the raw aggregation
    over `answers` is the exact fallback for a `since` that is not the start of the
    current week or month, which the bot never asks for.
    """

    table: str
    where: str
    params: dict[str, object]
    #: (period, starts_at) of its rows in `score_counts`; None for the raw aggregation.
    counts: tuple[str, int] | None = None

    def with_params(self, **more: object) -> dict[str, object]:
        """Its parameters, `score_counts`' (`:cp`, `:cs`) and `more`."""
        counts = {"cp": self.counts[0], "cs": self.counts[1]} if self.counts else {}
        return {**self.params, **counts, **more}


def all_time(guild_id: int) -> Source:
    return Source("members", "guild_id = :guild", {"guild": guild_id}, ("all", 0))


def bucket(guild_id: int, period: str, start: int) -> Source:
    """A week or month bucket of `member_periods` (exact only while it is the current one)."""
    return Source(
        "member_periods",
        "guild_id = :guild AND period = :period AND starts_at = :start",
        {"guild": guild_id, "period": period, "start": start},
        (period, start),
    )


def raw(guild_id: int, since_ms: int) -> Source:
    """The exact aggregation over `answers` since any instant (the bot never asks)."""
    return Source(
        "(SELECT user_id, SUM(points) AS points, COUNT(*) AS answered,"
        " SUM(correct) AS correct FROM answers"
        " WHERE guild_id = :guild AND answered_at >= :since GROUP BY user_id) AS raw",
        "TRUE",
        {"guild": guild_id, "since": since_ms},
    )


def buckets_at(since_ms: int) -> list[tuple[str, int]]:
    """The periods (week, then month) whose bucket starts exactly at `since_ms`."""
    starts = (("week", week_start_ms(since_ms)), ("month", month_start_ms(since_ms)))
    return [(period, start) for period, start in starts if start == since_ms]


#: A bucket holds exactly the answers since its start when no later bucket exists, i.e.
#: when it is the current one (answers are never in the future): this finds a later one.
LATER_BUCKET = (
    "SELECT 1 FROM member_periods WHERE guild_id = :guild AND period = :period"
    " AND starts_at > :start LIMIT 1"
)


async def current_source(fetch: Fetch, guild_id: int, since_ms: int | None) -> Source:
    """The exact source for `since_ms`: all time, the week or month bucket that starts
    there if no later one exists (asked through the backend's `fetch`), else the raw
    aggregation."""
    if since_ms is None:
        return all_time(guild_id)
    for period, start in buckets_at(since_ms):
        if not await fetch(LATER_BUCKET, {"guild": guild_id, "period": period, "start": start}):
            return bucket(guild_id, period, start)
    return raw(guild_id, since_ms)


def ahead_sql(src: Source, points: str, correct: str) -> str:
    """SQL for the number of members strictly ahead of (points, correct).

    From `score_counts` a sum over the server's few dozen score pairs; for the raw
    aggregation, counts of two index ranges.
    """
    if src.counts is not None:
        return (
            "(SELECT COALESCE(SUM(members), 0) FROM score_counts"
            " WHERE guild_id = :guild AND period = :cp AND starts_at = :cs"
            f" AND (points > {points} OR (points = {points} AND correct > {correct})))"
        )
    return (
        f"((SELECT COUNT(*) FROM {src.table} WHERE {src.where} AND points > {points})"
        f" + (SELECT COUNT(*) FROM {src.table} WHERE {src.where}"
        f" AND points = {points} AND correct > {correct}))"
    )


def page_ranks(scores: Sequence[MemberScore], offset: int, first_ahead: int) -> list[RankedScore]:
    """Competition ranks over (points, correct) of a page's scores, in leaderboard order,
    from row `offset` on: a member tied with the row before shares its rank, any other
    has every row before it strictly ahead, and the page's first row has `first_ahead`
    members strictly ahead of it."""
    ranked: list[RankedScore] = []
    for index, score in enumerate(scores):
        previous = ranked[-1] if ranked else None
        if previous is not None and (previous.score.points, previous.score.correct) == (
            score.points,
            score.correct,
        ):
            rank = previous.rank
        elif previous is not None:
            rank = offset + index + 1  # every row before it is strictly ahead
        else:
            rank = 1 + first_ahead
        ranked.append(RankedScore(rank, score))
    return ranked
