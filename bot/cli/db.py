"""`tpquiz db status`, `tpquiz db upgrade [--dry-run]` and `tpquiz db copy`: the database by hand.

The bot migrates its database when it starts, so neither command is needed to run it.
They are for the operator who wants to know before an upgrade what it will do (status:
which migrations are pending; --dry-run: the SQL itself, each migration with what it
changes and why), or to migrate at a chosen moment, e.g. right after `tpquiz backup`.

`status` and `--dry-run` never change the file, never create it, and are safe beside a
running bot. `upgrade` takes the run lock as `tpquiz run` does, so it never migrates
under a running bot, and refuses the same files `tpquiz run` refuses (a schema newer than
this tpquiz, a file that is not tpquiz's, a database deleted beside an earlier run's
lock) with the same sentences (bot.storage.problems). Exit status: 0 done, 1 the database
cannot be used or upgraded, 2 a setting is wrong, as in bot/cli/ops.py.

`copy --from sqlite:///path --to-file PATH` (or --to-env VAR, or --to URL: see
bot/cli/db_copy_target.py for why not the last) moves a SQLite database into PostgreSQL
(issue 15, bot/storage/copy.py) and then checks the copy rather than trusting it: the
rows of every table are counted on both sides and every server's leaderboards (all time,
this week, this month) are read from both and compared, so an operator switching
TPQUIZ_DATABASE_URL on knows the members see what they saw. It holds the file's run lock
(the bot must be stopped: what it wrote after the copy would be lost) and refuses a
target that holds rows unless --force, which empties that tpquiz database first. Last it
runs VACUUM (ANALYZE) on the target, so the planner has statistics and index-only scans a
visibility map for the first leaderboards after the switch (docs/performance.md, 8).

With TPQUIZ_DATABASE_URL set, `status` and `upgrade` work on that PostgreSQL database
(bot/cli/db_pg.py), with the same lines where the facts are the same.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.cli.db_copy_target import add_target_options, copy_target
from bot.cli.db_lines import human_size, write_schema
from bot.infra.config import ConfigError, DatabaseUrl, Settings
from bot.storage import problems

if TYPE_CHECKING:
    from bot.storage.pg.db import PgDatabase

__all__ = ["cmd_copy", "cmd_status", "cmd_upgrade", "register"]


def _settings(args: argparse.Namespace) -> Settings:
    if args.env_file is None:
        return Settings.from_env()
    return Settings.from_env(env_file=Path(args.env_file), env_file_required=True)


def _db_path(args: argparse.Namespace) -> Path:
    path = _settings(args).db_path
    if str(path) == ":memory:":
        raise ConfigError(problems.in_memory())
    return path


def _guarded(command: str, err: TextIO, work: Callable[[], int]) -> int:
    """Run `work`; its refusals become one line on `err` and the exit status."""
    from bot.infra.runlock import RunLockHeld

    try:
        return work()
    except ConfigError as exc:
        err.write(f"tpquiz db {command}: {exc}\n")
        return 2
    except RunLockHeld as exc:
        err.write(f"tpquiz db {command}: {exc.refusal}\n")
        return 1
    except problems.DatabaseUnusable as exc:
        err.write(f"tpquiz db {command}: {exc}\n")
        return 1


def cmd_status(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Print file, size, schema, pending migrations and rows per table; change nothing."""

    def work() -> int:
        url = _settings(args).database_url
        if url is not None:  # PostgreSQL (issue 15): bot/cli/db_pg.py
            from bot.cli.db_pg import pg_status

            return pg_status(url, out)
        return _print_status(_db_path(args), out, err)

    return _guarded("status", err, work)


def _print_status(path: Path, out: TextIO, err: TextIO) -> int:
    from bot.storage.sqlite.schema import read_status

    status = read_status(path)
    wal = f" (+ {human_size(status.wal_size)} in {status.path.name}-wal)" if status.wal_size else ""
    running = {None: "no", 0: "yes"}.get(status.running, f"yes (pid {status.running})")
    out.write(f"file: {status.path.absolute()}\n")
    out.write(f"size: {human_size(status.size)}{wal}\n")
    out.write(f"bot running on it: {running}\n")
    write_schema(status, out)
    if status.too_new:
        err.write(f"tpquiz db status: {status.too_new}\n")
        return 1
    return 0


def _dry_run(path: Path, out: TextIO) -> None:
    """Print the SQL an upgrade would run; raise DatabaseUnusable as `upgrade` would."""
    from bot.storage.migration_files import bundled
    from bot.storage.sqlite.preflight import run_problem
    from bot.storage.sqlite.schema import read_status, upgrade_script

    if not path.exists():
        problem = run_problem(path)  # a database deleted beside a lock, a closed directory
        if problem:
            raise problems.DatabaseUnusable(problem)
        out.write(f"-- no database at {path} yet: tpquiz db upgrade would create it\n\n")
        out.write(upgrade_script(bundled()))
        return
    status = read_status(path)
    if status.too_new:
        raise problems.DatabaseUnusable(status.too_new)
    if not status.pending:
        out.write(f"-- {path} is at schema {status.version}, the newest: nothing to run\n")
        return
    out.write(f"-- {path}: schema {status.version} -> {status.newest}\n\n")
    out.write(upgrade_script(status.pending))


def _upgrade(path: Path, out: TextIO) -> None:
    """Apply the pending migrations under the run lock (as `tpquiz run` does at start)."""
    from bot.infra.runlock import START_WAIT_SECONDS, hold_run_lock
    from bot.storage.migration_files import bundled
    from bot.storage.sqlite.db import Database
    from bot.storage.sqlite.preflight import run_problem
    from bot.storage.sqlite.schema import read_status

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
    for m in applied:
        out.write(f"db upgrade: applied {m.name} (schema {m.version}): {m.title}\n")
    if not applied:
        out.write(f"db upgrade: {path} is at schema {after}, the newest: nothing to do\n")
    else:
        out.write(f"db upgrade: {path} is now at schema {after}\n")


def cmd_upgrade(
    args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    """Print (--dry-run) or apply the pending migrations."""

    def work() -> int:
        url = _settings(args).database_url
        if url is not None:  # PostgreSQL (issue 15): bot/cli/db_pg.py
            from bot.cli.db_pg import pg_dry_run, pg_upgrade

            (pg_dry_run if args.dry_run else pg_upgrade)(url, out)
            return 0
        (_dry_run if args.dry_run else _upgrade)(_db_path(args), out)
        return 0

    return _guarded("upgrade", err, work)


def _copy_source(args: argparse.Namespace) -> Path:
    """--from sqlite:///path (the path after sqlite://), else the TPQUIZ_DB setting."""
    text = args.source
    if text is None:
        return _db_path(args)
    if not text.startswith("sqlite://") or len(text) <= len("sqlite://"):
        raise ConfigError(
            f"--from must be a SQLite file as sqlite:///path/to/quiz.sqlite3, not {text!r}"
        )
    return Path(text[len("sqlite://") :])


async def _leaderboards(path: Path, db: PgDatabase) -> tuple[int, list[str]]:
    """(servers compared, the leaderboards that differ) between the file and the copy."""
    from datetime import UTC, datetime

    from bot.quiz.periods import period_start
    from bot.storage.copy import source_guilds
    from bot.storage.pg.standings import PgStandings
    from bot.storage.sqlite import Storage

    now = datetime.now(UTC)
    periods: list[tuple[str, int | None]] = [("all time", None)]
    for period in ("week", "month"):
        start = period_start(period, now)
        assert start is not None
        periods.append((f"this {period}", int(start.timestamp() * 1000)))
    guilds = source_guilds(path)
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


async def _copy(path: Path, url: DatabaseUrl, *, force: bool, out: TextIO, err: TextIO) -> int:
    from bot.storage.copy import copy_from_sqlite, empty_target, held_rows, vacuum_analyze
    from bot.storage.pg.db import PgDatabase
    from bot.storage.sqlite.schema import read_status

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
        held = await held_rows(db)
        if held and not force:
            shown = ", ".join(f"{t} {n}" for t, n in list(held.items())[:4])
            raise problems.DatabaseUnusable(
                f"{url.redacted} already holds rows ({shown}): copy into an empty database,"
                " or pass --force to delete everything in it first"
            )
        if held:
            err.write(f"db copy: --force: deleting every row of {url.redacted}\n")
            await empty_target(db)
        copied = await copy_from_sqlite(path, db)
        await vacuum_analyze(db)  # statistics and visibility map for the first reads
        written = await held_rows(db)
        servers, differ = await _leaderboards(path, db)
    finally:
        await db.close()
    source = read_status(path).rows
    out.write(f"db copy: {path} -> {url.redacted}\n")
    width = max(len(t) for t in source)
    out.write(f"  {'table':<{width}}  {'sqlite':>10}  {'postgresql':>10}\n")
    bad = 0
    for table, count in source.items():
        there = written.get(table, 0)
        mark = "" if there == count == copied.get(table, count) else "  DIFFERENT"
        bad += bool(mark)
        out.write(f"  {table:<{width}}  {count:>10}  {there:>10}{mark}\n")
    for name in differ:
        out.write(f"leaderboard differs: {name}\n")
    out.write(
        f"leaderboards: {servers} servers compared (all time, this week, this month):"
        f" {'identical' if not differ else f'{len(differ)} differ'}\n"
    )
    if bad or differ:
        err.write(
            f"tpquiz db copy: the copy differs from {path} ({bad} tables, {len(differ)}"
            " leaderboards): do not switch to it; run it again with --force\n"
        )
        return 1
    out.write(f"db copy: {sum(source.values())} rows copied and verified\n")
    out.write(
        "db copy: ran VACUUM (ANALYZE) on the target: the planner has statistics for the"
        " leaderboard queries at once\n"
    )
    return 0


def cmd_copy(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Copy the SQLite file into PostgreSQL, then verify counts and leaderboards."""
    from bot.infra.runlock import hold_run_lock

    def work() -> int:
        path = _copy_source(args)
        url = copy_target(args, lambda: _settings(args), err)
        with hold_run_lock(path, wait=0):
            return asyncio.run(_copy(path, url, force=args.force, out=out, err=err))

    return _guarded("copy", err, work)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `db status` and `db upgrade` to the `tpquiz` command."""
    db = sub.add_parser("db", help="the database: status, upgrade, copy to PostgreSQL")
    commands = db.add_subparsers(dest="db_command", required=True)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = commands.add_parser(name, help=help_text, description=help_text)
        parser.add_argument(
            "--env-file", metavar="PATH", help="read settings from this file (as for doctor)"
        )
        return parser

    status = add(
        "status", "file, size, schema version, pending migrations, rows per table (read-only)"
    )
    status.set_defaults(func=cmd_status)
    upgrade = add("upgrade", "apply pending migrations (the bot must be stopped)")
    upgrade.add_argument(
        "--dry-run",
        action="store_true",
        help="print the SQL each pending migration would run; change nothing",
    )
    upgrade.set_defaults(func=cmd_upgrade)
    copy = add(
        "copy",
        "copy the SQLite database into an empty PostgreSQL one, then verify row counts"
        " and leaderboards (the bot must be stopped)",
    )
    copy.add_argument(
        "--from",
        dest="source",
        metavar="sqlite:///PATH",
        help="the SQLite file (default: TPQUIZ_DB)",
    )
    add_target_options(copy)
    copy.add_argument(
        "--force",
        action="store_true",
        help="delete everything in the target first if it holds rows",
    )
    copy.set_defaults(func=cmd_copy)
