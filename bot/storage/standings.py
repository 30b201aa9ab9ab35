"""Read side: leaderboards and member statistics, always for one server."""

from __future__ import annotations

from dataclasses import dataclass

from bot.quiz.scoring import MemberScore

from .db import Database


@dataclass(frozen=True, slots=True)
class RankedScore:
    rank: int
    score: MemberScore


@dataclass(frozen=True, slots=True)
class MemberStats:
    score: MemberScore
    rank: int
    #: topic -> (answered, correct)
    per_topic: dict[str, tuple[int, int]]
    best_test: tuple[int, int] | None  # (score, total)


# Aggregate answers for a period; "all" reads the running totals in `members` instead.
_PERIOD_CTE = """
WITH agg AS (
    SELECT a.user_id AS user_id, SUM(a.points) AS points, COUNT(*) AS answered,
           SUM(a.correct) AS correct
    FROM answers a
    WHERE a.guild_id = :guild AND a.answered_at >= :since
    GROUP BY a.user_id
)
"""
_ALL_CTE = """
WITH agg AS (
    SELECT user_id, points, answered, correct FROM members WHERE guild_id = :guild
)
"""


def _cte(since_ms: int | None) -> str:
    return _ALL_CTE if since_ms is None else _PERIOD_CTE


class Standings:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def page(
        self, guild_id: int, since_ms: int | None, *, offset: int, limit: int
    ) -> tuple[list[RankedScore], int]:
        """One page of the server's standings and the number of ranked members."""
        params = {"guild": guild_id, "since": since_ms, "limit": limit, "offset": offset}
        sql = _cte(since_ms) + (
            "SELECT RANK() OVER (ORDER BY agg.points DESC, agg.correct DESC) AS rank,"
            " agg.user_id, COALESCE(m.name, ''), agg.points, agg.answered, agg.correct,"
            " COALESCE(m.streak, 0), COALESCE(m.best_streak, 0)"
            " FROM agg LEFT JOIN members m ON m.guild_id = :guild AND m.user_id = agg.user_id"
            " ORDER BY agg.points DESC, agg.correct DESC, agg.answered ASC, agg.user_id ASC"
            " LIMIT :limit OFFSET :offset"
        )
        async with self.db.conn.execute(sql, params) as cur:
            rows = await cur.fetchall()
        async with self.db.conn.execute(_cte(since_ms) + "SELECT COUNT(*) FROM agg", params) as cur:
            total_row = await cur.fetchone()
        ranked = [RankedScore(int(r[0]), MemberScore(*r[1:])) for r in rows]
        return ranked, int(total_row[0]) if total_row else 0

    async def position(
        self, guild_id: int, user_id: int, since_ms: int | None
    ) -> tuple[RankedScore, int] | None:
        """The member's rank and score, and their 0-based row in the ordering."""
        params = {"guild": guild_id, "since": since_ms, "user": user_id}
        sql = _cte(since_ms) + (
            "SELECT agg.points, agg.answered, agg.correct, COALESCE(m.name, ''),"
            " COALESCE(m.streak, 0), COALESCE(m.best_streak, 0)"
            " FROM agg LEFT JOIN members m ON m.guild_id = :guild AND m.user_id = agg.user_id"
            " WHERE agg.user_id = :user"
        )
        async with self.db.conn.execute(sql, params) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        points, answered, correct, name, streak, best = row
        params.update(points=points, correct=correct, answered=answered)
        async with self.db.conn.execute(
            _cte(since_ms) + "SELECT"
            " SUM(points > :points OR (points = :points AND correct > :correct)),"
            " SUM(points > :points OR (points = :points AND (correct > :correct"
            "  OR (correct = :correct AND (answered < :answered"
            "   OR (answered = :answered AND user_id < :user))))))"
            " FROM agg",
            params,
        ) as cur:
            ahead = await cur.fetchone()
        assert ahead is not None
        score = MemberScore(user_id, name, points, answered, correct, streak, best)
        return RankedScore(int(ahead[0] or 0) + 1, score), int(ahead[1] or 0)

    async def member_stats(self, guild_id: int, user_id: int) -> MemberStats | None:
        found = await self.position(guild_id, user_id, None)
        if found is None:
            return None
        ranked, _ = found
        async with self.db.conn.execute(
            "SELECT topic, COUNT(*), SUM(correct) FROM answers"
            " WHERE guild_id = ? AND user_id = ? GROUP BY topic",
            (guild_id, user_id),
        ) as cur:
            per_topic = {t: (int(a), int(c)) for t, a, c in await cur.fetchall()}
        async with self.db.conn.execute(
            "SELECT score, json_array_length(question_ids) FROM test_runs"
            " WHERE guild_id = ? AND user_id = ? AND finished_at IS NOT NULL"
            " ORDER BY score DESC, finished_at ASC LIMIT 1",
            (guild_id, user_id),
        ) as cur:
            best = await cur.fetchone()
        return MemberStats(
            score=ranked.score,
            rank=ranked.rank,
            per_topic=per_topic,
            best_test=(int(best[0]), int(best[1])) if best else None,
        )

    async def all_rows(self, guild_id: int, since_ms: int | None) -> list[RankedScore]:
        """Every ranked member, for `tpquiz leaderboard` (admins and scripts)."""
        rows, total = await self.page(guild_id, since_ms, offset=0, limit=-1)
        return rows
