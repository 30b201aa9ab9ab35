"""Problem reports as plain `sqlite3` functions, for the callers that hold a connection.

The bot's report store is bot/storage/stores/reports.py, shared with PostgreSQL; these
run the same statements (its `Query` constants) on a plain connection: the command
line's read-only one (bot/storage/sqlite/admin.py), member deletion and export on the
database thread (bot/storage/sqlite/members.py), the item statistics' open counts
(items.py). Reports are keyed by (guild_id, user_id) so that a member's deletion
(`delete_member`) and a server's (`delete_guild`) remove them, and `export_member`
returns them.
"""

from __future__ import annotations

import sqlite3

from bot.quiz.reports import DAY_MS, Refusal, clean_body, report_refusal
from bot.storage.records import REPORT_COLUMNS, Report, reports_of
from bot.storage.sql import Dialect, Query
from bot.storage.stores.reports import (
    COUNT_OPEN,
    FILE,
    OPEN_COUNTS,
    PRIOR,
    RESOLVE,
    RESOLVED,
    find_query,
)


def _run(conn: sqlite3.Connection, query: Query, **params: object) -> sqlite3.Cursor:
    return conn.execute(*query.bind(Dialect.SQLITE, params))


def add_report(
    conn: sqlite3.Connection,
    *,
    guild_id: int,
    user_id: int,
    question_id: str,
    language: str,
    reason: str,
    body: str | None,
    now_ms: int,
) -> Report | Refusal:
    """`ReportStore.add` on a plain connection: run it in a transaction, so that the
    limits hold against two submissions at once."""
    already, recent = _run(
        conn, PRIOR, guild=guild_id, user=user_id, question=question_id, since=now_ms - DAY_MS
    ).fetchone()
    refusal = report_refusal(already_reported=bool(already), in_last_day=int(recent))
    if refusal is not None:
        return refusal
    cursor = _run(
        conn,
        FILE,
        guild=guild_id,
        user=user_id,
        question=question_id,
        language=language,
        reason=reason,
        body=clean_body(body),
        now=now_ms,
    )
    return reports_of(cursor.fetchall())[0]


def list_reports(
    conn: sqlite3.Connection,
    guild_id: int | None = None,
    *,
    open_only: bool = False,
    question_id: str | None = None,
    limit: int = -1,
    offset: int = 0,
) -> list[Report]:
    """Reports, newest first: of one server or all, open ones only or all."""
    rows = _run(
        conn,
        find_query(guild_id is not None, open_only, question_id is not None),
        guild=guild_id,
        question=question_id,
        limit=None if limit < 0 else limit,
        offset=offset,
    ).fetchall()
    return reports_of(rows)


def count_open(conn: sqlite3.Connection, guild_id: int | None = None) -> int:
    return int(_run(conn, COUNT_OPEN[guild_id is not None], guild=guild_id).fetchone()[0])


def open_counts(conn: sqlite3.Connection, guild_id: int | None = None) -> dict[str, int]:
    """Open reports per question, of one server or all (the item statistics' count)."""
    rows = _run(conn, OPEN_COUNTS[guild_id is not None], guild=guild_id)
    return {str(q): int(n) for q, n in rows}


def resolve(
    conn: sqlite3.Connection,
    report_id: int,
    *,
    now_ms: int,
    note: str | None = None,
    by: int | None = None,
    guild_id: int | None = None,
) -> Report | None:
    """`ReportStore.resolve` on a plain connection (bot/storage/stores/reports.py)."""
    _run(conn, RESOLVE, now=now_ms, by=by, note=note, report=report_id, guild=guild_id)
    rows = _run(conn, RESOLVED, report=report_id, guild=guild_id).fetchall()
    return reports_of(rows)[0] if rows else None


def delete_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    """Delete a member's reports in a server (forget-me); returns how many."""
    return conn.execute(
        "DELETE FROM reports WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    ).rowcount


def delete_guild(conn: sqlite3.Connection, guild_id: int) -> int:
    """Delete every report of a server (the bot left it); returns how many."""
    return conn.execute("DELETE FROM reports WHERE guild_id = ?", (guild_id,)).rowcount


def export_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> list[dict[str, object]]:
    """A member's reports in a server, oldest first, as plain dicts (data export)."""
    rows = conn.execute(
        f"SELECT {REPORT_COLUMNS} FROM reports WHERE guild_id = ? AND user_id = ?"
        " ORDER BY created_at, id",
        (guild_id, user_id),
    ).fetchall()
    return [r.as_dict() for r in reports_of(rows)]
