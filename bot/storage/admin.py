"""What the command line does to the database, whichever backend the settings name.

Why a port beside the factory: besides opening the stores (bot/storage/factory.py), the
command line needs facts and operations the storage contract does not offer: a
database's size, who runs on it, its pending migrations and their SQL (`tpquiz db
status`, `db upgrade [--dry-run]`), the copy of a SQLite file into PostgreSQL (`db
copy`), backup and restore, doctor's database lines, the checks a command makes before
it opens the database, and the item statistics' reads (SQLite keeps a read-only
connection of its own for them). Each is one call here taking the settings and returning
the neutral facts of bot/storage/admin_facts.py (or a store's own records), so the
command line imports no backend and never looks at TPQUIZ_DATABASE_URL itself.

This module and the factory are the only code that look at which backend the settings
name (`settings.database_url`); the work is done by the backends' own modules
(bot/storage/sqlite/admin.py, bot/storage/pg/admin.py, bot/storage/copy_verify.py,
the doctor checks in bot/storage/sqlite/doctor.py and bot/storage/pg/doctor.py), each
imported only when the settings name it. The calls that run a query start their own
event loop (`asyncio.run`): they are for the command line, not for the running bot.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.storage.admin_facts import CopyReport, DryRun, ServerTool, Status, Upgraded

if TYPE_CHECKING:
    from bot.infra.checks import Check
    from bot.infra.config import DatabaseUrl, Settings
    from bot.quiz.itemstats_fast import MemberRow
    from bot.storage.sqlite.backup import BackupResult
    from bot.storage.sqlite.reports import Report

__all__ = [
    "CopyReport",
    "DryRun",
    "ServerTool",
    "Status",
    "Upgraded",
    "backup",
    "backup_tool",
    "copy_to_postgres",
    "database_file",
    "doctor_checks",
    "dry_run",
    "first_answers",
    "list_reports",
    "read_problem",
    "refuse_migrating_under_a_bot",
    "require_database",
    "restore",
    "restore_tool",
    "run_problem",
    "status",
    "upgrade",
]


# -- before a command opens the database ----------------------------------------------


def run_problem(settings: Settings) -> str | None:
    """Why `tpquiz run` must not start on the database, or None: on SQLite the file's
    checks (`bot.storage.sqlite.preflight.run_problem`); a PostgreSQL server is judged
    when the bot connects to it."""
    if settings.database_url is not None:
        return None
    from bot.storage.sqlite.preflight import run_problem as file_problem

    return file_problem(settings.db_path)


def read_problem(settings: Settings) -> str | None:
    """Why a reading command (`leaderboard`) cannot read the database, or None. The SQLite
    file must exist, be tpquiz's and be at the newest schema (a read never creates or
    migrates it); PostgreSQL's schema is checked when it opens (`open_readonly`)."""
    if settings.database_url is not None:
        return None
    from bot.storage.sqlite.admin import read_problem as file_problem

    return file_problem(settings.db_path)


def require_database(settings: Settings) -> None:
    """ConfigError unless the database exists, for the commands that never create one:
    the SQLite file must be there; a PostgreSQL database is its server's to have."""
    if settings.database_url is not None:
        return
    from bot.storage.sqlite.admin import require_file

    require_file(settings.db_path)


def refuse_migrating_under_a_bot(settings: Settings) -> None:
    """DatabaseUnusable when opening the database to write would migrate it under a
    running older bot: a SQLite file at an older schema beside its run lock. On
    PostgreSQL a write migrates under the migration lock, as every starting bot does."""
    if settings.database_url is not None:
        return
    from bot.storage.sqlite.admin import refuse_migrating_under_a_bot as refuse

    refuse(settings.db_path)


def database_file(settings: Settings) -> Path | None:
    """The file the database lives in, which the health check watches; None when there
    is none: on PostgreSQL no file can be deleted under the bot, and the heartbeat's
    last database write (a commit to the server) is the database's check."""
    if settings.database_url is not None or str(settings.db_path) == ":memory:":
        return None
    return settings.db_path


# -- db status, db upgrade, db copy ----------------------------------------------------


def status(settings: Settings) -> Status:
    """Where the database is, its size, the bots on it, its schema and rows; read-only.
    DatabaseUnusable (one sentence) when it cannot be read; ConfigError for `:memory:`."""
    if settings.database_url is not None:
        from bot.storage.pg import admin as pg

        return pg.status(settings.database_url)
    from bot.storage.sqlite import admin as lite

    return lite.status(settings.db_path)


def dry_run(settings: Settings) -> DryRun:
    """The SQL `upgrade` would run, changing nothing; DatabaseUnusable as it would refuse."""
    if settings.database_url is not None:
        from bot.storage.pg import admin as pg

        return pg.dry_run(settings.database_url)
    from bot.storage.sqlite import admin as lite

    return lite.dry_run(settings.db_path)


def upgrade(settings: Settings) -> Upgraded:
    """Apply the pending migrations as `tpquiz run` does at start (on SQLite under the run
    lock: RunLockHeld while a bot runs)."""
    if settings.database_url is not None:
        from bot.storage.pg import admin as pg

        return pg.upgrade(settings.database_url)
    from bot.storage.sqlite import admin as lite

    return lite.upgrade(settings.db_path)


def copy_to_postgres(
    source: Path, target: DatabaseUrl, *, force: bool, emptying: Callable[[], None]
) -> CopyReport:
    """Copy the SQLite file `source` into the PostgreSQL database `target`, then compare
    rows and leaderboards (bot/storage/copy_verify.py); `emptying` is called before a
    forced copy deletes the target's rows."""
    from bot.storage.copy_verify import copy_verified

    return copy_verified(source, target, force=force, emptying=emptying)


# -- backup and restore ----------------------------------------------------------------


def backup_tool(settings: Settings, dest: Path | str) -> ServerTool | None:
    """On PostgreSQL, where `tpquiz backup` has no file to copy, the pg_dump command that
    backs the database up into `dest`; None on SQLite, which `backup` copies."""
    url = settings.database_url
    if url is None:
        return None
    from bot.storage.sqlite.backup import pg_dump_command

    return ServerTool(url.redacted, pg_dump_command(url, dest))


def restore_tool(settings: Settings, src: Path | str) -> ServerTool | None:
    """On PostgreSQL the pg_restore command that restores the dump `src`; None on SQLite,
    whose file `restore` replaces."""
    url = settings.database_url
    if url is None:
        return None
    from bot.storage.sqlite.backup import pg_restore_command

    return ServerTool(url.redacted, pg_restore_command(url, src))


def backup(
    settings: Settings, dest: Path | str, *, overwrite: bool, keep: int | None
) -> BackupResult:
    """Back the SQLite file up into `dest` (safe while the bot runs); BackupError or
    UnsafeTarget say why not. Only when `backup_tool` is None."""
    from bot.storage.sqlite.backup import backup_database

    return backup_database(settings.db_path, dest, overwrite=overwrite, keep=keep)


def restore(settings: Settings, src: Path) -> BackupResult:
    """Replace the SQLite file by the backup `src` (RunLockHeld while a bot runs,
    BackupError for a bad file). Only when `restore_tool` is None."""
    from bot.storage.sqlite.admin import restore as replace

    return replace(src, settings.db_path)


# -- doctor ----------------------------------------------------------------------------


async def doctor_checks(settings: Settings) -> list[Check]:
    """Doctor's database lines for the backend the bot would use: the SQLite file only
    when no PostgreSQL URL is set, as `open_storage` decides."""
    if settings.database_url is not None:
        from bot.storage.pg.doctor import check_postgres

        return await check_postgres(settings)
    from bot.storage.sqlite.doctor import check_database

    return await check_database(settings)


# -- the item statistics' reads --------------------------------------------------------


def first_answers(
    settings: Settings, guild_id: int | None
) -> tuple[list[MemberRow], dict[str, int]]:
    """Every first answer (of one server, or all) as member rows, and the open reports
    per question: on SQLite from a read-only connection of its own, on PostgreSQL
    through the stores opened without migrating (the server does the per-member pass)."""
    if settings.database_url is None:
        from bot.storage.sqlite.admin import first_answers as from_file

        return from_file(settings.db_path, guild_id)
    from bot.storage.factory import open_storage

    async def read() -> tuple[list[MemberRow], dict[str, int]]:
        storage = await open_storage(settings, readonly=True)
        try:
            answers = await storage.items.member_rows(guild_id)
            return answers, await storage.reports.open_counts(guild_id)
        finally:
            await storage.close()

    return asyncio.run(read())


def list_reports(settings: Settings, guild_id: int | None, *, open_only: bool) -> list[Report]:
    """Members' problem reports (of one server, or all), newest first: on SQLite from a
    read-only connection of its own, on PostgreSQL through the stores, not migrating."""
    if settings.database_url is None:
        from bot.storage.sqlite.admin import list_reports as from_file

        return from_file(settings.db_path, guild_id, open_only=open_only)
    from bot.storage.factory import open_storage

    async def read() -> list[Report]:
        storage = await open_storage(settings, readonly=True)
        try:
            return await storage.reports.find(guild_id, open_only=open_only)
        finally:
            await storage.close()

    return asyncio.run(read())
