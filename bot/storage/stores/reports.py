"""Problem reports: filed by members, listed for admins and maintainers, resolved.

One store for both backends over `Executor` (bot/storage/sql.py), ReportsContract. The
statements are module constants because SQLite's plain `sqlite3` functions
(bot/storage/sqlite/reports.py: the command line's read-only connection, member
deletion, the item statistics) run the same ones.

The limits (one report per member and question, so many a day) are decided by
`bot.quiz.reports.report_refusal` on counts read inside the filing transaction. SQLite
serialises writers, so two submissions cannot both pass the count there; PostgreSQL at
READ COMMITTED could, so there the filing transaction first takes a transaction-level
advisory lock on the member (released at COMMIT, whichever process holds it): the second
filing's counts are read after the first committed, and see its report.
"""

from __future__ import annotations

from functools import lru_cache

from bot.quiz.reports import DAY_MS, Refusal, clean_body, report_refusal
from bot.storage.records import REPORT_COLUMNS, Report, reports_of
from bot.storage.sql import Dialect, Executor, Fragment, Query

__all__ = [
    "COUNT_OPEN",
    "FILE",
    "OPEN_COUNTS",
    "PRIOR",
    "RESOLVE",
    "RESOLVED",
    "ReportStore",
    "find_query",
]

#: The first key of the member's advisory lock while filing ('tprp'; PostgreSQL only).
REPORT_LOCK = 0x74707270
_FILING_LOCK = Query("SELECT pg_advisory_xact_lock(:lock, hashtext(:member))")

#: (already reported this question, reports in the last day), of one member in a server.
PRIOR = Query(
    "SELECT EXISTS (SELECT 1 FROM reports WHERE guild_id = :guild AND user_id = :user"
    "  AND question_id = :question),"
    " (SELECT COUNT(*) FROM reports WHERE guild_id = :guild AND user_id = :user"
    "  AND created_at > :since)"
)
FILE = Query(
    "INSERT INTO reports (guild_id, user_id, question_id, language, reason, body, created_at)"
    " VALUES (:guild, :user, :question, :language, :reason, :body, :now)"
    f" RETURNING {REPORT_COLUMNS}"
)
#: Open reports, of all servers (False) or of one (True): two statements, so that each
#: is a range of the reports_open index.
COUNT_OPEN = {
    False: Query("SELECT COUNT(*) FROM reports WHERE resolved_at IS NULL"),
    True: Query("SELECT COUNT(*) FROM reports WHERE guild_id = :guild AND resolved_at IS NULL"),
}
OPEN_COUNTS = {
    False: Query("SELECT question_id, COUNT(*) FROM reports WHERE resolved_at IS NULL GROUP BY 1"),
    True: Query(
        "SELECT question_id, COUNT(*) FROM reports WHERE guild_id = :guild"
        " AND resolved_at IS NULL GROUP BY 1"
    ),
}
#: `:guild` NULL: any server (a report is found by its id, so no index range is lost).
_IN_GUILD = "(CAST(:guild AS BIGINT) IS NULL OR guild_id = :guild)"
RESOLVE = Query(
    "UPDATE reports SET resolved_at = :now, resolved_by = :by, note = :note"
    f" WHERE id = :report AND resolved_at IS NULL AND {_IN_GUILD}"
)
RESOLVED = Query(f"SELECT {REPORT_COLUMNS} FROM reports WHERE id = :report AND {_IN_GUILD}")
_RESOLVE_OPEN = Query(
    "UPDATE reports SET resolved_at = :now, resolved_by = :by WHERE id = :report"
    f" AND guild_id = :guild AND resolved_at IS NULL RETURNING {REPORT_COLUMNS}"
)


@lru_cache(maxsize=8)
def find_query(guild: bool, open_only: bool, question: bool) -> Query:
    """Reports newest first, filtered by server (`:guild`), open, question (`:question`);
    `:limit` NULL is every one (SQLite's "no limit" is -1, PostgreSQL's NULL)."""
    where = [
        *(["guild_id = :guild"] if guild else []),
        *(["resolved_at IS NULL"] if open_only else []),
        *(["question_id = :question"] if question else []),
    ]
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    return Query(
        f"SELECT {REPORT_COLUMNS} FROM reports{clause} ORDER BY created_at DESC, id DESC"
        " LIMIT {limit} OFFSET :offset",
        limit=Fragment(sqlite="COALESCE(:limit, -1)", postgresql=":limit"),
    )


class ReportStore:
    def __init__(self, db: Executor) -> None:
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
        """File a report, or say why not (`bot.quiz.reports.report_refusal`); the limits
        are checked in its transaction."""
        async with self.db.transaction() as tx:
            if tx.dialect is Dialect.POSTGRESQL:  # see the module docstring
                await tx.execute(_FILING_LOCK, lock=REPORT_LOCK, member=f"{guild_id}:{user_id}")
            prior = await tx.fetch_one(
                PRIOR, guild=guild_id, user=user_id, question=question_id, since=now_ms - DAY_MS
            )
            assert prior is not None
            refusal = report_refusal(already_reported=bool(prior[0]), in_last_day=int(prior[1]))
            if refusal is not None:
                return refusal
            rows = await tx.fetch(
                FILE,
                guild=guild_id,
                user=user_id,
                question=question_id,
                language=language,
                reason=reason,
                body=clean_body(body),
                now=now_ms,
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
        rows = await self.db.fetch(
            find_query(guild_id is not None, open_only, question_id is not None),
            guild=guild_id,
            question=question_id,
            limit=None if limit < 0 else limit,
            offset=offset,
        )
        return reports_of(rows)

    async def count_open(self, guild_id: int | None = None) -> int:
        row = await self.db.fetch_one(COUNT_OPEN[guild_id is not None], guild=guild_id)
        assert row is not None
        return int(row[0])

    async def open_counts(self, guild_id: int | None = None) -> dict[str, int]:
        """Open reports per question, of one server or all (the item statistics' count)."""
        rows = await self.db.fetch(OPEN_COUNTS[guild_id is not None], guild=guild_id)
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
        """Mark a report resolved (once: an already resolved one keeps its first note).

        `guild_id` restricts it to one server (an admin resolves only their own server's).
        Returns the report as it now is, or None when there is no such report (there).
        """
        async with self.db.transaction() as tx:
            await tx.execute(
                RESOLVE, now=now_ms, by=by, note=note, report=report_id, guild=guild_id
            )
            rows = await tx.fetch(RESOLVED, report=report_id, guild=guild_id)
        return reports_of(rows)[0] if rows else None

    async def resolve_open(
        self, report_id: int, *, guild_id: int, now_ms: int, by: int
    ) -> Report | None:
        """Resolve an open report of this server (an admin's Resolve button); None when
        there is no such open report there (already resolved, or another server's)."""
        async with self.db.transaction() as tx:
            rows = await tx.fetch(
                _RESOLVE_OPEN, now=now_ms, by=by, report=report_id, guild=guild_id
            )
        return reports_of(rows)[0] if rows else None
