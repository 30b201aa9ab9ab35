"""Problem reports on PostgreSQL: the twin of bot/storage/sqlite/reports.py's `ReportStore`.

The limits (one report per member and question, so many a day) are decided by
`bot.quiz.reports.report_refusal` on counts read inside the filing transaction, as on
SQLite. SQLite serialises writers, so two submissions cannot both pass the count there;
PostgreSQL at READ COMMITTED can, so the filing transaction first takes a transaction-level
advisory lock on the member (released at COMMIT, whichever process holds it): the second
filing's counts are read after the first committed, and see its report.
"""

from __future__ import annotations

from bot.quiz.reports import DAY_MS, Refusal, clean_body, report_refusal
from bot.storage.pg.db import PgDatabase
from bot.storage.records import REPORT_COLUMNS, Report, reports_of

#: The first key of the member's advisory lock while filing ('tprp').
REPORT_LOCK = 0x74707270


class PgReportStore:
    def __init__(self, db: PgDatabase) -> None:
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
        """File a report, or say why not (`bot.quiz.reports.report_refusal`)."""
        async with self.db.transaction() as conn:
            # One filing per member at a time, across processes: the daily count holds.
            await conn.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2))",
                REPORT_LOCK,
                f"{guild_id}:{user_id}",
            )
            row = await conn.fetchrow(
                "SELECT EXISTS (SELECT 1 FROM reports WHERE guild_id = $1 AND user_id = $2"
                "  AND question_id = $3),"
                " (SELECT COUNT(*) FROM reports WHERE guild_id = $1 AND user_id = $2"
                "  AND created_at > $4)",
                guild_id,
                user_id,
                question_id,
                now_ms - DAY_MS,
            )
            assert row is not None
            refusal = report_refusal(already_reported=bool(row[0]), in_last_day=int(row[1]))
            if refusal is not None:
                return refusal
            rows = await conn.fetch(
                "INSERT INTO reports (guild_id, user_id, question_id, language, reason, body,"
                " created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING " + REPORT_COLUMNS,
                guild_id,
                user_id,
                question_id,
                language,
                reason,
                clean_body(body),
                now_ms,
            )
        return reports_of(rows)[0]

    async def find(
        self,
        guild_id: int | None = None,
        *,
        open_only: bool = False,
        question_id: str | None = None,
        limit: int = -1,
        offset: int = 0,
    ) -> list[Report]:
        """Reports, newest first: of one server or all, open ones only or all
        (`limit` -1: every one)."""
        where: list[str] = []
        args: list[object] = []
        if guild_id is not None:
            args.append(guild_id)
            where.append(f"guild_id = ${len(args)}")
        if open_only:
            where.append("resolved_at IS NULL")
        if question_id is not None:
            args.append(question_id)
            where.append(f"question_id = ${len(args)}")
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        args += [None if limit < 0 else limit, offset]
        rows = await self.db.fetch(
            f"SELECT {REPORT_COLUMNS} FROM reports{clause} ORDER BY created_at DESC, id DESC"
            f" LIMIT ${len(args) - 1} OFFSET ${len(args)}",
            *args,
        )
        return reports_of(rows)

    async def count_open(self, guild_id: int | None = None) -> int:
        row = await self.db.fetchrow(
            "SELECT COUNT(*) FROM reports WHERE resolved_at IS NULL"
            " AND ($1::BIGINT IS NULL OR guild_id = $1)",
            guild_id,
        )
        assert row is not None
        return int(row[0])

    async def open_counts(self, guild_id: int | None = None) -> dict[str, int]:
        """Open reports per question, of one server or all."""
        rows = await self.db.fetch(
            "SELECT question_id, COUNT(*) FROM reports WHERE resolved_at IS NULL"
            " AND ($1::BIGINT IS NULL OR guild_id = $1) GROUP BY 1",
            guild_id,
        )
        return {str(q): int(n) for q, n in rows}

    async def resolve(
        self,
        report_id: int,
        *,
        now_ms: int,
        note: str | None = None,
        by: int | None = None,
        guild_id: int | None = None,
    ) -> Report | None:
        """Mark a report resolved (once: a resolved one keeps its first note); None when
        there is no such report (in that server)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE reports SET resolved_at = $1, resolved_by = $2, note = $3"
                " WHERE id = $4 AND resolved_at IS NULL"
                " AND ($5::BIGINT IS NULL OR guild_id = $5)",
                now_ms,
                by,
                note,
                report_id,
                guild_id,
            )
            rows = await conn.fetch(
                f"SELECT {REPORT_COLUMNS} FROM reports WHERE id = $1"
                " AND ($2::BIGINT IS NULL OR guild_id = $2)",
                report_id,
                guild_id,
            )
        return reports_of(rows)[0] if rows else None

    async def resolve_open(
        self, report_id: int, *, guild_id: int, now_ms: int, by: int
    ) -> Report | None:
        """Resolve an open report of this server; None when there is no such open one."""
        async with self.db.transaction() as conn:
            rows = await conn.fetch(
                "UPDATE reports SET resolved_at = $1, resolved_by = $2 WHERE id = $3"
                f" AND guild_id = $4 AND resolved_at IS NULL RETURNING {REPORT_COLUMNS}",
                now_ms,
                by,
                report_id,
                guild_id,
            )
        return reports_of(rows)[0] if rows else None
