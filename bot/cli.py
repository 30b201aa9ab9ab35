"""The `tpquiz` command: run the bot, check a question bank, print standings."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import discord
import yarl

from bot import bank_commands, ops_commands
from bot.config import ConfigError, Settings
from bot.quiz.loader import BankError, load_bank
from bot.quiz.periods import PERIODS, period_start
from bot.quiz.template_files import load_templates
from bot.runlock import RunLockHeld

log = logging.getLogger("tpquiz")


def apply_endpoints(settings: Settings) -> None:
    """Point discord.py at a REST or gateway proxy (or the loopback Discord in tests)."""
    if settings.api_base:
        discord.http.Route.BASE = settings.api_base.rstrip("/")
    if settings.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)


async def run_bot(settings: Settings, token: str) -> None:
    from bot.client import TPQuizBot  # imported here so `validate` needs no discord set-up
    from bot.logs import setup_logging
    from bot.metrics import Metrics, serve_metrics
    from bot.runlock import START_WAIT_SECONDS, hold_run_lock
    from bot.storage import Storage

    setup_logging(settings.log_level, settings.log_format, secrets=[token])
    bank = load_bank(settings.question_paths or None)
    templates = load_templates(settings.question_paths or (), bank)
    log.info("question bank: %d questions, %d templates", len(bank), len(templates))
    apply_endpoints(settings)
    # The run lock tells `tpquiz restore` (and a second `tpquiz run`) that we are running.
    with hold_run_lock(settings.db_path, wait=START_WAIT_SECONDS):
        storage = await Storage.open(settings.db_path)
        metrics = Metrics()
        try:
            async with (
                serve_metrics(metrics, settings.metrics_host, settings.metrics_port),
                TPQuizBot(
                    settings=settings,
                    storage=storage,
                    bank=bank,
                    metrics=metrics,
                    templates=templates,
                ) as bot,
            ):
                loop = asyncio.get_running_loop()
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.add_signal_handler(sig, lambda: asyncio.ensure_future(bot.close()))
                await bot.start(token)
        finally:
            await storage.close()
            log.info("stopped")


def cmd_run(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env()
        token = settings.require_token()
        # Refuse to start on a broken bank or template.
        load_templates(settings.question_paths or (), load_bank(settings.question_paths or None))
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
        asyncio.run(run_bot(settings, token))
    except discord.LoginFailure:
        print(
            "tpquiz: Discord rejected the token (401): reset it in the Developer Portal and update DISCORD_TOKEN",
            file=sys.stderr,
        )
        return 2
    except RunLockHeld as exc:
        print(f"tpquiz: {exc}: stop it first, or point TPQUIZ_DB elsewhere", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


async def _standings(db_path: Path, guild_id: int, period: str) -> list[dict[str, object]]:
    from bot.storage import Storage

    storage = await Storage.open(db_path)
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
        if not settings.db_path.exists():
            raise ConfigError(
                f"no database at {settings.db_path}: set TPQUIZ_DB to the bot's database file"
            )
        rows = asyncio.run(_standings(settings.db_path, args.guild, args.period))
    except ConfigError as exc:
        print(f"tpquiz: {exc}", file=sys.stderr)
        return 2
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
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="start the bot (needs DISCORD_TOKEN)")
    run.set_defaults(func=cmd_run)
    board = sub.add_parser("leaderboard", help="print a server's full standings from the database")
    board.add_argument("--guild", type=int, required=True, help="the server (guild) id")
    board.add_argument("--period", choices=PERIODS, default="all")
    board.add_argument("--json", action="store_true", help="print JSON for scripts")
    board.set_defaults(func=cmd_leaderboard)
    bank_commands.register(sub)
    ops_commands.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
