"""`tpquiz db copy`'s whole run around bot/storage/copy.py: refuse, copy, then verify.

Why the checks live here, beside the copy: the command line must not open either backend
itself. The source file must be at this tpquiz's newest schema (an older one is upgraded
first, a newer one refused); the target must hold no rows unless `force`, which empties
it. After the copy nothing is trusted: the rows of every table are counted on both sides
and every server's leaderboards (all time, this week, this month) are read from both and
compared, so an operator switching TPQUIZ_DATABASE_URL on knows the members see what
they saw. Last VACUUM (ANALYZE) gives the planner statistics for the first reads.

It holds the file's run lock throughout (the bot must be stopped: what it wrote after
the copy would be lost); RunLockHeld says who holds it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bot.infra.config import DatabaseUrl
from bot.quiz.periods import period_start
from bot.storage import copy as pg_copy
from bot.storage import problems
from bot.storage.admin_facts import CopyReport
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.standings import PgStandings
from bot.storage.sqlite import Storage
from bot.storage.sqlite.schema import read_status

__all__ = ["copy_verified"]


def copy_verified(
    source: Path, target: DatabaseUrl, *, force: bool, emptying: Callable[[], None]
) -> CopyReport:
    """Copy the SQLite file `source` into the PostgreSQL database `target` and compare
    them. `emptying` is called just before a forced copy deletes the target's rows.

    DatabaseUnusable (one sentence, no password) when either side cannot be used."""
    from bot.infra.runlock import hold_run_lock

    with hold_run_lock(source, wait=0):
        return asyncio.run(_copy(source, target, force=force, emptying=emptying))


async def _copy(
    path: Path, url: DatabaseUrl, *, force: bool, emptying: Callable[[], None]
) -> CopyReport:
    status = read_status(path)
    if status.too_new:
        raise problems.DatabaseUnusable(status.too_new)
    if status.pending:
        raise problems.DatabaseUnusable(
            f"{path} is at schema {status.version}, older than this tpquiz's {status.newest}:"
            f" run `tpquiz db upgrade` on it (TPQUIZ_DB={path}) first, then copy"
        )
    db = await PgDatabase.open(url)
    try:
        held = await pg_copy.held_rows(db)
        if held and not force:
            shown = ", ".join(f"{t} {n}" for t, n in list(held.items())[:4])
            raise problems.DatabaseUnusable(
                f"{url.redacted} already holds rows ({shown}): copy into an empty database,"
                " or pass --force to delete everything in it first"
            )
        if held:
            emptying()
            await pg_copy.empty_target(db)
        copied = await pg_copy.copy_from_sqlite(path, db)
        await pg_copy.vacuum_analyze(db)  # statistics and visibility map for the first reads
        written = await pg_copy.held_rows(db)
        servers, differ = await _leaderboards(path, db)
    finally:
        await db.close()
    return CopyReport(
        source=read_status(path).rows,
        copied=copied,
        written=written,
        servers=servers,
        differ=differ,
    )


async def _leaderboards(path: Path, db: PgDatabase) -> tuple[int, list[str]]:
    """(servers compared, the leaderboards that differ) between the file and the copy."""
    now = datetime.now(UTC)
    periods: list[tuple[str, int | None]] = [("all time", None)]
    for period in ("week", "month"):
        start = period_start(period, now)
        assert start is not None
        periods.append((f"this {period}", int(start.timestamp() * 1000)))
    guilds = pg_copy.source_guilds(path)
    lite = await Storage.open(path, readonly=True)
    pg = PgStandings(db)
    differ: list[str] = []
    try:
        for guild in guilds:
            for name, since in periods:
                if await lite.standings.all_rows(guild, since) != await pg.all_rows(guild, since):
                    differ.append(f"server {guild} ({name})")
    finally:
        await lite.close()
    return len(guilds), differ
