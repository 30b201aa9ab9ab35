"""Read side: leaderboards and member statistics, always for one server.

Sized for a million answers (issue #5): the week and month totals come from
`member_periods` and the all-time totals from `members`; pages are read from indexes in
leaderboard order, and the number ranked and each rank are sums over `score_counts`
(both summaries: migration 0003, kept by `AnswerStore.record`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass

from bot.quiz.scoring import MemberScore
from bot.storage.periods import month_start_ms, week_start_ms
from bot.storage.records import LEADERBOARD_ORDER, MemberStats, RankedScore
from bot.storage.sqlite.db import Database


@dataclass(frozen=True, slots=True)
class _Source:
    """Where a leaderboard's totals come from: a FROM item and its WHERE clause.

    Every query below is an index range on one of these (see `Standings._source`); the
    raw aggregation over `answers` is the exact fallback for a `since` that is not the
    start of the current week or month, which the bot never asks for.
    """

    table: str
    where: str
    params: dict[str, object]
    #: (period, starts_at) of its rows in `score_counts`; None for the raw aggregation.
    counts: tuple[str, int] | None = None


_ORDER_S = "s.points DESC, s.correct DESC, s.answered ASC, s.user_id ASC"


class Standings:
    """Leaderboards and stats of one server.

    Ranks are competition ranks over (points, correct): members with as many points and
    as many right answers share a rank. Within a rank, fewer answers (then the lower user
    id) come first. Pages are read from indexes in that order (`members_rank`,
    `member_periods_rank`), and totals and ranks are sums over `score_counts`, so no
    query sorts or counts a whole server.
    """

    def __init__(self, db: Database) -> None:
        self.db = db

    async def _source(self, guild_id: int, since_ms: int | None) -> _Source:
        if since_ms is None:
            return _Source("members", "guild_id = :guild", {"guild": guild_id}, ("all", 0))
        for period, start in (
            ("week", week_start_ms(since_ms)),
            ("month", month_start_ms(since_ms)),
        ):
            if start != since_ms:
                continue
            # The bucket holds exactly the answers since its start when no later bucket
            # exists, i.e. when it is the current one (answers are never in the future).
            later = await self.db.conn.execute_fetchall(
                "SELECT 1 FROM member_periods WHERE guild_id = ? AND period = ?"
                " AND starts_at > ? LIMIT 1",
                (guild_id, period, since_ms),
            )
            if not list(later):
                return _Source(
                    "member_periods",
                    "guild_id = :guild AND period = :period AND starts_at = :start",
                    {"guild": guild_id, "period": period, "start": since_ms},
                    (period, since_ms),
                )
        return _Source(
            "(SELECT user_id, SUM(points) AS points, COUNT(*) AS answered,"
            " SUM(correct) AS correct FROM answers"
            " WHERE guild_id = :guild AND answered_at >= :since GROUP BY user_id)",
            "1",
            {"guild": guild_id, "since": since_ms},
        )

    async def _fetch(self, sql: str, params: Mapping[str, object]) -> list[sqlite3.Row]:
        # One trip to aiosqlite's thread (execute + fetch + close would be three).
        return list(await self.db.conn.execute_fetchall(sql, params))

    async def page(
        self, guild_id: int, since_ms: int | None, *, offset: int, limit: int
    ) -> tuple[list[RankedScore], int]:
        """One page of the server's standings and the number of ranked members."""
        src = await self._source(guild_id, since_ms)
        if src.counts is not None:
            (total_row,) = await self._fetch(
                "SELECT COALESCE(SUM(members), 0) FROM score_counts"
                " WHERE guild_id = :guild AND period = :cp AND starts_at = :cs",
                {"guild": guild_id, "cp": src.counts[0], "cs": src.counts[1]},
            )
        else:
            (total_row,) = await self._fetch(
                f"SELECT COUNT(*) FROM {src.table} WHERE {src.where}", src.params
            )
        total = int(total_row[0])
        if limit == 0 or offset >= total:
            return [], total
        rows = await self._fetch(
            f"SELECT s.user_id, COALESCE(m.name, ''), s.points, s.answered, s.correct,"
            f" COALESCE(m.streak, 0), COALESCE(m.best_streak, 0)"
            f" FROM (SELECT user_id, points, answered, correct FROM {src.table}"
            f"  WHERE {src.where} ORDER BY {LEADERBOARD_ORDER} LIMIT :limit OFFSET :offset) AS s"
            f" LEFT JOIN members m ON m.guild_id = :guild AND m.user_id = s.user_id"
            f" ORDER BY {_ORDER_S}",
            {**src.params, "limit": limit, "offset": offset},
        )
        ranked: list[RankedScore] = []
        for index, row in enumerate(rows):
            score = MemberScore(*row)
            previous = ranked[-1] if ranked else None
            if previous is not None and (previous.score.points, previous.score.correct) == (
                score.points,
                score.correct,
            ):
                rank = previous.rank
            elif previous is not None:
                rank = offset + index + 1  # every row before it is strictly ahead
            else:
                rank = 1 + await self._ahead(src, score.points, score.correct)
            ranked.append(RankedScore(rank, score))
        return ranked, total

    def _ahead_sql(self, src: _Source, points: str, correct: str) -> str:
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

    def _params(self, src: _Source, **more: object) -> dict[str, object]:
        counts = {"cp": src.counts[0], "cs": src.counts[1]} if src.counts else {}
        return {**src.params, **counts, **more}

    async def _ahead(self, src: _Source, points: int, correct: int) -> int:
        (row,) = await self._fetch(
            "SELECT " + self._ahead_sql(src, ":p", ":c"), self._params(src, p=points, c=correct)
        )
        return int(row[0])

    async def position(
        self, guild_id: int, user_id: int, since_ms: int | None
    ) -> tuple[RankedScore, int] | None:
        """The member's rank and score, and their 0-based row in the ordering."""
        src = await self._source(guild_id, since_ms)
        t, w = src.table, src.where
        # One statement: the member's row, the members strictly ahead (their rank - 1)
        # and the members tied with them but listed before them (their row index; an
        # index range as long as the tie).
        found = await self._fetch(
            f"SELECT s.points, s.answered, s.correct, COALESCE(m.name, ''),"
            f" COALESCE(m.streak, 0), COALESCE(m.best_streak, 0),"
            f" {self._ahead_sql(src, 's.points', 's.correct')},"
            f" (SELECT COUNT(*) FROM {t} WHERE {w} AND points = s.points"
            f"  AND correct = s.correct AND (answered < s.answered"
            f"  OR (answered = s.answered AND user_id < s.user_id)))"
            f" FROM (SELECT user_id, points, answered, correct FROM {t}"
            f"  WHERE {w} AND user_id = :user) AS s"
            f" LEFT JOIN members m ON m.guild_id = :guild AND m.user_id = s.user_id",
            self._params(src, user=user_id),
        )
        if not found:
            return None
        points, answered, correct, name, streak, best, ahead, tied_before = found[0]
        score = MemberScore(user_id, name, points, answered, correct, streak, best)
        return RankedScore(int(ahead) + 1, score), int(ahead) + int(tied_before)

    async def member_stats(self, guild_id: int, user_id: int) -> MemberStats | None:
        found = await self.position(guild_id, user_id, None)
        if found is None:
            return None
        ranked, _ = found
        params = {"guild": guild_id, "user": user_id}
        topics = await self._fetch(
            "SELECT topic, COUNT(*), SUM(correct) FROM answers"
            " WHERE guild_id = :guild AND user_id = :user GROUP BY topic",
            params,
        )
        per_topic = {t: (int(a), int(c)) for t, a, c in topics}
        best = await self._fetch(
            "SELECT score, json_array_length(question_ids) FROM test_runs"
            " WHERE guild_id = :guild AND user_id = :user AND finished_at IS NOT NULL"
            " ORDER BY score DESC, finished_at ASC LIMIT 1",
            params,
        )
        return MemberStats(
            score=ranked.score,
            rank=ranked.rank,
            per_topic=per_topic,
            best_test=(int(best[0][0]), int(best[0][1])) if best else None,
        )

    async def all_rows(self, guild_id: int, since_ms: int | None) -> list[RankedScore]:
        """Every ranked member, for `tpquiz leaderboard` (admins and scripts)."""
        rows, total = await self.page(guild_id, since_ms, offset=0, limit=-1)
        return rows
