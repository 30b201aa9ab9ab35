"""Read side: leaderboards and member statistics, always for one server.

Sized for a million answers (issue #5): the week and month totals come from
`member_periods` and the all-time totals from `members`; pages are read from indexes in
leaderboard order, and the number ranked and each rank are sums over `score_counts`
(both summaries: migration 0003, kept by `AnswerStore.record`). Those sources and the
SQL of "members ahead" are PostgreSQL's too (bot/storage/standings_sql.py); the reads
here are SQLite's own: several short statements, each one hop to aiosqlite's thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from bot.quiz.scoring import MemberScore
from bot.storage.records import LEADERBOARD_ORDER, MemberStats, RankedScore
from bot.storage.sqlite.db import Database
from bot.storage.standings_sql import (
    Source,
    ahead_sql,
    current_source,
    page_ranks,
)

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

    async def _source(self, guild_id: int, since_ms: int | None) -> Source:
        return await current_source(self._fetch, guild_id, since_ms)

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
        scores = [MemberScore(*row) for row in rows]
        ahead = await self._ahead(src, scores[0].points, scores[0].correct) if scores else 0
        return page_ranks(scores, offset, ahead), total

    async def _ahead(self, src: Source, points: int, correct: int) -> int:
        (row,) = await self._fetch(
            "SELECT " + ahead_sql(src, ":p", ":c"), src.with_params(p=points, c=correct)
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
            f" {ahead_sql(src, 's.points', 's.correct')},"
            f" (SELECT COUNT(*) FROM {t} WHERE {w} AND points = s.points"
            f"  AND correct = s.correct AND (answered < s.answered"
            f"  OR (answered = s.answered AND user_id < s.user_id)))"
            f" FROM (SELECT user_id, points, answered, correct FROM {t}"
            f"  WHERE {w} AND user_id = :user) AS s"
            f" LEFT JOIN members m ON m.guild_id = :guild AND m.user_id = s.user_id",
            src.with_params(user=user_id),
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
