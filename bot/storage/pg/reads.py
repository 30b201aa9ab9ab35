"""Read-only stores on PostgreSQL: a member's weekly progress and review cards.

Twins of bot/storage/sqlite/reads.py, with the same SQL and the same results
(ProgressContract, CardsContract). Card writes happen inside the click's transaction
(bot/storage/pg/clicks.py).
"""

from __future__ import annotations

from bot.quiz.memory import CardState
from bot.storage.periods import WEEK_MS, week_start_ms
from bot.storage.pg.db import PgDatabase
from bot.storage.records import CARD_COLUMNS, card_of


class PgProgressStore:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    async def weeks(
        self, guild_id: int, user_id: int, now_ms: int, count: int = 12
    ) -> list[tuple[int, int, int]]:
        """(week start ms, answered, right) for the `count` weeks up to `now_ms`'s week,
        oldest first, weeks without answers included as zeros."""
        first = week_start_ms(now_ms) - (count - 1) * WEEK_MS
        rows = await self.db.fetch(
            "SELECT (answered_at / 86400000 - (answered_at / 86400000 + 3) % 7) * 86400000,"
            " COUNT(*), SUM(correct) FROM answers"
            " WHERE guild_id = $1 AND user_id = $2 AND answered_at >= $3 GROUP BY 1",
            guild_id,
            user_id,
            first,
        )
        found = {int(start): (int(a), int(c)) for start, a, c in rows}
        starts = [first + i * WEEK_MS for i in range(count)]
        return [(s, *found.get(s, (0, 0))) for s in starts]


class PgCardStore:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    async def member_cards(self, guild_id: int, user_id: int) -> dict[str, CardState]:
        rows = await self.db.fetch(
            f"SELECT question_id, {CARD_COLUMNS} FROM cards WHERE guild_id = $1"
            " AND user_id = $2 ORDER BY due",
            guild_id,
            user_id,
        )
        return {str(row[0]): card_of(tuple(row)[1:]) for row in rows}
