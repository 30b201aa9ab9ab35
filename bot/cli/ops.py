"""Operations subcommands of `tpquiz`: backup, restore, doctor, health.

They are for the person running the bot on a small VPS, often from cron, a Docker
HEALTHCHECK or an SSH session at the end of a long day, so each prints plain lines, says
what to do when something is wrong, and exits 0 only on success (health: 0 healthy,
1 not, which is what Docker and systemd expect). Settings that cannot be read (a bad
value, a .env that is not UTF-8, a missing --env-file) are one line and exit 2, as for
`tpquiz run`; except for health, which exits 1 then too, because Docker reserves 2. Each takes `--env-file` so an admin can
point it at the service's environment file (e.g. /etc/tpquiz/tpquiz.env).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TextIO

from bot.infra.config import HEALTH_MAX_AGE_RANGE, ConfigError, Settings, parse_number
from bot.storage import admin
from bot.storage.admin import ServerTool
from bot.storage.problems import BackupError

__all__ = ["register", "cmd_backup", "cmd_restore", "cmd_doctor", "cmd_health"]

#: Most backups `--keep` may name; more is surely a typo (and 0 would keep none).
MAX_KEEP = 100_000


def _settings(args: argparse.Namespace) -> Settings:
    """Settings from the environment and ./.env, or from the file --env-file names."""
    if args.env_file is None:
        return Settings.from_env()
    return Settings.from_env(env_file=Path(args.env_file), env_file_required=True)


def _max_age(text: str) -> float:
    try:
        return parse_number(text, "a number of seconds", *HEALTH_MAX_AGE_RANGE)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _keep(text: str) -> int:
    try:
        return int(parse_number(text, "a whole number of backups", 1, MAX_KEEP, integer=True))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _fail(err: TextIO, command: str, message: str, status: int = 1) -> int:
    err.write(f"tpquiz {command}: {message}\n")
    return status


def _kib(size: int) -> str:
    return f"{size / 1024:.0f} KiB" if size < 10 * 1024 * 1024 else f"{size / 2**20:.1f} MiB"


def cmd_backup(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Online backup of the live database (safe while the bot runs)."""
    from bot.infra.files import UnsafeTarget

    try:
        settings = _settings(args)
    except ConfigError as exc:
        return _fail(err, "backup", str(exc), 2)
    dump = admin.backup_tool(settings, args.dest)
    if dump is not None:
        return _server_backup(dump, out, err)
    try:
        result = admin.backup(settings, args.dest, overwrite=args.force, keep=args.keep)
    except (BackupError, UnsafeTarget) as exc:
        return _fail(err, "backup", str(exc))
    except OSError as exc:
        return _fail(err, "backup", f"{exc.filename or args.dest}: {exc.strerror}")
    out.write(
        f"backup: wrote {result.path} ({_kib(result.size)}, schema {result.schema_version}, "
        f"{result.answers} answers, integrity ok)\n"
    )
    for old in result.pruned:
        out.write(f"backup: removed old backup {old}\n")
    return 0


def _server_backup(dump: ServerTool, out: TextIO, err: TextIO) -> int:
    """On PostgreSQL there is no file to copy: say so, and print the pg_dump command.

    Exit 1, as nothing was backed up: a cron job calling `tpquiz backup` is told."""
    out.write(f"{dump.command}\n")
    return _fail(
        err,
        "backup",
        f"TPQUIZ_DATABASE_URL is set ({dump.where}): the data is in"
        " PostgreSQL, and tpquiz backup copies only SQLite files, so nothing was written;"
        " back it up with pg_dump (the command above; set PGPASSWORD or use ~/.pgpass),"
        " and restore with pg_restore",
    )


def cmd_restore(
    args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    """Replace the database by a backup; refused while the bot runs."""
    from bot.infra.runlock import RunLockHeld

    try:
        settings = _settings(args)
    except ConfigError as exc:
        return _fail(err, "restore", str(exc), 2)
    tool = admin.restore_tool(settings, args.src)
    if tool is not None:
        return _fail(
            err,
            "restore",
            f"TPQUIZ_DATABASE_URL is set ({tool.where}): tpquiz restore"
            f" replaces only SQLite files, so nothing was changed; stop the bots and restore"
            f" the pg_dump with pg_restore (a plain .sql dump with psql): {tool.command}",
            2,
        )
    try:
        result = admin.restore(settings, Path(args.src))
    except RunLockHeld as exc:
        return _fail(
            err,
            "restore",
            f"refused: {exc}. Stop the bot first (systemctl stop tpquiz, or docker compose "
            "stop tpquiz), then restore, then start it again",
        )
    except BackupError as exc:
        return _fail(err, "restore", str(exc))
    except OSError as exc:
        return _fail(err, "restore", f"{exc.filename or args.src}: {exc.strerror}")
    kept = f"; the previous database is kept at {result.previous}" if result.previous else ""
    out.write(
        f"restore: {args.src} is now {result.path} (schema {result.schema_version}, "
        f"{result.answers} answers){kept}\n"
    )
    return 0


def cmd_doctor(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Check token, database, bank and Discord; print one line per check.

    The first line names the build, so a pasted doctor output says which tpquiz it is."""
    from bot.cli.doctor import Check, run_doctor
    from bot.infra.version import build_line

    out.write(f"doctor: {build_line()}\n")
    try:
        settings = _settings(args)
    except ConfigError as exc:
        out.write(f"{Check('FAIL', 'settings', str(exc))}\n")
        return 2
    results = asyncio.run(run_doctor(settings, offline=args.offline))
    for check in results:
        out.write(f"{check}\n")
    failed = sum(c.failed for c in results)
    if failed:
        out.write(f"doctor: {failed} problem(s) found; fix the FAIL lines above\n")
        return 1
    out.write(f"doctor: all {len(results)} checks passed\n")
    return 0


def cmd_health(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Judge the running bot by its heartbeat file: 0 healthy, 1 not (Docker's convention)."""
    from bot.ops.health import check_heartbeat, heartbeat_path_for

    try:
        settings = _settings(args)
    except ConfigError as exc:
        out.write(f"unhealthy: settings: {exc}\n")
        return 1
    max_age = args.max_age if args.max_age is not None else settings.health_max_age
    path = heartbeat_path_for(settings.db_path, settings.heartbeat_path)
    # The database's file, when it is one, must still be there (`admin.database_file`).
    verdict = check_heartbeat(path, max_age, db_path=admin.database_file(settings))
    out.write(f"{verdict.line}\n")
    return 0 if verdict.healthy else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add backup, restore, doctor and health to the `tpquiz` command."""

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, help=help_text, description=help_text)
        parser.add_argument(
            "--env-file",
            metavar="PATH",
            help="read settings from this file, which must exist (default: ./.env if "
            "present; the environment wins)",
        )
        return parser

    backup = add("backup", "copy the live database consistently (safe while the bot runs)")
    backup.add_argument(
        "dest", help="backup file, or a directory for tpquiz-<UTC time>.sqlite3 files"
    )
    backup.add_argument("--force", action="store_true", help="replace an existing file")
    backup.add_argument(
        "--keep",
        type=_keep,
        metavar="N",
        help="with a directory DEST: keep only the newest N backups there",
    )
    backup.set_defaults(func=cmd_backup)

    restore = add("restore", "replace the database by a backup (the bot must be stopped)")
    restore.add_argument("src", help="a file made by tpquiz backup")
    restore.set_defaults(func=cmd_restore)

    doctor = add("doctor", "check token, database, question bank and Discord; say what to fix")
    doctor.add_argument("--offline", action="store_true", help="skip the checks that call Discord")
    doctor.set_defaults(func=cmd_doctor)

    health = add("health", "is the running bot healthy? (exit 0 yes, 1 no; for HEALTHCHECK)")
    health.add_argument(
        "--max-age",
        type=_max_age,
        metavar="SECONDS",
        help="gateway silence / heartbeat age limit (default: TPQUIZ_HEALTH_MAX_AGE or 120)",
    )
    health.set_defaults(func=cmd_health)
