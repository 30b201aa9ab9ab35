"""Forgetting and exporting a member, and forgetting a server, on PostgreSQL.

The history of tests/storage/test_members.py (written by the real SQLite click path) is
played into two files, with member X and without; the first is copied into PostgreSQL
(bot/storage/copy.py) and X forgotten there. Every table in PostgreSQL must then equal
the file where X never played (the answers' and reports' ids aside), so ranks and counts
are as if X never played; the export must be the SQLite export of the same data.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from bot.storage.copy import copy_from_sqlite
from bot.storage.member_data import GUILD_TABLES
from bot.storage.pg import members as pgmembers
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.privacy import PgPrivacyStore
from bot.storage.pg.standings import PgStandings
from bot.storage.sqlite import members as lite
from tests.storage.test_members import GUILD, OTHER, X, _dump, _play


def _columns(path: Path) -> dict[str, list[str]]:
    """Each SQLite table's columns (the answers' and reports' ids aside), for `_pg_dump`."""
    conn = sqlite3.connect(path)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        found = {}
        for table in tables:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            if table in ("answers", "reports"):
                columns.remove("id")
            found[table] = columns
        return found
    finally:
        conn.close()


async def _pg_dump(db: PgDatabase, columns: dict[str, list[str]]) -> dict[str, list[tuple]]:
    dump = {}
    for table, names in columns.items():
        rows = await db.fetch(f"SELECT {', '.join(names)} FROM {table}")
        dump[table] = sorted((tuple(r) for r in rows), key=repr)
    return dump


def test_the_steps_follow_the_sqlite_list() -> None:
    assert set(pgmembers._STEPS) == {s.name for s in lite.MEMBER_STEPS}
    assert GUILD_TABLES == tuple(s.name for s in lite.GUILD_STEPS)


@pytest.mark.parametrize("x_rank", ["first", "middle", "last"])
async def test_forgetting_a_member_on_postgresql_is_as_if_they_never_played(
    tmp_path: Path, pg_url: str, x_rank: str
) -> None:
    with_x = await _play(tmp_path / "with.sqlite3", 4, x_rank, with_x=True)
    try:
        sqlite_export = await with_x.privacy.export_member(GUILD, X)
    finally:
        await with_x.close()
    without = await _play(tmp_path / "without.sqlite3", 4, x_rank, with_x=False)
    await without.close()
    db = await PgDatabase.open(pg_url)
    try:
        await copy_from_sqlite(tmp_path / "with.sqlite3", db)
        privacy = PgPrivacyStore(db)
        export = await privacy.export_member(GUILD, X)
        assert json.loads(json.dumps(export)) == json.loads(json.dumps(sqlite_export))
        assert await privacy.member_guilds(X) == [GUILD, OTHER]
        before_other = await privacy.export_member(OTHER, X)

        deleted = await privacy.forget_member(GUILD, X)
        assert deleted["answers"] > 30 and deleted["test_runs"] == 1
        assert deleted["members"] == 1 and deleted["reports"] == 1
        assert deleted["member_periods"] >= 4
        assert await privacy.export_member(OTHER, X) == before_other
        assert await privacy.member_guilds(X) == [OTHER]
        await privacy.forget_member(OTHER, X)
        assert await privacy.member_guilds(X) == []
        nothing = await privacy.export_member(GUILD, X)
        assert all(nothing[step.name] == [] for step in lite.MEMBER_STEPS)

        expected = _dump(tmp_path / "without.sqlite3")
        got = await _pg_dump(db, _columns(tmp_path / "without.sqlite3"))
        for table in expected:
            if table == "score_counts":
                got[table] = [r for r in got[table] if r[-1] > 0]
                expected[table] = [r for r in expected[table] if r[-1] > 0]
            assert got[table] == expected[table], table
        assert not await db.fetch("SELECT 1 FROM score_counts WHERE members <= 0")
        assert X not in [r.score.user_id for r in await PgStandings(db).all_rows(GUILD, None)]
    finally:
        await db.close()


async def test_a_server_is_forgotten_whole_and_due_removals_go_once(
    tmp_path: Path, pg_url: str
) -> None:
    storage = await _play(tmp_path / "g.sqlite3", 3, "middle", with_x=True)
    await storage.close()
    db = await PgDatabase.open(pg_url)
    try:
        await copy_from_sqlite(tmp_path / "g.sqlite3", db)
        privacy = PgPrivacyStore(db)
        standings = PgStandings(db)
        other_before = await standings.all_rows(OTHER, None)
        await privacy.mark_removed(GUILD, 0, 1000)
        await privacy.mark_removed(GUILD, 500, 5000)  # a replay keeps the first date
        await privacy.mark_removed(OTHER, 0, 1000)
        assert await privacy.cancel_removal(OTHER)
        assert not await privacy.cancel_removal(OTHER)
        assert [(p.guild_id, p.due_at) for p in await privacy.pending_removals()] == [(GUILD, 1000)]
        assert await privacy.delete_due(999) == []
        assert await privacy.delete_due(1000, owns=lambda guild: guild != GUILD) == []
        # Two processes' retention loops at once (each its own pool): deleted once.
        other = await PgDatabase.open(pg_url)
        try:
            first, second = await asyncio.gather(
                privacy.delete_due(1000), PgPrivacyStore(other).delete_due(1000)
            )
        finally:
            await other.close()
        assert sorted(first + second) == [GUILD]
        assert await privacy.delete_due(1000) == []
        for table in GUILD_TABLES:
            rows = await db.fetch(f"SELECT 1 FROM {table} WHERE guild_id = $1", GUILD)
            assert rows == [], table
        assert await standings.all_rows(OTHER, None) == other_before
        # A member's deletion marks the server's item statistics summary stale.
        async with db.transaction() as conn:
            await conn.execute(
                "INSERT INTO item_stats_refreshes (guild_id, refreshed_at, first_answers,"
                " pool_key) VALUES ($1, 1, 10, 'k')",
                OTHER,
            )
        await privacy.forget_member(OTHER, X)
        state = await db.fetchrow(
            "SELECT stale, generation FROM item_stats_refreshes WHERE guild_id = $1", OTHER
        )
        assert state is not None and (state[0], state[1]) == (1, 1)
        counts = await privacy.forget_guild(OTHER)
        assert counts["answers"] > 0 and counts["members"] > 0
        assert counts["item_stats_refreshes"] == 1
    finally:
        await db.close()
