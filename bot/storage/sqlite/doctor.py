"""`tpquiz doctor`'s database check on SQLite: the file opens, migrates, accepts a write.

Why in storage: the check opens the file as the bot does and reads the run lock beside it,
which only this backend knows; the command line reaches it through
`bot.storage.admin.doctor_checks` and prints its lines (`bot.infra.checks.Check`) among
the token, bank and Discord checks of bot/cli/doctor.py.

The sentences are the ones `tpquiz run` and `leaderboard` print (`bot.storage.problems`).
A missing database is not created: doctor only says that `tpquiz run` will create it. A
bot that is running an older tpquiz on the same file is not migrated under its feet:
doctor then only reports that a restart will apply the new migrations.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bot.infra.checks import Check
from bot.infra.runlock import running_pid

if TYPE_CHECKING:
    from bot.infra.config import Settings
    from bot.storage.records import PendingRemoval

__all__ = ["check_database"]

#: Below this much free space next to the database, SQLite writes may soon fail.
MIN_FREE_BYTES = 100 * 1024 * 1024


async def check_database(settings: Settings) -> list[Check]:
    """Check the database file, then open (and so migrate) it and commit one row."""
    from bot.storage import problems
    from bot.storage.sqlite import Storage
    from bot.storage.sqlite.backup import file_schema_version
    from bot.storage.sqlite.db import migrations
    from bot.storage.sqlite.preflight import run_problem

    path = settings.db_path
    newest = len(migrations())
    pid = None if str(path) == ":memory:" else running_pid(path)
    running = [] if pid is None else [Check("ok", "bot", _running(pid))]
    if pid is not None and not path.exists():
        return [Check("FAIL", "database", problems.file_lost(path, "deleted")), *running]
    problem = run_problem(path)
    if problem:
        return [Check("FAIL", "database", problem), *running]
    if not path.exists():
        return [Check("ok", "database", f"no database at {path} yet: tpquiz run creates it there")]
    version = file_schema_version(path)
    if pid is not None and version < newest:
        return [
            Check(
                "warn",
                "database",
                f"{path} is at schema {version}, this tpquiz has {newest}; the running "
                "bot is an older version: restart it to apply the migrations (back up "
                "first); not migrating under it",
            ),
            *running,
        ]
    try:
        storage = await Storage.open(path)
    except problems.DatabaseUnusable as exc:
        return [Check("FAIL", "database", str(exc)), *running]
    try:
        version = await storage.db.schema_version()
        await storage.meta.set("doctor:checked_at", datetime.now(UTC).isoformat())
        pending = await storage.privacy.pending_removals()
    except Exception as exc:
        return [
            Check(
                "FAIL",
                "database",
                f"{path} opens but refuses writes ({exc}): check the file's owner and "
                "permissions, the free disk space, and that no other program locks it",
            )
        ]
    finally:
        await storage.close()
    results = [
        Check("ok", "database", f"{path} opens, is at schema {version}/{newest}, accepts writes"),
        *_retention(pending),
    ]
    free = shutil.disk_usage(path.parent).free
    if free < MIN_FREE_BYTES:
        results.append(
            Check(
                "warn",
                "disk",
                f"only {free // (1024 * 1024)} MiB free next to {path}: free some space "
                "before SQLite runs out of room",
            )
        )
    return results + running


#: Pending server deletions listed one by one; more are counted.
MAX_PENDING_LINES = 5


def _retention(pending: Sequence[PendingRemoval]) -> list[Check]:
    """The servers that removed the bot and whose data is still to be deleted."""
    if not pending:
        return [Check("ok", "retention", "no server's data is pending deletion")]

    def day(ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")

    lines = [
        Check(
            "ok",
            "retention",
            f"server {p.guild_id} removed the bot on {day(p.removed_at)}: its data will be"
            f" deleted on {day(p.due_at)} (tpquiz forget-guild --guild {p.guild_id} does it now)",
        )
        for p in pending[:MAX_PENDING_LINES]
    ]
    if len(pending) > MAX_PENDING_LINES:
        more = len(pending) - MAX_PENDING_LINES
        lines.append(Check("ok", "retention", f"... and {more} more servers pending deletion"))
    return lines


def _running(pid: int) -> str:
    who = f"pid {pid}" if pid else "another process"
    return f"tpquiz is running on this database ({who})"
