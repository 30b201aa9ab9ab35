"""Everything stored about a member, or a server, on PostgreSQL: exported, or deleted.

The twin of bot/storage/sqlite/members.py: both follow the one catalogue of what is stored
about a member and what each field means (bot/storage/member_data.py: the same names,
order and notes in the export's "_about", and `GUILD_TABLES`), and a test fails when
the functions here miss a table of it (tests/storage/test_pg_privacy.py). Each step is an
async function of one asyncpg connection, so that a whole deletion runs inside the one
transaction `PgPrivacyStore` opens: everything about the member goes, or nothing.

Summaries are updated as on SQLite, so that ranks and counts are what they would be had
the member never played: the member's `members` and `member_periods` rows are taken out
of `score_counts` before they go (emptied pairs removed), and the posts they answered
have their `answer_count` lowered. Rows are locked by the UPDATEs in the order a click
takes them (posts, then score_counts), so a concurrent click waits rather than
deadlocking, and READ COMMITTED sees the click's committed rows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import asyncpg

from bot.storage.member_data import EXPORT_NOTE, GUILD_TABLES, MEMBER_DATA, MEMBER_TABLES
from bot.storage.records import CARD_COLUMNS, REPORT_COLUMNS

__all__ = ["delete_guild", "delete_member", "export_member", "member_guilds"]

Rows: TypeAlias = list[dict[str, Any]]
Conn: TypeAlias = asyncpg.Connection


def _count(status: str) -> int:
    """The row count of an asyncpg command status ("DELETE 3" -> 3)."""
    return int(status.rsplit(" ", 1)[-1])


def _rows_of(table: str, columns: str, order: str) -> Callable[[Conn, int, int], Awaitable[Rows]]:
    async def export(conn: Conn, guild_id: int, user_id: int) -> Rows:
        rows = await conn.fetch(
            f"SELECT {columns} FROM {table} WHERE guild_id = $1 AND user_id = $2 ORDER BY {order}",
            guild_id,
            user_id,
        )
        return [dict(row) for row in rows]

    return export


def _delete_rows(table: str) -> Callable[[Conn, int, int], Awaitable[int]]:
    async def delete(conn: Conn, guild_id: int, user_id: int) -> int:
        return _count(
            await conn.execute(
                f"DELETE FROM {table} WHERE guild_id = $1 AND user_id = $2", guild_id, user_id
            )
        )

    return delete


async def _delete_answers(conn: Conn, guild_id: int, user_id: int) -> int:
    """The member's answers, first taken out of their posts' answer counts."""
    await conn.execute(
        "UPDATE posts SET answer_count = GREATEST(0, posts.answer_count - mine.n)"
        " FROM (SELECT post_id, COUNT(*) AS n FROM answers WHERE guild_id = $1"
        "  AND user_id = $2 AND post_id IS NOT NULL GROUP BY post_id) AS mine"
        " WHERE posts.id = mine.post_id",
        guild_id,
        user_id,
    )
    return await _delete_rows("answers")(conn, guild_id, user_id)


async def _uncount(conn: Conn, guild_id: int, source: str, user_id: int) -> None:
    """Take the member's rows of `source` out of `score_counts`; drop emptied pairs."""
    if source == "members":
        pairs = "SELECT 'all' AS period, 0::BIGINT AS starts_at, points, correct FROM members"
    else:
        pairs = "SELECT period, starts_at, points, correct FROM member_periods"
    await conn.execute(
        "UPDATE score_counts AS c SET members = c.members - 1"
        f" FROM ({pairs} WHERE guild_id = $1 AND user_id = $2) AS mine"
        " WHERE c.guild_id = $1 AND c.period = mine.period AND c.starts_at = mine.starts_at"
        " AND c.points = mine.points AND c.correct = mine.correct AND c.members > 0",
        guild_id,
        user_id,
    )
    await conn.execute("DELETE FROM score_counts WHERE guild_id = $1 AND members = 0", guild_id)


async def _delete_totals(conn: Conn, guild_id: int, user_id: int) -> int:
    await _uncount(conn, guild_id, "members", user_id)
    return await _delete_rows("members")(conn, guild_id, user_id)


async def _delete_periods(conn: Conn, guild_id: int, user_id: int) -> int:
    await _uncount(conn, guild_id, "member_periods", user_id)
    return await _delete_rows("member_periods")(conn, guild_id, user_id)


async def _delete_reports(conn: Conn, guild_id: int, user_id: int) -> int:
    """The member's reports; their id is taken off reports they resolved as an admin."""
    deleted = await _delete_rows("reports")(conn, guild_id, user_id)
    await conn.execute(
        "UPDATE reports SET resolved_by = NULL WHERE guild_id = $1 AND resolved_by = $2",
        guild_id,
        user_id,
    )
    return deleted


async def _export_hosted(conn: Conn, guild_id: int, user_id: int) -> Rows:
    rows = await conn.fetch(
        "SELECT id, channel_id, host_id, topic, question_count, status, created_at, ended_at"
        " FROM live_sessions WHERE guild_id = $1 AND host_id = $2 ORDER BY created_at, id",
        guild_id,
        user_id,
    )
    return [dict(row) for row in rows]


async def _forget_host(conn: Conn, guild_id: int, user_id: int) -> int:
    """The member's id taken off the quiz nights they hosted (0: no host); the sessions
    stay the server's."""
    return _count(
        await conn.execute(
            "UPDATE live_sessions SET host_id = 0 WHERE guild_id = $1 AND host_id = $2",
            guild_id,
            user_id,
        )
    )


async def _delete_suggestions(conn: Conn, guild_id: int, user_id: int) -> int:
    """The member's suggestions; their name is taken off the questions accepted from
    them (credit_user_id 0: "a member"), which stay the server's."""
    await conn.execute(
        "UPDATE guild_questions SET credit_user_id = 0, credit_name = NULL"
        " WHERE guild_id = $1 AND credit_user_id = $2",
        guild_id,
        user_id,
    )
    return await _delete_rows("suggestions")(conn, guild_id, user_id)


#: name -> (export, delete) of each table in the catalogue (bot/storage/member_data.py).
_STEPS: dict[
    str,
    tuple[Callable[[Conn, int, int], Awaitable[Rows]], Callable[[Conn, int, int], Awaitable[int]]],
] = {
    "answers": (_rows_of("answers", "*", "answered_at, id"), _delete_answers),
    "live_choices": (
        _rows_of("live_choices", "*", "session_id, position"),
        _delete_rows("live_choices"),
    ),
    "live_players": (_rows_of("live_players", "*", "session_id"), _delete_rows("live_players")),
    "live_sessions": (_export_hosted, _forget_host),
    "test_runs": (_rows_of("test_runs", "*", "started_at, id"), _delete_rows("test_runs")),
    "members": (_rows_of("members", "*", "user_id"), _delete_totals),
    "member_periods": (_rows_of("member_periods", "*", "period, starts_at"), _delete_periods),
    "daily_streaks": (
        _rows_of("daily_streaks", "*", "user_id"),
        _delete_rows("daily_streaks"),
    ),
    "cards": (
        _rows_of("cards", f"question_id, {CARD_COLUMNS}", "question_id"),
        _delete_rows("cards"),
    ),
    "review_reminders": (
        _rows_of(
            "review_reminders",
            "enabled, remind_time, language, set_at, last_date, refused_at",
            "user_id",
        ),
        _delete_rows("review_reminders"),
    ),
    "reports": (_rows_of("reports", REPORT_COLUMNS, "created_at, id"), _delete_reports),
    "suggestions": (_rows_of("suggestions", "*", "id"), _delete_suggestions),
}


async def delete_member(conn: Conn, guild_id: int, user_id: int) -> dict[str, int]:
    """Delete everything about the member in the server; rows deleted per step.

    Run it inside one transaction (`PgDatabase.transaction`). The server's item
    statistics summary counted the member's answers: it is marked stale, as on SQLite
    (bot/storage/sqlite/itemstats.py `mark_stale`), so the view computes on demand until the
    next refresh."""
    deleted = {
        table.name: await _STEPS[table.name][1](conn, guild_id, user_id) for table in MEMBER_DATA
    }
    await conn.execute(
        "UPDATE item_stats_refreshes SET stale = 1, generation = generation + 1"
        " WHERE guild_id = $1",
        guild_id,
    )
    return deleted


async def delete_guild(conn: Conn, guild_id: int) -> dict[str, int]:
    """Delete everything about the server and its members; rows deleted per table."""
    return {
        table: _count(await conn.execute(f"DELETE FROM {table} WHERE guild_id = $1", guild_id))
        for table in GUILD_TABLES
    }


async def export_member(conn: Conn, guild_id: int, user_id: int) -> dict[str, Any]:
    """Everything stored about the member in the server, with a note of each field
    (the same document as on SQLite: bot/storage/sqlite/members.py `export_member`)."""
    about = {table.name: table.about for table in MEMBER_DATA}
    data: dict[str, Any] = {
        "_about": {"_file": EXPORT_NOTE, **about},
        "guild_id": guild_id,
        "user_id": user_id,
    }
    for table in MEMBER_DATA:
        data[table.name] = await _STEPS[table.name][0](conn, guild_id, user_id)
    return data


async def member_guilds(conn: Conn, user_id: int) -> list[int]:
    """Every server in which a member step holds a row about the member."""
    union = " UNION ".join(
        f"SELECT guild_id FROM {table} WHERE user_id = $1" for table in MEMBER_TABLES
    )
    return sorted(int(row[0]) for row in await conn.fetch(union, user_id))
