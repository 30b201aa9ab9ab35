"""`tpquiz forget-user`, `export-user` and `forget-guild`: a member's request by mail.

A member who cannot use `/tpquiz forget-me` or `/tpquiz my-data` (they left the server,
or the bot did) writes to the operator, who runs these (docs/privacy.md). They do what
the slash commands do, through the same steps (bot/storage/sqlite/members.py).

They work beside a running bot, as `tpquiz doctor`'s write does: unlike `restore` and
`db upgrade`, which refuse while the bot holds the run lock because they swap the file
or change its schema under the bot's open connection, these are ordinary transactions.
SQLite (WAL, BEGIN IMMEDIATE, a 30 s busy timeout) serialises them with the bot's
writes, and the bot caches no member data that could disagree afterwards. The one
exception is a file at an older schema while a bot runs: opening it to write would
migrate it under the running (older) bot, so that is refused, as doctor does.

`export-user` only reads (the file is opened read-only). Exit status: 0 done, 1 the
database cannot be used, 2 a setting or argument is wrong.

With TPQUIZ_DATABASE_URL set they work on that PostgreSQL database instead (issue 15),
through `open_storage` and the same privacy store contract (the checks before opening
through `bot.storage.admin`), so they print the same lines
(tests/test_cli_pg.py). There the bots and these commands are ordinary transactions on
one server; a write opens the database as `tpquiz run` does (migrating under the
migration lock), an export reads it without migrating and refuses an older schema.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TextIO, TypeVar

from bot.cli.guard import guarded
from bot.infra.config import Settings
from bot.storage import admin
from bot.ui.custom_ids import guild_id_arg, number

__all__ = ["register"]

T = TypeVar("T")


def user_id_arg(text: str) -> int:
    """argparse type of `--user`: a Discord id, or a usage error."""
    value = number(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a user id (a number of up to 19 digits, e.g. 123456789012345678)"
        )
    return value


def _settings(args: argparse.Namespace) -> Settings:
    """The settings, with the database checked to exist (these commands never create one:
    the SQLite file must be there, `admin.require_database`)."""
    if args.env_file is None:
        settings = Settings.from_env()
    else:
        settings = Settings.from_env(env_file=Path(args.env_file), env_file_required=True)
    admin.require_database(settings)
    return settings


def _with_storage(settings: Settings, work: Callable[[Any], Awaitable[T]], *, write: bool) -> T:
    """Open the database the settings name (read-only unless `write`), run `work(storage)`,
    close it. A write is refused where opening would migrate under a running older bot
    (`admin.refuse_migrating_under_a_bot`); on PostgreSQL a write opens the database as
    `tpquiz run` does (migrating, under the migration lock); an export reads it unmigrated."""
    from bot.storage.factory import open_readonly, open_storage

    if write:
        admin.refuse_migrating_under_a_bot(settings)

    async def run() -> T:
        storage = await (open_storage(settings) if write else open_readonly(settings))
        try:
            return await work(storage)
        finally:
            await storage.close()

    return asyncio.run(run())


def _guilds(storage: Any, args: argparse.Namespace) -> Awaitable[list[int]]:
    async def found() -> list[int]:
        if args.guild is not None:
            return [args.guild]
        guilds: list[int] = await storage.privacy.member_guilds(args.user)
        return guilds

    return found()


def cmd_forget_user(
    args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    """Delete everything about a member, in one server or in all."""

    def work() -> int:
        async def forget(storage: Any) -> list[tuple[int, dict[str, int]]]:
            return [
                (guild, await storage.privacy.forget_member(guild, args.user))
                for guild in await _guilds(storage, args)
            ]

        done = _with_storage(_settings(args), forget, write=True)
        if not any(sum(counts.values()) for _, counts in done):
            where = f"server {args.guild}" if args.guild is not None else "any server"
            out.write(f"forget-user: nothing stored about user {args.user} in {where}\n")
        for guild, counts in done:
            rows = ", ".join(f"{table} {n}" for table, n in counts.items() if n)
            out.write(f"forget-user: user {args.user} in server {guild}: deleted {rows}\n")
        return 0

    return guarded("forget-user", err, work)


def cmd_export_user(
    args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    """Print (or write to -o) everything stored about a member as JSON."""

    def work() -> int:
        async def export(storage: Any) -> list[dict[str, Any]]:
            return [
                await storage.privacy.export_member(guild, args.user)
                for guild in await _guilds(storage, args)
            ]

        exports = _with_storage(_settings(args), export, write=False)
        document: Any = exports[0] if args.guild is not None else {"servers": exports}
        text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        if args.output:
            from bot.infra.files import write_atomic_text

            write_atomic_text(Path(args.output), text, mode=0o600)
            err.write(f"export-user: wrote {args.output}\n")
        else:
            out.write(text)
        return 0

    return guarded("export-user", err, work)


def cmd_forget_guild(
    args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    """Delete everything about a server and its members now."""

    def work() -> int:
        async def forget(storage: Any) -> dict[str, int]:
            counts: dict[str, int] = await storage.privacy.forget_guild(args.guild)
            return counts

        counts = _with_storage(_settings(args), forget, write=True)
        rows = ", ".join(f"{table} {n}" for table, n in counts.items() if n) or "nothing stored"
        out.write(f"forget-guild: server {args.guild}: deleted {rows}\n")
        return 0

    return guarded("forget-guild", err, work)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add forget-user, export-user and forget-guild to the `tpquiz` command."""

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, help=help_text, description=help_text)
        parser.add_argument(
            "--env-file", metavar="PATH", help="read settings from this file (as for doctor)"
        )
        return parser

    for name, help_text, func in (
        (
            "forget-user",
            "delete everything stored about a member (one server, or all with no --guild)",
            cmd_forget_user,
        ),
        (
            "export-user",
            "print everything stored about a member as JSON (read-only)",
            cmd_export_user,
        ),
    ):
        parser = add(name, help_text)
        parser.add_argument("--user", type=user_id_arg, required=True, help="the member's id")
        parser.add_argument("--guild", type=guild_id_arg, help="only this server (guild) id")
        if name == "export-user":
            parser.add_argument("-o", "--output", metavar="FILE", help="write the JSON here")
        parser.set_defaults(func=func)
    guild = add("forget-guild", "delete everything stored about a server and its members now")
    guild.add_argument("--guild", type=guild_id_arg, required=True, help="the server (guild) id")
    guild.set_defaults(func=cmd_forget_guild)
