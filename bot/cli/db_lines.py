"""The lines `tpquiz db status`, `db upgrade [--dry-run]` and `db copy` print.

Why a module of their own: the facts come from `bot.storage.admin` in the same shapes on
SQLite and PostgreSQL (bot/storage/admin_facts.py), so each line is written once, here,
and reads the same on both backends where the fact is the same (schema, pending
migrations, rows per table, "applied ...", "is now at schema N"); bot/cli/db.py keeps
the commands, their options and their refusals.
"""

from __future__ import annotations

from typing import TextIO

from bot.storage.admin import CopyReport, DryRun, Status, Upgraded

__all__ = ["human_size", "write_copy", "write_dry_run", "write_status", "write_upgraded"]


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    return f"{size / 1024:.0f} KiB" if size < 10 * 2**20 else f"{size / 2**20:.1f} MiB"


def write_status(status: Status, out: TextIO) -> None:
    """Where, size, who runs on it, then the schema: the lines of `db status`."""
    log = f" (+ {human_size(status.log[1])} in {status.log[0]})" if status.log else ""
    out.write(f"{status.kind}: {status.where}\n")
    out.write(f"size: {human_size(status.size)}{log}\n")
    if status.running is None:
        out.write("bot running on it: no\n")
    else:
        who = f" ({status.running})" if status.running else ""
        out.write(f"bot running on it: yes{who}\n")
    for line in status.holders:
        out.write(f"  {line}\n")
    write_schema(status, out)


def write_schema(status: Status, out: TextIO) -> None:
    """The schema version, the pending migrations and the rows per table."""
    out.write(f"schema: {status.version} (this tpquiz knows {status.newest})\n")
    if status.pending:
        out.write(f"pending migrations: {len(status.pending)} (tpquiz db upgrade applies them)\n")
        for m in status.pending:
            out.write(f"  {m.name}: {m.title}\n")
    else:
        out.write("pending migrations: none\n")
    out.write("rows:\n")
    width = max((len(t) for t in status.rows), default=0)
    for table, count in status.rows.items():
        out.write(f"  {table:<{width}}  {count:>10}\n")


def write_dry_run(plan: DryRun, out: TextIO) -> None:
    """The SQL an upgrade would run, under a line saying from which schema to which."""
    if plan.version is None:
        out.write(f"-- no database at {plan.where} yet: tpquiz db upgrade would create it\n\n")
        out.write(plan.script)
    elif not plan.pending:
        out.write(f"-- {plan.where} is at schema {plan.version}, the newest: nothing to run\n")
    else:
        out.write(f"-- {plan.where}: schema {plan.version} -> {plan.newest}\n\n")
        out.write(plan.script)


def write_upgraded(done: Upgraded, out: TextIO) -> None:
    """Each migration applied, then the schema the database is at."""
    for m in done.applied:
        out.write(f"db upgrade: applied {m.name} (schema {m.version}): {m.title}\n")
    if not done.applied:
        out.write(
            f"db upgrade: {done.where} is at schema {done.version}, the newest: nothing to do\n"
        )
    else:
        out.write(f"db upgrade: {done.where} is now at schema {done.version}\n")


def write_copy(report: CopyReport, source: str, target: str, out: TextIO, err: TextIO) -> int:
    """The rows of every table on both sides, the leaderboards compared, and the verdict:
    0 when the copy is the file's, else 1 with one line on `err`."""
    out.write(f"db copy: {source} -> {target}\n")
    width = max(len(t) for t in report.source)
    out.write(f"  {'table':<{width}}  {'sqlite':>10}  {'postgresql':>10}\n")
    bad = 0
    for table, count in report.source.items():
        there = report.written.get(table, 0)
        mark = "" if there == count == report.copied.get(table, count) else "  DIFFERENT"
        bad += bool(mark)
        out.write(f"  {table:<{width}}  {count:>10}  {there:>10}{mark}\n")
    for name in report.differ:
        out.write(f"leaderboard differs: {name}\n")
    differ = len(report.differ)
    out.write(
        f"leaderboards: {report.servers} servers compared (all time, this week, this month):"
        f" {'identical' if not differ else f'{differ} differ'}\n"
    )
    if bad or differ:
        err.write(
            f"tpquiz db copy: the copy differs from {source} ({bad} tables, {differ}"
            " leaderboards): do not switch to it; run it again with --force\n"
        )
        return 1
    out.write(f"db copy: {sum(report.source.values())} rows copied and verified\n")
    out.write(
        "db copy: ran VACUUM (ANALYZE) on the target: the planner has statistics for the"
        " leaderboard queries at once\n"
    )
    return 0
