"""The SQLite side of `bot.storage.admin`: what the command line does to a database file.

Why apart from the stores: these are not the bot's reads and writes but an operator's
(`tpquiz db status`/`upgrade`, restore, the privacy commands, the item statistics), and
each needs a fact only a file has: its size and WAL, its run lock, its existence. They
were in the command line, which had to import this backend for them; here, behind
`bot.storage.admin`, the command line sees only the neutral facts of
bot/storage/admin_facts.py. The sentences are the ones bot/storage/problems.py holds, so
every command says the same words about the same file.

`status` and `dry_run` never change the file, never create it, and are safe beside a
running bot (`bot.storage.sqlite.schema` opens it read-only). `upgrade` and `restore` take
the run lock as `tpquiz run` does, so they never work under a running bot.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from bot.infra.config import ConfigError
from bot.storage import problems
from bot.storage.admin_facts import DryRun, MigrationInfo, Status, Upgraded
from bot.storage.sqlite.preflight import database_problem, run_problem
from bot.storage.sqlite.schema import Migration, bundled, read_status, upgrade_script

if TYPE_CHECKING:
    from bot.quiz.itemstats_fast import MemberRow
    from bot.storage.sqlite.backup import BackupResult
    from bot.storage.sqlite.reports import Report

__all__ = [
    "dry_run",
    "first_answers",
    "list_reports",
    "read_problem",
    "refuse_migrating_under_a_bot",
    "require_file",
    "restore",
    "status",
    "upgrade",
]


def _infos(migrations: list[Migration]) -> list[MigrationInfo]:
    return [MigrationInfo(m.version, m.name, m.title) for m in migrations]


def _on_disk(path: Path) -> Path:
    """The file `db status`/`upgrade` work on; an in-memory database is a setting's error."""
    if str(path) == ":memory:":
        raise ConfigError(problems.in_memory())
    return path


def require_file(path: Path) -> None:
    """ConfigError unless the database file exists: these commands never create one."""
    if str(path) == ":memory:":
        raise ConfigError(problems.in_memory())
    if not path.exists():
        raise ConfigError(problems.missing(path))


def read_problem(path: Path) -> str | None:
    """Why a reading command (`leaderboard`) cannot read the file, or None: it must exist,
    be tpquiz's and be at the newest schema, since a read never creates or migrates."""
    if str(path) == ":memory:":
        return problems.missing(path)
    return database_problem(path, write=False)


def status(path: Path) -> Status:
    """File, size, WAL, the bot running on it, schema, pending migrations, rows."""
    found = read_status(_on_disk(path))
    pid = found.running
    return Status(
        kind="file",
        where=str(found.path.absolute()),
        size=found.size,
        log=(f"{found.path.name}-wal", found.wal_size) if found.wal_size else None,
        running=None if pid is None else (f"pid {pid}" if pid else ""),
        holders=[],
        version=found.version,
        newest=found.newest,
        pending=_infos(found.pending),
        rows=found.rows,
        too_new=found.too_new,
    )


def dry_run(path: Path) -> DryRun:
    """The SQL an upgrade would run; DatabaseUnusable as `upgrade` would refuse."""
    path = _on_disk(path)
    if not path.exists():
        problem = run_problem(path)  # a database deleted beside a lock, a closed directory
        if problem:
            raise problems.DatabaseUnusable(problem)
        every = bundled()
        return DryRun(str(path), None, len(every), _infos(every), upgrade_script(every))
    found = read_status(path)
    if found.too_new:
        raise problems.DatabaseUnusable(found.too_new)
    return DryRun(
        str(path), found.version, found.newest, _infos(found.pending), upgrade_script(found.pending)
    )


def upgrade(path: Path) -> Upgraded:
    """Apply the pending migrations under the run lock (as `tpquiz run` does at start)."""
    from bot.infra.runlock import START_WAIT_SECONDS, hold_run_lock
    from bot.storage.sqlite.db import Database

    path = _on_disk(path)
    problem = run_problem(path)
    if problem:
        raise problems.DatabaseUnusable(problem)
    with hold_run_lock(path, wait=START_WAIT_SECONDS):
        before = read_status(path).version if path.exists() else 0

        async def migrate() -> int:
            db = await Database.open(path)
            try:
                return await db.schema_version()
            finally:
                await db.close()

        after = asyncio.run(migrate())
    applied = [m for m in bundled() if before < m.version <= after]
    return Upgraded(str(path), _infos(applied), after)


def restore(src: Path, db_path: Path) -> BackupResult:
    """Replace the file by the backup `src`, under the run lock (refused while a bot runs:
    RunLockHeld); BackupError says what is wrong with either file."""
    from bot.infra.runlock import hold_run_lock
    from bot.storage.sqlite.backup import check_restore_target, restore_database

    check_restore_target(db_path)
    with hold_run_lock(db_path, undo_on_error=True):
        return restore_database(src, db_path)


def refuse_migrating_under_a_bot(path: Path) -> None:
    """DatabaseUnusable when a bot runs on the file at an older schema: opening it to
    write would migrate it under that (older) bot. Other writes run beside the bot as
    ordinary transactions (bot/cli/privacy.py says why)."""
    from bot.infra.runlock import running_pid
    from bot.storage.sqlite.backup import file_schema_version
    from bot.storage.sqlite.db import migrations

    if running_pid(path) is not None and file_schema_version(path) < len(migrations()):
        raise problems.DatabaseUnusable(
            f"{path} is at an older schema and a bot is running on it: restart the bot "
            "(it applies the migrations), then run this again"
        )


def first_answers(path: Path, guild_id: int | None) -> tuple[list[MemberRow], dict[str, int]]:
    """The first answers as member rows and the open reports per question, on a read-only
    connection of its own (cheaper than opening the bot's storage; SQLite does the
    per-member pass, `bot.storage.sqlite.itemstats.member_rows`)."""
    from bot.storage.sqlite.itemstats import has_table, member_rows, open_readonly
    from bot.storage.sqlite.reports import open_counts

    require_file(path)
    conn = open_readonly(path)
    try:
        answers = member_rows(conn, guild_id)
        reports = open_counts(conn, guild_id) if has_table(conn, "reports") else {}
    finally:
        conn.close()
    return answers, reports


def list_reports(path: Path, guild_id: int | None, *, open_only: bool) -> list[Report]:
    """Members' problem reports, newest first, on a read-only connection of its own
    (none on a file whose schema predates them)."""
    from bot.storage.sqlite.itemstats import has_table, open_readonly
    from bot.storage.sqlite.reports import list_reports as listed

    require_file(path)
    conn = open_readonly(path)
    try:
        if not has_table(conn, "reports"):
            return []
        return listed(conn, guild_id, open_only=open_only)
    finally:
        conn.close()
