"""Leaderboards and member statistics on PostgreSQL: the twin of bot/storage/sqlite/standings.py.

The same index ranges over the same summaries (members, member_periods, score_counts:
the sources and the SQL of "members ahead" are bot/storage/standings_sql.py's, shared
with SQLite), so the same data ranks the same on both backends: tests/storage/test_pg_standings.py copies one SQLite database into PostgreSQL
and compares every page, position and member's statistics. The differences are the
driver's: numbered parameters, LIMIT NULL for "no limit", and question_ids read as json.

Why the reads are shaped differently from SQLite's: SQLite is in-process, so a read is
one hop to aiosqlite's thread, but every PostgreSQL statement is a round trip to the
server (~0.35 ms on a loaded machine, plus the pool's reset of the connection when it is
released), and at a million answers the trips, not the index ranges, were the time
(bench/pg_scale.py, docs/performance.md section 8). So each call here is one statement: the
page, the number ranked and the first row's rank together; the member's row, rank and
row index together; a member's statistics with their topics and best test. The check
that a week or month bucket is the current one (SQLite's separate `_source` query) rides
along as a column, and only when it says "not current" (never for the bot's own reads)
is the exact raw aggregation asked for in a second statement. asyncpg prepares each
statement once per connection and reuses it: the SQL text depends only on the source's
kind, never on the values.
"""

from __future__ import annotations

from collections.abc import Mapping

import asyncpg

from bot.quiz.scoring import MemberScore
from bot.storage.pg.db import PgDatabase
from bot.storage.records import LEADERBOARD_ORDER, MemberStats, RankedScore
from bot.storage.sql import Dialect, Query
from bot.storage.standings_sql import (
    LATER_BUCKET,
    Source,
    ahead_sql,
    all_time,
    bucket,
    buckets_at,
    current_source,
    page_ranks,
    raw,
)


class PgStandings:
    """Leaderboards and stats of one server (competition ranks over points, correct)."""

    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    async def _fetch(self, sql: str, params: Mapping[str, object]) -> list[asyncpg.Record]:
        # Numbered once per shape of statement (the source's kind): bot/storage/sql.py.
        text, args = Query(sql).bind(Dialect.POSTGRESQL, params)
        return await self.db.fetch(text, *args)

    def _guess(self, guild_id: int, since_ms: int | None) -> tuple[Source, str]:
        """The source without asking the server, and SQL that is TRUE when the guess
        must be checked again (a later bucket exists, so this one is not current)."""
        if since_ms is None:
            return all_time(guild_id), "FALSE"
        found = buckets_at(since_ms)
        if found:
            period, start = found[0]
            return bucket(guild_id, period, start), f"EXISTS ({LATER_BUCKET})"
        return raw(guild_id, since_ms), "FALSE"

    async def _source(self, guild_id: int, since_ms: int | None) -> Source:
        """The source, checked with the server (the slow path: a guess was not current)."""
        return await current_source(self._fetch, guild_id, since_ms)

    async def page(
        self, guild_id: int, since_ms: int | None, *, offset: int, limit: int
    ) -> tuple[list[RankedScore], int]:
        """One page of the server's standings and the number of ranked members.

        `limit` -1 means every row (SQLite's LIMIT -1; LIMIT NULL here). One statement
        (two when the guessed week or month bucket is not the current one)."""
        src, later = self._guess(guild_id, since_ms)
        rows = await self._page_rows(src, later, offset, limit)
        if rows[0]["later"]:
            rows = await self._page_rows(
                await self._source(guild_id, since_ms), "FALSE", offset, limit
            )
        total = int(rows[0]["total"])
        if limit == 0 or offset >= total:
            return [], total
        page = [row for row in rows if row["user_id"] is not None]
        scores = [MemberScore(*tuple(row)[3:]) for row in page]
        return page_ranks(scores, offset, int(page[0]["ahead"]) if page else 0), total

    async def _page_rows(
        self, src: Source, later: str, offset: int, limit: int
    ) -> list[asyncpg.Record]:
        """One header row (later, total, ahead of the first row) joined to the page's
        rows, in leaderboard order; one row with a NULL user_id for an empty page."""
        if src.counts is not None:
            total = (
                "(SELECT COALESCE(SUM(members), 0) FROM score_counts"
                " WHERE guild_id = :guild AND period = :cp AND starts_at = :cs)"
            )
        else:
            total = f"(SELECT COUNT(*) FROM {src.table} WHERE {src.where})"
        return await self._fetch(
            f"WITH s AS (SELECT user_id, points, answered, correct FROM {src.table}"
            f"  WHERE {src.where} ORDER BY {LEADERBOARD_ORDER} LIMIT :limit OFFSET :offset)"
            f" SELECT h.later, h.total, f.ahead, p.user_id, p.name, p.points, p.answered,"
            f" p.correct, p.streak, p.best_streak"
            f" FROM (SELECT {later} AS later, {total} AS total) AS h"
            f" LEFT JOIN LATERAL (SELECT {ahead_sql(src, 'f0.points', 'f0.correct')}"
            "  AS ahead FROM (SELECT points, correct FROM s"
            f" ORDER BY {LEADERBOARD_ORDER} LIMIT 1) AS f0)"
            f"  AS f ON TRUE"
            f" LEFT JOIN LATERAL (SELECT s.user_id, COALESCE(m.name, '') AS name, s.points,"
            f"  s.answered, s.correct, COALESCE(m.streak, 0) AS streak,"
            f"  COALESCE(m.best_streak, 0) AS best_streak FROM s"
            f"  LEFT JOIN members m ON m.guild_id = :guild AND m.user_id = s.user_id) AS p"
            f"  ON TRUE"
            f" ORDER BY p.points DESC, p.correct DESC, p.answered ASC, p.user_id ASC",
            src.with_params(limit=None if limit < 0 else limit, offset=offset),
        )

    def _position_sql(self, src: Source) -> str:
        """The member's row, the members strictly ahead (their rank - 1) and the members
        tied with them but listed before them (their row index), as columns of `p`."""
        t, w = src.table, src.where
        return (
            f"SELECT s.points, s.answered, s.correct, COALESCE(m.name, '') AS name,"
            f" COALESCE(m.streak, 0) AS streak, COALESCE(m.best_streak, 0) AS best_streak,"
            f" {ahead_sql(src, 's.points', 's.correct')} AS ahead,"
            f" (SELECT COUNT(*) FROM {t} WHERE {w} AND points = s.points"
            f"  AND correct = s.correct AND (answered < s.answered"
            f"  OR (answered = s.answered AND user_id < s.user_id))) AS tied_before"
            f" FROM (SELECT user_id, points, answered, correct FROM {t}"
            f"  WHERE {w} AND user_id = :user) AS s"
            f" LEFT JOIN members m ON m.guild_id = :guild AND m.user_id = s.user_id"
        )

    async def position(
        self, guild_id: int, user_id: int, since_ms: int | None
    ) -> tuple[RankedScore, int] | None:
        """The member's rank and score, and their 0-based row in the ordering (one
        statement; two when the guessed bucket is not the current one)."""
        src, later = self._guess(guild_id, since_ms)
        sql = "SELECT h.later, p.* FROM (SELECT {later} AS later) AS h LEFT JOIN LATERAL ({pos}) AS p ON TRUE"
        (row,) = await self._fetch(
            sql.format(later=later, pos=self._position_sql(src)), src.with_params(user=user_id)
        )
        if row["later"]:
            src = await self._source(guild_id, since_ms)
            (row,) = await self._fetch(
                sql.format(later="FALSE", pos=self._position_sql(src)),
                src.with_params(user=user_id),
            )
        return _ranked(user_id, row)

    async def member_stats(self, guild_id: int, user_id: int) -> MemberStats | None:
        """All-time score and rank, answers per topic and best finished test: one
        statement."""
        src, _ = self._guess(guild_id, None)
        found = await self._fetch(
            f"SELECT p.*, tp.topics, tp.topic_answered, tp.topic_correct,"
            f" bt.has_test, bt.score AS test_score, bt.questions"
            f" FROM ({self._position_sql(src)}) AS p"
            f" LEFT JOIN LATERAL (SELECT array_agg(topic) AS topics,"
            f"  array_agg(n) AS topic_answered, array_agg(c) AS topic_correct"
            f"  FROM (SELECT topic, COUNT(*) AS n, SUM(correct) AS c FROM answers"
            f"  WHERE guild_id = :guild AND user_id = :user GROUP BY topic) AS t) AS tp ON TRUE"
            f" LEFT JOIN LATERAL (SELECT TRUE AS has_test, score,"
            f"  json_array_length(question_ids::json) AS questions FROM test_runs"
            f"  WHERE guild_id = :guild AND user_id = :user AND finished_at IS NOT NULL"
            f"  ORDER BY score DESC, finished_at ASC LIMIT 1) AS bt ON TRUE",
            src.with_params(user=user_id),
        )
        ranked = _ranked(user_id, found[0]) if found else None
        if ranked is None:
            return None
        row = found[0]
        per_topic = {
            str(t): (int(a), int(c))
            for t, a, c in zip(
                row["topics"] or [],
                row["topic_answered"] or [],
                row["topic_correct"] or [],
                strict=True,
            )
        }
        return MemberStats(
            score=ranked[0].score,
            rank=ranked[0].rank,
            per_topic=per_topic,
            best_test=(int(row["test_score"]), int(row["questions"])) if row["has_test"] else None,
        )

    async def all_rows(self, guild_id: int, since_ms: int | None) -> list[RankedScore]:
        """Every ranked member, for `tpquiz leaderboard` (admins and scripts)."""
        rows, _ = await self.page(guild_id, since_ms, offset=0, limit=-1)
        return rows


def _ranked(user_id: int, row: asyncpg.Record) -> tuple[RankedScore, int] | None:
    """A `_position_sql` row as (rank and score, row index); None when it found nobody."""
    if row["points"] is None:
        return None
    score = MemberScore(
        user_id,
        row["name"],
        row["points"],
        row["answered"],
        row["correct"],
        row["streak"],
        row["best_streak"],
    )
    ahead = int(row["ahead"])
    return RankedScore(ahead + 1, score), ahead + int(row["tied_before"])
