"""Every pause of tpquiz's event loop over a threshold during a steady click load, and what
ran in it (issue 30: "find the stalls at 200 clicks/s").

The bot runs as in production (`python -m bot run`, SQLite by default, `--backend
postgresql` for a throwaway local server) with TPQUIZ_LOOP_STALL_MS set, so its own
watcher (bot/ops/loop_stalls.py) logs each pause with the stack it saw most. The bench
warms the bot up, notes where the log ends, runs the open-loop load (`--rate` clicks/s for
`--duration` s), and reads only the pauses logged during the load: how many, their total
and longest, grouped by the project's innermost frame (or the library's when none of the
project's frames was on the stack), with the click latency of the same run. The watcher
itself costs a callback every 2 ms, so compare pauses, not latencies, with other runs.

    .venv/bin/python -m bench.loop_stalls                        # 200 clicks/s, 5 ms, 20 s
    .venv/bin/python -m bench.loop_stalls --rate 200 --threshold 5 --duration 20 --backend postgresql
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.answer_pg import pg_database, start_pg_server
from bench.botproc import BotProcess, bot_env
from bench.common import machine_line
from bench.loopback_process import LoopbackProcess

_STALL = re.compile(r"event loop paused ([0-9.]+) ms \((\d+) samples\); most seen: (.*)$")


#: The loop's own wait for events: seen during a pause, the loop had nothing to run but its
#: thread did not get a CPU (other processes) or the GIL (another thread) in time.
_WAITING = ("selectors.py", "select")


def culprit(where: str) -> str:
    """The frame that names a pause: the innermost frame seen most during it."""
    frames = [f for f in where.split(" > ") if f]
    if not frames or frames == ["(no sample)"]:
        return "(no sample: the GIL was held in C code throughout)"
    inner = frames[-1]
    if inner.startswith(_WAITING[0]) and inner.endswith(_WAITING[1]):
        return f"{inner} (waiting for events: no CPU or no GIL for the loop's thread)"
    return inner


def read_stalls(log_text: str) -> list[tuple[float, str]]:
    """(milliseconds, where) of each pause logged in `log_text`."""
    found = []
    for line in log_text.splitlines():
        m = _STALL.search(line)
        if m:
            found.append((float(m.group(1)), m.group(3)))
    return found


def summarise(stalls: list[tuple[float, str]], seconds: float) -> list[str]:
    by: dict[str, list[float]] = collections.defaultdict(list)
    longest: dict[str, tuple[float, str]] = {}
    for ms, where in stalls:
        name = culprit(where)
        by[name].append(ms)
        if ms > longest.get(name, (-1.0, ""))[0]:
            longest[name] = (ms, where)
    total = sum(ms for ms, _ in stalls)
    lines = [
        f"{len(stalls)} pause(s) in {seconds:.0f} s, {total:.0f} ms in all"
        f" ({100 * total / (1000 * seconds):.1f} % of the time)"
        + (f", longest {max(ms for ms, _ in stalls):.1f} ms" if stalls else "")
    ]
    for name, times in sorted(by.items(), key=lambda kv: -sum(kv[1])):
        lines.append(f"  {len(times):4d} x, {sum(times):7.1f} ms, max {max(times):6.1f} ms: {name}")
        lines.append(f"         the longest's stack: {longest[name][1]}")
    return lines


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tpquiz-stalls-") as tmp:
        workdir = Path(tmp)
        server = start_pg_server() if args.backend == "postgresql" else None
        lb = await LoopbackProcess(workdir / "loopback.log").start()
        try:
            guild, channel = (await lb.call("setup", guilds=1))["guilds"][0]
            info = lb.info
            env = bot_env(
                rest_base=info["rest_base"],
                gateway_url=info["gateway_url"],
                token=info["token"],
                db_path=workdir / "bot.sqlite3",
                TPQUIZ_LOG_LEVEL="WARNING",
                TPQUIZ_LOOP_STALL_MS=f"{args.threshold:g}",
            )
            if server is not None:
                env["TPQUIZ_DATABASE_URL"] = await pg_database(server, "stalls")
            bot = await BotProcess(env, workdir, log_name="bot.log").start()
            try:
                await lb.call("wait_session", identifies=1, timeout=60)
                made = await lb.call("post", count=args.posts, guild=guild, channel=channel)
                ids = made["message_ids"]
                await lb.call("load", mode="closed", message_ids=ids, clicks=500, concurrency=8)
                start = bot.log_path.stat().st_size
                load = await lb.call(
                    "load",
                    mode="open",
                    message_ids=ids,
                    rate=args.rate,
                    duration=args.duration,
                    watch_pid=bot.pid,
                )
                with bot.log_path.open("rb") as f:
                    f.seek(start)
                    during = f.read().decode(errors="replace")
            finally:
                await bot.stop()
        finally:
            await lb.close()
            if server is not None:
                server.stop()
    return {"load": load, "stalls": read_stalls(during)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=200.0, help="open-loop clicks/s")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of load")
    parser.add_argument("--threshold", type=float, default=5.0, help="ms of a pause to log")
    parser.add_argument("--posts", type=int, default=10)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args(argv)
    print(machine_line(), flush=True)
    result = asyncio.run(run(args))
    lat = result["load"]["latency_ms"]
    print(
        f"{args.backend}, {args.rate:g} clicks/s for {args.duration:g} s:"
        f" answered {result['load']['answered']}, lost {result['load']['lost']},"
        f" p50 {lat['p50']:.1f} / p95 {lat['p95']:.1f} / p99 {lat['p99']:.1f} ms"
    )
    print("\n".join(summarise(result["stalls"], args.duration)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
