"""Item statistics on PostgreSQL: the twin of bot/storage/sqlite/items.py `ItemStatsStore`.

The same reads and the same summary (migration 0009's `item_stats`,
`item_stats_refreshes`) as bot/storage/sqlite/itemstats.py, so the service
(bot/services/items.py) works on either database. Why the details:

- The member pass is one window over each member's first answers, as on SQLite; the
  accuracy on the member's other answers is the IEEE double division of the same two
  integers (`float8 / float8`), so the figures are the ones SQLite's path gives. Rows
  come in (guild, user, question) order, the question in byte order (`COLLATE "C"`,
  SQLite's order), whatever the database's collation.
- A chunk, the summary read and a refresh's start each run in one REPEATABLE READ
  read-only transaction: one snapshot, as `Database.run_read` gives on SQLite.
- `write_summary` locks the server's state row (FOR UPDATE) before checking its
  generation: a member's deletion in another process (`mark_stale`, or
  bot/storage/pg/members.py `delete_member`) either committed first, and the generation
  read is the new one, or waits for this write and then marks its result stale.
"""

from __future__ import annotations

from bot.quiz.itemstats import ItemStats
from bot.quiz.itemstats_fast import MemberRow
from bot.storage.pg.db import PgDatabase
from bot.storage.records import (
    ITEM_STATS_COLUMNS,
    REFRESH_COLUMNS,
    Chunk,
    Refresh,
    SummaryRead,
    item_stats_of,
    refresh_of,
    summary_rows,
)

__all__ = ["PgItemStatsStore"]

#: Each first answer with its member's accuracy on their other first answers (None with
#: no other): bot/storage/sqlite/itemstats.py `_MEMBER_ROWS` in PostgreSQL's words.
_MEMBER_ROWS = (
    "SELECT question_id, hit, CASE WHEN answered > 1"
    " THEN (hits - hit)::float8 / (answered - 1)::float8 END, choice_index"
    " FROM (SELECT question_id, choice_index, correct::int AS hit, guild_id, user_id,"
    "  COUNT(*) OVER member AS answered, SUM(correct) OVER member AS hits"
    "  FROM answers WHERE first = 1 {where}"
    "  WINDOW member AS (PARTITION BY guild_id, user_id)) AS firsts"
    ' ORDER BY guild_id, user_id, question_id COLLATE "C"'
)

_REFRESHES = f"SELECT {REFRESH_COLUMNS} FROM item_stats_refreshes"


def _rows(records: list) -> list[MemberRow]:  # type: ignore[type-arg]
    return [(str(q), int(h), None if r is None else float(r), int(c)) for q, h, r, c in records]


class PgItemStatsStore:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    async def member_rows(self, guild_id: int | None = None) -> list[MemberRow]:
        """Every first answer of one server (or all) with its member's accuracy on their
        other first answers, in (guild, user) order."""
        if guild_id is None:
            return _rows(await self.db.fetch(_MEMBER_ROWS.format(where="")))
        sql = _MEMBER_ROWS.format(where="AND guild_id = $1")
        return _rows(await self.db.fetch(sql, guild_id))

    async def member_rows_chunk(self, guild_id: int, after_user: int | None, rows: int) -> Chunk:
        """The rows of the members after `after_user` (None: from the first), about `rows`
        rows of whole members, and the last member read (None: nobody after)."""
        after = -(2**63) if after_user is None else after_user
        async with self.db.transaction(isolation="repeatable_read", readonly=True) as conn:
            upto = await conn.fetchval(
                "SELECT user_id FROM answers WHERE guild_id = $1 AND first = 1"
                " AND user_id > $2 ORDER BY user_id LIMIT 1 OFFSET $3",
                guild_id,
                after,
                max(rows - 1, 0),
            )
            if upto is None:
                upto = await conn.fetchval(
                    "SELECT MAX(user_id) FROM answers WHERE guild_id = $1 AND first = 1"
                    " AND user_id > $2",
                    guild_id,
                    after,
                )
            if upto is None:
                return [], None
            sql = _MEMBER_ROWS.format(where="AND guild_id = $1 AND user_id > $2 AND user_id <= $3")
            found = _rows(await conn.fetch(sql, guild_id, after, upto))
        return found, int(upto)

    async def first_answer_counts(self) -> dict[int, int]:
        rows = await self.db.fetch(
            "SELECT guild_id, COUNT(*) FROM answers WHERE first = 1 GROUP BY guild_id"
        )
        return {int(g): int(n) for g, n in rows}

    async def refreshes(self, guild_id: int | None = None) -> dict[int, Refresh]:
        if guild_id is None:
            rows = await self.db.fetch(_REFRESHES)
        else:
            rows = await self.db.fetch(f"{_REFRESHES} WHERE guild_id = $1", guild_id)
        return {int(r[0]): refresh_of(r) for r in rows}

    async def refresh_start(self, guild_id: int) -> tuple[int, int | None]:
        """The server's first answers and its summary's generation (None: no state row),
        from one snapshot, before a refresh reads the answers."""
        async with self.db.transaction(isolation="repeatable_read", readonly=True) as conn:
            count = await conn.fetchval(
                "SELECT COUNT(*) FROM answers WHERE guild_id = $1 AND first = 1", guild_id
            )
            generation = await conn.fetchval(
                "SELECT generation FROM item_stats_refreshes WHERE guild_id = $1", guild_id
            )
        return int(count), None if generation is None else int(generation)

    async def summary(self, guild_id: int, pool_key: str) -> SummaryRead:
        """The server's summary state, its figures when fresh for `pool_key`, and its
        open reports, from one snapshot."""
        async with self.db.transaction(isolation="repeatable_read", readonly=True) as conn:
            row = await conn.fetchrow(f"{_REFRESHES} WHERE guild_id = $1", guild_id)
            state = None if row is None else refresh_of(row)
            reports = {
                str(q): int(n)
                for q, n in await conn.fetch(
                    "SELECT question_id, COUNT(*) FROM reports WHERE resolved_at IS NULL"
                    " AND guild_id = $1 GROUP BY 1",
                    guild_id,
                )
            }
            if state is None or state.stale or state.pool_key != pool_key:
                return SummaryRead(None, 0, reports)
            stored = await conn.fetch(
                f"SELECT {ITEM_STATS_COLUMNS} FROM item_stats WHERE guild_id = $1", guild_id
            )
        stats = {str(row[0]): item_stats_of(row) for row in stored}
        assert state is not None
        return SummaryRead(stats, state.refreshed_at, reports)

    async def claim(self, guild_id: int) -> None:
        """Give a server about to be refreshed for the first time its (stale) state row,
        so that a member's deletion during the refresh is seen."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO item_stats_refreshes (guild_id, refreshed_at, first_answers,"
                " pool_key, stale) VALUES ($1, 0, 0, '', 1) ON CONFLICT (guild_id) DO NOTHING",
                guild_id,
            )

    async def write_summary(
        self,
        guild_id: int,
        stats: list[ItemStats],
        *,
        now_ms: int,
        first_answers: int,
        pool_key: str,
        generation: int,
    ) -> bool:
        """Replace the server's summary in one transaction; False (nothing written) when
        its state row is gone or its generation moved since `refresh_start`."""
        async with self.db.transaction() as conn:
            current = await conn.fetchval(
                "SELECT generation FROM item_stats_refreshes WHERE guild_id = $1 FOR UPDATE",
                guild_id,
            )
            if current is None or int(current) != generation:
                return False
            await conn.execute("DELETE FROM item_stats WHERE guild_id = $1", guild_id)
            await conn.executemany(
                "INSERT INTO item_stats (guild_id, question_id, answers, correct,"
                " discrimination, ranked, key_index, picks, top_picks, bottom_picks,"
                " refreshed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                summary_rows(guild_id, stats, now_ms),
            )
            await conn.execute(
                "UPDATE item_stats_refreshes SET refreshed_at = $1, first_answers = $2,"
                " pool_key = $3, stale = 0 WHERE guild_id = $4",
                now_ms,
                first_answers,
                pool_key,
                guild_id,
            )
        return True

    async def mark_stale(self, guild_id: int) -> int:
        """A member of the server was deleted: its summary counted them. Rows changed."""
        async with self.db.transaction() as conn:
            status = await conn.execute(
                "UPDATE item_stats_refreshes SET stale = 1, generation = generation + 1"
                " WHERE guild_id = $1",
                guild_id,
            )
        return int(status.split()[-1])
