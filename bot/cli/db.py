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

With TPQUIZ_DATABASE_URL set, `status` and `upgrade` work on that PostgreSQL database,
with the same lines where the facts are the same. The commands reach either database
through `bot.storage.admin` (bot/storage/sqlite/admin.py, bot/storage/pg/admin.py say what
each backend does), which answers with the same facts on both; the lines are written in
bot/cli/db_lines.py.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from bot.cli.db_copy_target import add_target_options, copy_target
from bot.cli.db_lines import write_copy, write_dry_run, write_status, write_upgraded
from bot.infra.config import ConfigError, Settings
from bot.storage import admin, problems

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
    """Print where, size, schema, pending migrations and rows per table; change nothing."""

    def work() -> int:
        status = admin.status(_settings(args))
        write_status(status, out)
        if status.too_new:
            err.write(f"tpquiz db status: {status.too_new}\n")
            return 1
        return 0

    return _guarded("status", err, work)


def cmd_upgrade(
    args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    """Print (--dry-run) or apply the pending migrations."""

    def work() -> int:
        settings = _settings(args)
        if args.dry_run:
            write_dry_run(admin.dry_run(settings), out)
        else:
            write_upgraded(admin.upgrade(settings), out)
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


def cmd_copy(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Copy the SQLite file into PostgreSQL, then verify counts and leaderboards."""

    def work() -> int:
        path = _copy_source(args)
        url = copy_target(args, lambda: _settings(args), err)

        def emptying() -> None:
            err.write(f"db copy: --force: deleting every row of {url.redacted}\n")

        report = admin.copy_to_postgres(path, url, force=args.force, emptying=emptying)
        return write_copy(report, str(path), url.redacted, out, err)

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
