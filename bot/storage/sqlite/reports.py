"""Problem reports: filed by members, listed for admins and maintainers, resolved.

Plain `sqlite3` functions, run on the bot's database thread (`Database.run_transaction`,
`Database.run_read`) or on the command line's own connection. Reports are keyed by
(guild_id, user_id) so that a member's deletion (`delete_member`) and a server's
(`delete_guild`) remove them, and `export_member` returns them.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from bot.quiz.reports import DAY_MS, Refusal, clean_body, report_refusal
from bot.storage.records import REPORT_COLUMNS, Report, reports_of

if TYPE_CHECKING:
    from bot.storage.sqlite.db import Database


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
    """File a report, or say why not (`bot.quiz.reports.report_refusal`); run it in a
    transaction so the limits hold against two submissions at once."""
    already, recent = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM reports WHERE guild_id = ? AND user_id = ?"
        "  AND question_id = ?),"
        " (SELECT COUNT(*) FROM reports WHERE guild_id = ? AND user_id = ? AND created_at > ?)",
        (guild_id, user_id, question_id, guild_id, user_id, now_ms - DAY_MS),
    ).fetchone()
    refusal = report_refusal(already_reported=bool(already), in_last_day=int(recent))
    if refusal is not None:
        return refusal
    cursor = conn.execute(
        "INSERT INTO reports (guild_id, user_id, question_id, language, reason, body,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING " + REPORT_COLUMNS,
        (guild_id, user_id, question_id, language, reason, clean_body(body), now_ms),
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
    where: list[str] = []
    args: list[object] = []
    if guild_id is not None:
        where.append("guild_id = ?")
        args.append(guild_id)
    if open_only:
        where.append("resolved_at IS NULL")
    if question_id is not None:
        where.append("question_id = ?")
        args.append(question_id)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    rows = conn.execute(
        f"SELECT {REPORT_COLUMNS} FROM reports{clause} ORDER BY created_at DESC, id DESC"
        " LIMIT ? OFFSET ?",
        (*args, limit, offset),
    ).fetchall()
    return reports_of(rows)


def count_open(conn: sqlite3.Connection, guild_id: int | None = None) -> int:
    if guild_id is None:
        row = conn.execute("SELECT COUNT(*) FROM reports WHERE resolved_at IS NULL").fetchone()
    else:
        row = conn.execute(
            "SELECT COUNT(*) FROM reports WHERE guild_id = ? AND resolved_at IS NULL", (guild_id,)
        ).fetchone()
    return int(row[0])


def open_counts(conn: sqlite3.Connection, guild_id: int | None = None) -> dict[str, int]:
    """Open reports per question, of one server or all (the item statistics' count)."""
    if guild_id is None:
        rows = conn.execute(
            "SELECT question_id, COUNT(*) FROM reports WHERE resolved_at IS NULL GROUP BY 1"
        )
    else:
        rows = conn.execute(
            "SELECT question_id, COUNT(*) FROM reports WHERE guild_id = ? AND resolved_at IS NULL"
            " GROUP BY 1",
            (guild_id,),
        )
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
    """Mark a report resolved (once: an already resolved one keeps its first note).

    `guild_id` restricts it to one server (an admin resolves only their own server's).
    Returns the report as it now is, or None when there is no such report (there).
    """
    scope, args = ("", ()) if guild_id is None else (" AND guild_id = ?", (guild_id,))
    conn.execute(
        "UPDATE reports SET resolved_at = ?, resolved_by = ?, note = ?"
        f" WHERE id = ? AND resolved_at IS NULL{scope}",
        (now_ms, by, note, report_id, *args),
    )
    rows = conn.execute(
        f"SELECT {REPORT_COLUMNS} FROM reports WHERE id = ?{scope}", (report_id, *args)
    ).fetchall()
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


def resolve_open(
    conn: sqlite3.Connection, report_id: int, *, guild_id: int, now_ms: int, by: int
) -> Report | None:
    """Resolve an open report of this server (an admin's Resolve button); None when
    there is no such open report there (already resolved, or another server's)."""
    changed = conn.execute(
        "UPDATE reports SET resolved_at = ?, resolved_by = ? WHERE id = ? AND guild_id = ?"
        " AND resolved_at IS NULL",
        (now_ms, by, report_id, guild_id),
    ).rowcount
    if not changed:
        return None
    rows = conn.execute(
        f"SELECT {REPORT_COLUMNS} FROM reports WHERE id = ?", (report_id,)
    ).fetchall()
    return reports_of(rows)[0]


class ReportStore:
    """The async face of the functions above, one trip to the database thread each: the
    report store of the storage contract (bot/storage/contract.py ReportsContract), whose
    PostgreSQL twin is bot/storage/pg/reports.py."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add(
        self,
        *,
        guild_id: int,
        user_id: int,
        question_id: str,
        language: str,
        reason: str,
        body: str | None,
        now_ms: int,
    ) -> Report | Refusal:
        """File a report, or say why not; the limits are checked in its transaction."""
        return await self.db.run_transaction(
            lambda conn: add_report(
                conn,
                guild_id=guild_id,
                user_id=user_id,
                question_id=question_id,
                language=language,
                reason=reason,
                body=body,
                now_ms=now_ms,
            )
        )

    async def find(
        self,
        guild_id: int | None = None,
        *,
        open_only: bool = False,
        question_id: str | None = None,
        limit: int = -1,
        offset: int = 0,
    ) -> list[Report]:
        return await self.db.run_read(
            lambda conn: list_reports(
                conn,
                guild_id,
                open_only=open_only,
                question_id=question_id,
                limit=limit,
                offset=offset,
            )
        )

    async def count_open(self, guild_id: int | None = None) -> int:
        return await self.db.run_read(lambda conn: count_open(conn, guild_id))

    async def open_counts(self, guild_id: int | None = None) -> dict[str, int]:
        return await self.db.run_read(lambda conn: open_counts(conn, guild_id))

    async def resolve(
        self,
        report_id: int,
        *,
        now_ms: int,
        note: str | None = None,
        by: int | None = None,
        guild_id: int | None = None,
    ) -> Report | None:
        return await self.db.run_transaction(
            lambda conn: resolve(
                conn, report_id, now_ms=now_ms, note=note, by=by, guild_id=guild_id
            )
        )

    async def resolve_open(
        self, report_id: int, *, guild_id: int, now_ms: int, by: int
    ) -> Report | None:
        return await self.db.run_transaction(
            lambda conn: resolve_open(conn, report_id, guild_id=guild_id, now_ms=now_ms, by=by)
        )
