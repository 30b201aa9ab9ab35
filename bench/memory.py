"""Memory: resident set of the bot connected to 1,000 servers with the bank loaded.

The loopback Discord (its own process) sends READY and one GUILD_CREATE per server
(default: 10 text channels and 10 extra roles each, members intent off, as TPQuizBot
asks); the bot is `python -m bot run` on a temporary database. Once the bot has
answered a command (so it has processed every GUILD_CREATE before it) its RSS is
sampled for a few seconds (on_ready comes `guild_ready_timeout` later), then again
after 2,000 answer clicks. The bare discord.py bot of `bench/baseline_bot.py` gets the
same servers, for discord.py's own share.

    .venv/bin/python -m bench.memory           # 1,000 servers
    .venv/bin/python -m bench.memory --quick   # 100 servers
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.botproc import BotProcess, bot_env
from bench.common import machine_line, proc_rss_mb, table, write_json
from bench.loopback_process import LoopbackProcess

GOAL_MB = 150.0


async def sample_rss(pid: int, seconds: float, every: float = 0.25) -> tuple[float, float]:
    """(max, last) RSS in MiB over `seconds` (measurement, not synchronisation)."""
    peak = last = proc_rss_mb(pid)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(every)
        last = proc_rss_mb(pid)
        peak = max(peak, last)
    return peak, last


async def measure(name: str, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tpquiz-memory-") as tmp:
        workdir = Path(tmp)
        lb = await LoopbackProcess(workdir / "loopback.log").start()
        try:
            guilds = (
                await lb.call("setup", guilds=args.guilds, channels=args.channels, roles=args.roles)
            )["guilds"]
            guild, channel = guilds[0]
            info = lb.info
            if name == "tpquiz":
                argv, extra = None, {"TPQUIZ_LOG_LEVEL": "WARNING"}
            else:
                argv, extra = [sys.executable, "-m", "bench.baseline_bot"], {}
            env = bot_env(
                rest_base=info["rest_base"],
                gateway_url=info["gateway_url"],
                token=info["token"],
                db_path=workdir / "tpquiz.sqlite3" if name == "tpquiz" else None,
                **extra,
            )
            bot = await BotProcess(env, workdir, argv=argv).start()
            try:
                started = time.perf_counter()
                await lb.call("wait_session", identifies=1, timeout=120)
                # A reply proves every GUILD_CREATE before it has been processed.
                if name == "tpquiz":
                    made = await lb.call("post", count=5, guild=guild, channel=channel)
                else:
                    made = await lb.call("synthetic_posts", count=5, channel=channel)
                await lb.call("load", mode="closed", message_ids=made["message_ids"], clicks=1)
                connected_s = time.perf_counter() - started
                peak, ready = await sample_rss(bot.pid, args.settle)
                await lb.call(
                    "load",
                    mode="closed",
                    message_ids=made["message_ids"],
                    clicks=args.clicks,
                    concurrency=16,
                )
                after_peak, after = await sample_rss(bot.pid, 1.0)
                status = await bot.terminate(15)
            finally:
                await bot.stop()
        finally:
            await lb.close()
    return {
        "connected_s": connected_s,
        "rss_ready_mb": ready,
        "rss_ready_peak_mb": peak,
        "rss_after_clicks_mb": after,
        "rss_after_clicks_peak_mb": after_peak,
        "exit_status": status,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="tpquiz resident memory with many servers")
    parser.add_argument("--guilds", type=int, default=1_000)
    parser.add_argument("--channels", type=int, default=10, help="text channels per server")
    parser.add_argument("--roles", type=int, default=10, help="extra roles per server")
    parser.add_argument("--clicks", type=int, default=2_000)
    parser.add_argument("--settle", type=float, default=4.0, help="seconds of RSS sampling")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.guilds, args.clicks, args.settle = 100, 200, 3.0
    figures: dict[str, Any] = {"params": vars(args).copy()}
    for name in ("tpquiz", "baseline"):
        figures[name] = await_run(measure(name, args))
        print(f"  {name}: {figures[name]}", flush=True)
    tp, base = figures["tpquiz"], figures["baseline"]
    rows = [
        [
            "RSS when ready (MiB)",
            tp["rss_ready_mb"],
            base["rss_ready_mb"],
            tp["rss_ready_mb"] - base["rss_ready_mb"],
        ],
        [
            "peak while settling (MiB)",
            tp["rss_ready_peak_mb"],
            base["rss_ready_peak_mb"],
            tp["rss_ready_peak_mb"] - base["rss_ready_peak_mb"],
        ],
        [
            f"after {args.clicks:,} clicks (MiB)",
            tp["rss_after_clicks_mb"],
            base["rss_after_clicks_mb"],
            tp["rss_after_clicks_mb"] - base["rss_after_clicks_mb"],
        ],
        ["connect + first reply (s)", tp["connected_s"], base["connected_s"], ""],
    ]
    worst = max(tp["rss_ready_peak_mb"], tp["rss_after_clicks_peak_mb"])
    figures["goal"] = {"worst_rss_mb": worst, "ok": worst < GOAL_MB}
    print()
    print(
        f"Memory with {args.guilds:,} servers ({args.channels} channels, {args.roles} extra"
        f" roles each) on {machine_line()}"
    )
    print(table(["figure", "tpquiz", "bare discord.py", "tpquiz - bare"], rows))
    print(
        f"tpquiz worst RSS {worst:.1f} MiB (goal < {GOAL_MB:g} MiB):"
        f" {'OK' if worst < GOAL_MB else 'MISSED'}"
    )
    path = write_json("memory", figures)
    print(f"figures written to {path}")
    return 0


def await_run(coro: Any) -> dict[str, Any]:
    result: dict[str, Any] = asyncio.run(coro)
    return result


if __name__ == "__main__":
    sys.exit(main())
