"""Read-only stores: a member's answers per week and a member's review cards.

One store each for both backends over `Executor` (bot/storage/sql.py), the same SQL and
the same results (ProgressContract, CardsContract). `ProgressStore.weeks` is the
`/tpquiz stats` picture (issue #12), read from the member's own answers through the
answers_member index (server, member, time): one short range however large the server,
unlike member_periods, whose key puts every member of a week side by side.
`CardStore` reads the cards the click's transaction writes (bot/storage/sqlite/cards.py,
bot/storage/pg/clicks.py).
"""

from __future__ import annotations

from bot.quiz.memory import CardState
from bot.storage.periods import WEEK_MS, week_start_ms
from bot.storage.records import CARD_COLUMNS, card_of
from bot.storage.sql import Executor, Query

__all__ = ["CardStore", "ProgressStore"]

#: Each answer's week start: `bot.storage.periods.week_start_ms`'s integer arithmetic.
_WEEKS = Query(
    "SELECT (answered_at / 86400000 - (answered_at / 86400000 + 3) % 7) * 86400000,"
    " COUNT(*), SUM(correct) FROM answers"
    " WHERE guild_id = :guild AND user_id = :user AND answered_at >= :first GROUP BY 1"
)
_MEMBER_CARDS = Query(
    f"SELECT question_id, {CARD_COLUMNS} FROM cards WHERE guild_id = :guild"
    " AND user_id = :user ORDER BY due"
)


class ProgressStore:
    def __init__(self, db: Executor) -> None:
        self.db = db

    async def weeks(
        self, guild_id: int, user_id: int, now_ms: int, count: int = 12
    ) -> list[tuple[int, int, int]]:
        """(week start ms, answered, right) for the `count` weeks up to `now_ms`'s week,
        oldest first, weeks without answers included as zeros."""
        first = week_start_ms(now_ms) - (count - 1) * WEEK_MS
        rows = await self.db.fetch(_WEEKS, guild=guild_id, user=user_id, first=first)
        found = {int(start): (int(a), int(c)) for start, a, c in rows}
        starts = [first + i * WEEK_MS for i in range(count)]
        return [(s, *found.get(s, (0, 0))) for s in starts]


class CardStore:
    """The async reads the review round and the stats make (writes go through the
    click's transaction)."""

    def __init__(self, db: Executor) -> None:
        self.db = db

    async def member_cards(self, guild_id: int, user_id: int) -> dict[str, CardState]:
        rows = await self.db.fetch(_MEMBER_CARDS, guild=guild_id, user=user_id)
        return {str(row[0]): card_of(tuple(row)[1:]) for row in rows}
