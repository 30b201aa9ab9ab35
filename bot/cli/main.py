"""The `tpquiz` command: run the bot, check a question bank, print standings."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import discord
import yarl

from bot.bank.loader import BankError, load_bank
from bot.bank.template_files import TemplateSet, load_templates
from bot.cli import (
    bank as bank_commands,
)
from bot.cli import (
    db as db_commands,
)
from bot.cli import (
    ops as ops_commands,
)
from bot.cli import (
    privacy as privacy_commands,
)
from bot.cli import (
    stats as stats_commands,
)
from bot.cli.guard import closed_pipe
from bot.infra.config import ConfigError, Settings
from bot.infra.exit_codes import StartupError
from bot.infra.runlock import RunLockHeld, RunLockUnusable
from bot.infra.shard_lock import ShardHeld
from bot.infra.version import build_line, tpquiz_version
from bot.ops.health import HeartbeatUnwritable, heartbeat_path_for, heartbeat_problem
from bot.quiz.model import Bank
from bot.quiz.periods import PERIODS, period_start
from bot.storage import admin
from bot.storage.problems import DatabaseUnusable
from bot.ui.custom_ids import guild_id_arg

if TYPE_CHECKING:
    from bot.storage.contract import StorageContract

log = logging.getLogger("tpquiz")


def apply_endpoints(settings: Settings) -> None:
    """Point discord.py at a REST or gateway proxy (or the loopback Discord in tests)."""
    if settings.api_base:
        discord.http.Route.BASE = settings.api_base.rstrip("/")
    if settings.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when it is installed (`pip install uvloop`), else None
    (asyncio's own): discord.py runs on either. Not in tpquiz[fast]: on the answer path it
    changed nothing measurable (docs/performance.md 1); an operator may still install it."""
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


async def run_bot(settings: Settings, token: str, bank: Bank, templates: TemplateSet) -> None:
    """Run the bot on the bank and templates `cmd_run` already loaded and checked.

    They are passed in rather than loaded here so that the bank is read and checked once
    (the near-duplicate check on a large bank is the slow part of start-up).
    """
    from bot.infra.logs import setup_logging

    setup_logging(settings.log_level, settings.log_format, secrets=[token])
    log.info("starting %s", build_line())  # first, so a bug report's log names the build
    log.info("question bank: %d questions, %d templates", len(bank), len(templates))
    log.info("event loop: %s", type(asyncio.get_running_loop()).__module__)
    apply_endpoints(settings)
    heartbeat = heartbeat_path_for(settings.db_path, settings.heartbeat_path)
    await _run_on_storage(settings, token, bank, templates, heartbeat)


async def _run_on_storage(
    settings: Settings, token: str, bank: Bank, templates: TemplateSet, heartbeat: Path | None
) -> None:
    """Hold the storage as `tpquiz run` does, serve, give it back.

    `open_for_run` (bot/storage/factory.py) keeps a second process out: on SQLite the
    file's run lock (which also tells `tpquiz restore` that a bot runs); on PostgreSQL
    (TPQUIZ_DATABASE_URL) the lock of each shard this process runs
    (bot/infra/shard_lock.py), claimed before it migrates or connects to Discord, watched
    while it runs (lost to another process, the bot stops) and given back when it stops.
    """
    from bot.ops.health import probe_heartbeat
    from bot.storage.factory import open_for_run

    async with open_for_run(settings) as running:
        try:
            # After the lock: a second `run`, refused above, must not touch the heartbeat.
            probe_heartbeat(heartbeat)
        except BaseException:
            await running.storage.close()
            raise
        await _serve(settings, token, bank, templates, running.storage, stop_on=running.stopped)


async def _serve(
    settings: Settings,
    token: str,
    bank: Bank,
    templates: TemplateSet,
    storage: StorageContract,
    *,
    stop_on: asyncio.Future[None] | None = None,
) -> None:
    """Serve Discord on the opened storage until stopped; close the storage after.

    `stop_on` ending (the shard locks' watch failing) closes the bot as SIGTERM does."""
    from bot.ops.loop_stalls import watch_stalls
    from bot.ops.metrics import Metrics, serve_metrics
    from bot.runtime.compose import build_bot
    from bot.runtime.startup import start

    metrics = Metrics()
    try:
        async with (
            watch_stalls(settings.loop_stall_ms),
            serve_metrics(metrics, settings.metrics_host, settings.metrics_port),
            build_bot(
                settings,
                storage,
                bank,
                templates,
                metrics=metrics,
            ) as bot,
        ):
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, lambda: asyncio.ensure_future(bot.close()))
            if stop_on is not None:
                stop_on.add_done_callback(
                    lambda done: done.cancelled() or asyncio.ensure_future(bot.close())
                )
            await start(bot, token)
    finally:
        await storage.close()
        log.info("stopped")


def _fail(message: str) -> int:
    print(f"tpquiz: {message}", file=sys.stderr)
    return 2


def cmd_run(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env()
        token = settings.require_token()
        heartbeat = heartbeat_path_for(settings.db_path, settings.heartbeat_path)
        # The database's own checks first (a SQLite file's; none for a server), then the
        # heartbeat's place.
        problem = admin.run_problem(settings) or heartbeat_problem(heartbeat)
        if problem:
            raise ConfigError(problem)
        # Refuse to start on a broken bank or template; loaded once, here.
        bank = load_bank(settings.question_paths or None)
        templates = load_templates(settings.question_paths or (), bank)
    except ConfigError as exc:
        print(f"tpquiz: {exc}", file=sys.stderr)
        return 2
    except BankError as exc:
        print(
            f"tpquiz: the question bank is invalid; fix these and start again:\n{exc}",
            file=sys.stderr,
        )
        return 1
    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(run_bot(settings, token, bank, templates))
    except discord.LoginFailure:
        print(
            "tpquiz: Discord rejected the token (401): reset it in the Developer Portal and update DISCORD_TOKEN",
            file=sys.stderr,
        )
        return 2
    except (
        StartupError
    ) as exc:  # Discord unreachable, the metrics port taken (bot.infra.exit_codes)
        print(f"tpquiz: {exc}", file=sys.stderr)
        return exc.exit_status
    except (RunLockHeld, RunLockUnusable, ShardHeld) as exc:
        return _fail(exc.refusal)
    except (DatabaseUnusable, HeartbeatUnwritable) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        pass
    return 0


async def _standings(settings: Settings, guild_id: int, period: str) -> list[dict[str, object]]:
    """The full standings, read through the contract from whichever backend the settings
    name (read-only: SQLite opened read-only, PostgreSQL not migrated)."""
    from bot.storage.factory import open_readonly

    storage = await open_readonly(settings)
    try:
        from datetime import UTC, datetime

        start = period_start(period, datetime.now(UTC))  # type: ignore[arg-type]
        since = int(start.timestamp() * 1000) if start else None
        rows = await storage.standings.all_rows(guild_id, since)
    finally:
        await storage.close()
    return [
        {
            "rank": r.rank,
            "user_id": r.score.user_id,
            "name": r.score.name,
            "points": r.score.points,
            "answered": r.score.answered,
            "correct": r.score.correct,
            "accuracy": round(r.score.accuracy, 4),
        }
        for r in rows
    ]


def cmd_leaderboard(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    try:
        settings = Settings.from_env()
        # A SQLite file must exist and be tpquiz's: a read never creates one.
        problem = admin.read_problem(settings)
        if problem:
            raise ConfigError(problem)
        rows = asyncio.run(_standings(settings, args.guild, args.period))
    except (ConfigError, DatabaseUnusable) as exc:
        return _fail(str(exc))
    if args.json:
        json.dump(rows, out, ensure_ascii=False, indent=2)
        out.write("\n")
        return 0
    if not rows:
        out.write(f"no answers in guild {args.guild} for period {args.period}\n")
        return 0
    out.write(
        f"{'rank':>4}  {'user_id':>20}  {'points':>6}  {'answered':>8}  {'accuracy':>8}  name\n"
    )
    for r in rows:
        out.write(
            f"{r['rank']:>4}  {r['user_id']:>20}  {r['points']:>6}  {r['answered']:>8}  "
            f"{float(r['accuracy']) * 100:>7.1f}%  {r['name']}\n"  # type: ignore[arg-type]
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tpquiz", description="Tensor parallelism quiz bot for Discord"
    )
    parser.add_argument("--version", action="version", version=f"tpquiz {tpquiz_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="start the bot (needs DISCORD_TOKEN)")
    run.set_defaults(func=cmd_run)
    board = sub.add_parser("leaderboard", help="print a server's full standings from the database")
    board.add_argument("--guild", type=guild_id_arg, required=True, help="the server (guild) id")
    board.add_argument("--period", choices=PERIODS, default="all")
    board.add_argument("--json", action="store_true", help="print JSON for scripts")
    board.set_defaults(func=cmd_leaderboard)
    bank_commands.register(sub)
    ops_commands.register(sub)
    db_commands.register(sub)
    privacy_commands.register(sub)
    stats_commands.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            args = build_parser().parse_args(argv)
            return int(args.func(args))
        finally:  # a closed pipe shows at the last flush too: here, not at exit
            sys.stdout.flush()
    except BrokenPipeError:  # `tpquiz ... | head`: end quietly, as grep and git do
        return closed_pipe()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
