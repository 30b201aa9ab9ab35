"""Item statistics on SQLite behind `ItemStatsContract`: bot/storage/sqlite/itemstats.py's
plain sqlite3 functions run on the database thread.

Why a store over the functions: `bot.services.items.ItemStatsService` must not know which
database it runs on (issue 15); it calls these methods, and PostgreSQL has the same ones
(bot/storage/pg/itemstats.py). The functions stay, for the command line's read-only
connection (`tpquiz questions report`) and for the deletion steps that run inside
another transaction (bot/storage/sqlite/members.py).
"""

from __future__ import annotations

import sqlite3

from bot.quiz.itemstats import ItemStats
from bot.quiz.itemstats_fast import MemberRow
from bot.storage.records import Chunk, Refresh, SummaryRead
from bot.storage.sqlite import itemstats as store
from bot.storage.sqlite import reports as report_store
from bot.storage.sqlite.db import Database


class ItemStatsStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def summary(self, guild_id: int, pool_key: str) -> SummaryRead:
        """The server's summary with its open reports, in one read; `stats` None when
        there is none to read (never computed, stale, or for another pool)."""

        def read(conn: sqlite3.Connection) -> SummaryRead:
            state = store.refreshes(conn, guild_id).get(guild_id)
            reports = report_store.open_counts(conn, guild_id)
            if state is None or state.stale or state.pool_key != pool_key:
                return SummaryRead(None, 0, reports)
            return SummaryRead(store.read_summary(conn, guild_id), state.refreshed_at, reports)

        return await self.db.run_read(read)

    async def member_rows(self, guild_id: int | None = None) -> list[MemberRow]:
        return await self.db.run_read(lambda conn: store.member_rows(conn, guild_id))

    async def first_answer_counts(self) -> dict[int, int]:
        return await self.db.run_read(store.first_answer_counts)

    async def refreshes(self, guild_id: int | None = None) -> dict[int, Refresh]:
        return await self.db.run_read(lambda conn: store.refreshes(conn, guild_id))

    async def refresh_start(self, guild_id: int) -> tuple[int, int | None]:
        """The server's first answers and its summary's generation (None: no state row),
        read together before a refresh reads the answers."""

        def read(conn: sqlite3.Connection) -> tuple[int, int | None]:
            state = store.refreshes(conn, guild_id).get(guild_id)
            return store.first_answer_count(conn, guild_id), (state.generation if state else None)

        return await self.db.run_read(read)

    async def claim(self, guild_id: int) -> None:
        await self.db.run_transaction(lambda conn: store.claim(conn, guild_id))

    async def member_rows_chunk(self, guild_id: int, after_user: int | None, rows: int) -> Chunk:
        return await self.db.run_read(
            lambda conn: store.member_rows_chunk(conn, guild_id, after_user, rows)
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
        return await self.db.run_transaction(
            lambda conn: store.write_summary(
                conn, guild_id, stats, now_ms=now_ms, first_answers=first_answers,
                pool_key=pool_key, generation=generation,
            )
        )  # fmt: skip

    async def mark_stale(self, guild_id: int) -> int:
        return await self.db.run_transaction(lambda conn: store.mark_stale(conn, guild_id))
