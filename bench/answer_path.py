"""Answer path: clicks per second and reply latency, tpquiz against a bare discord.py bot.

A daily question in a big server means hundreds of members clicking within a minute,
and Discord fails any interaction not answered within 3 s. This bench runs the loopback
Discord in one process (`bench/loopback_process.py`, which also generates the clicks,
cheaply: `bench/fast_loopback.py`) and one bot process at a time, on the same clicks:

* `tpquiz`: `python -m bot run` on a temporary database, settings from the environment
  as in production (TPQUIZ_COUNT_EDIT_INTERVAL left at its default);
* `tpquiz@LABEL` (with `--also-tree DIR --also-label LABEL`): the tpquiz of another
  checkout (`DIR/.venv/bin/python -m bot run`, its own database) in the same rounds, so
  that before and after are one run on the same machine at the same moment;
* `baseline`: `bench/baseline_bot.py`, whose button callback (a DynamicItem with the same
  custom_id template) only sends a fixed ephemeral text: discord.py's own floor;
* `baseline-embed`: the same bare bot replying with one fixed tpquiz answer embed and its
  report button: the fair floor (issue 30), which the ratios and the verdict use; the
  table and the verdict print both reply bodies' sizes (median bytes), so that one can
  see the replies are comparable. The text `baseline` stays as a second reference.

Loads, each after a warm-up: closed loop with 1, 8, 32 and 128 clicks in flight (does
throughput grow with load?) and open loop at 200 clicks/s whether or not earlier clicks
were answered, which is what members do. Every click is by a new member. Latency is from
queueing INTERACTION_CREATE to receiving the bot's callback. For each load the bench
prints the main-thread busy share of the bot (its main thread's CPU time over the load's
wall time): a ratio against the bare bot only means something when the bare bot's main
thread is saturated (>= 95 % at 32 in flight); the verdict warns otherwise.

The machine is shared: before each round the bench waits (up to `--quiet-wait` s) for
other load to settle, and marks a load disturbed when other processes used CPU during it
(`bench/quiet.py`); medians use the clean rounds, and the table counts the disturbed.

    .venv/bin/python -m bench.answer_path            # full size (about 10 minutes)
    .venv/bin/python -m bench.answer_path --quick    # a smoke run (1-2 minutes)
    .venv/bin/python -m bench.answer_path --daily    # clicks on daily question posts
    .venv/bin/python -m bench.answer_path --also-tree ../other --also-label after
    .venv/bin/python -m bench.answer_path --uvloop   # every bot on uvloop (pip install uvloop)
    .venv/bin/python -m bench.answer_path --loops asyncio uvloop  # both, same rounds
    .venv/bin/python -m bench.answer_path --profile  # also py-spy each bot at c=32
    .venv/bin/python -m bench.answer_path --backends sqlite postgresql --bots tpquiz baseline

With `--backends sqlite postgresql` this checkout's tpquiz runs once on its SQLite file
and once (`tpquiz+pg`) on a throwaway local PostgreSQL server started for the run
(tests/pg_server.py: fsync off, as SQLite's WAL with synchronous=NORMAL does not sync a
commit either), in the same rounds. The server's processes are the bot's database, not
other load: their CPU is reported per click as "database server CPU ms/click".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.answer_bots import BotSpec, bot_specs, no_uvloop_dir
from bench.answer_pg import PgServer, pg_answers, pg_cpu_seconds, pg_database, start_pg_server
from bench.answer_report import (
    THROUGHPUT_CONCURRENCY,
    median_runs,
    report,
    rounds_disturbed,
    verdict,
)
from bench.botproc import BotProcess, bot_env
from bench.common import (
    OUT_DIR,
    cpu_delta,
    machine_line,
    proc_cpu_seconds,
    thread_cpu_seconds,
    write_json,
)
from bench.loopback_process import LoopbackProcess
from bench.quiet import DISTURBED_CORES, OtherLoad, cpu_of, wait_quiet

BOTS = ("tpquiz", "baseline", "baseline-embed")
#: Seconds a bot gets to exit after SIGTERM before it is killed (and that is reported).
EXIT_WAIT = 30.0


async def measure(
    lb: LoopbackProcess,
    bot: BotProcess,
    spy_to: Path | None,
    gil: bool,
    db_server: PgServer | None = None,
    **load: Any,
) -> dict[str, Any]:
    """One load against a running bot, with the bot's CPU per thread over the load and
    the CPU other processes used meanwhile (a PostgreSQL server the bot uses is not
    other load: its CPU is the bot's database's)."""
    spy = start_profile(bot.pid, spy_to, gil=gil) if spy_to is not None else None
    pids = [lb.pid, bot.pid] + ([spy.pid] if spy is not None else [])

    def server_cpu() -> float:
        return pg_cpu_seconds(db_server) if db_server else 0.0

    others = OtherLoad(lambda: cpu_of(pids) + server_cpu()).start()
    cpu, threads = proc_cpu_seconds(bot.pid), thread_cpu_seconds(bot.pid)
    server_before = server_cpu()
    run = await lb.call("load", watch_pid=bot.pid, **load)
    run["bot_cpu_s"] = proc_cpu_seconds(bot.pid) - cpu
    run["bot_thread_cpu_s"] = cpu_delta(threads, thread_cpu_seconds(bot.pid))
    run["db_server_cpu_s"] = server_cpu() - server_before
    run["other_cores"] = others.cores()
    run["disturbed"] = run["other_cores"] > DISTURBED_CORES
    if spy is not None:
        spy.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
        spy.wait(60)
    return run


async def run_bot_load(
    name: str,
    lb: LoopbackProcess,
    bot: BotProcess,
    message_ids: list[int],
    args: argparse.Namespace,
    round_no: int,
    db_server: PgServer | None = None,
) -> dict[str, Any]:
    """Warm up, then the closed-loop runs and the open-loop run against one bot."""
    results: dict[str, Any] = {}
    await lb.call("load", mode="closed", message_ids=message_ids, clicks=args.warmup, concurrency=8)
    safe = name.replace("@", "-")
    for concurrency in args.concurrency:
        spy_to = None
        if args.profile and round_no == 0 and concurrency == THROUGHPUT_CONCURRENCY:
            spy_to = OUT_DIR / f"answer_path.{safe}.pyspy.txt"
        prof = ""
        if args.profile_loopback and round_no == 0 and concurrency == THROUGHPUT_CONCURRENCY:
            prof = str(OUT_DIR / f"answer_path.loopback.{safe}.prof")
        clicks = args.clicks if concurrency > 1 else args.clicks_c1
        run = await measure(
            lb,
            bot,
            spy_to,
            args.profile_gil,
            db_server,
            mode="closed",
            message_ids=message_ids,
            clicks=clicks,
            concurrency=concurrency,
            profile_to=prof,
        )
        results[f"closed_c{concurrency}"] = run
        print(f"  {name} closed c={concurrency}: {summary_line(run)}", flush=True)
    for rate in args.rates:
        run = await measure(
            lb,
            bot,
            None,
            False,
            db_server,
            mode="open",
            message_ids=message_ids,
            rate=rate,
            duration=args.duration,
        )
        results[f"open_{rate:g}"] = run
        print(f"  {name} open {rate:g}/s: {summary_line(run)}", flush=True)
    return results


def summary_line(run: dict[str, Any]) -> str:
    lat = run["latency_ms"]
    threads = run["bot_thread_cpu_s"]
    n = max(1, run["answered"])
    return (
        f"{run['clicks_per_s']:.0f} clicks/s, main thread busy {run['bot_main_busy']:.0%}"
        f" (+{run['bot_main_waiting']:.0%} waiting for a CPU), p50 {lat['p50']:.1f} ms,"
        f" p99 {lat['p99']:.1f} ms, lost {run['lost']}, callbacks {run['callback_types']};"
        f" CPU/click: bot main {1000 * threads['main'] / n:.2f} ms,"
        f" bot other threads {1000 * threads['other_threads'] / n:.2f} ms,"
        f" loopback {1000 * run['loopback_cpu_s'] / n:.2f} ms"
        + (
            f", database server {1000 * run['db_server_cpu_s'] / n:.2f} ms"
            if run.get("db_server_cpu_s")
            else ""
        )
        + ";"
        f" other load {run['other_cores']:.2f} cores{' DISTURBED' if run['disturbed'] else ''}"
    )


def start_profile(pid: int, out: Path, *, gil: bool) -> subprocess.Popen[bytes] | None:
    """py-spy (sampling, no change to the bot) on `pid`, collapsed stacks to `out`."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("  (py-spy not installed: pip install py-spy; no profile)", flush=True)
        return None
    return subprocess.Popen(
        [spy, "record", "--pid", str(pid), "--rate", "250", "--format", "raw", "-o", str(out)]
        + (["--gil"] if gil else []),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def make_posts(
    lb: LoopbackProcess, spec: BotSpec, args: argparse.Namespace, servers: list[list[int]]
) -> list[int]:
    """The posts to click on: a tpquiz bot posts its own (its database must know them);
    the bare bots click on look-alikes."""
    guild, channel = servers[0]
    if spec.db_name is None:
        made = await lb.call("synthetic_posts", count=args.posts, channel=channel)
    elif args.daily:  # one daily post per server
        made = await lb.call("post_daily", guilds=servers)
    else:
        made = await lb.call("post", count=args.posts, guild=guild, channel=channel)
    ids: list[int] = made["message_ids"]
    return ids


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    specs = bot_specs(args)
    rounds: dict[str, list[dict[str, Any]]] = {s.name: [] for s in specs}
    params = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
    figures: dict[str, Any] = {"params": params, "rounds": rounds, "quiet_waits": []}
    figures["order"] = [s.name for s in specs]
    answered: dict[str, int] = {s.name: 0 for s in specs}
    with tempfile.TemporaryDirectory(prefix="tpquiz-bench-") as tmp:
        workdir = Path(tmp)
        server = start_pg_server() if any(s.backend == "postgresql" for s in specs) else None
        lb = await LoopbackProcess(workdir / "loopback.log").start()
        try:
            servers = (await lb.call("setup", guilds=args.posts))["guilds"]
            info = lb.info
            posts: dict[str, list[int]] = {}
            identifies = 0
            for round_no in range(args.rounds):
                if args.quiet_wait > 0:
                    waited, other = await wait_quiet(
                        lambda: cpu_of([lb.pid]), max_wait=args.quiet_wait
                    )
                    figures["quiet_waits"].append({"waited_s": waited, "other_cores": other})
                    print(
                        f"round {round_no + 1} of {args.rounds} (waited {waited:.0f} s for quiet;"
                        f" other load {other:.2f} cores)",
                        flush=True,
                    )
                else:
                    print(f"round {round_no + 1} of {args.rounds}", flush=True)
                for spec in specs:
                    db = workdir / f"{spec.db_name}.sqlite3" if spec.db_name else None
                    env = bot_env(
                        rest_base=info["rest_base"],
                        gateway_url=info["gateway_url"],
                        token=info["token"],
                        db_path=db,
                        **spec.extra,
                    )
                    if spec.backend == "postgresql":
                        assert server is not None and spec.db_name is not None
                        env["TPQUIZ_DATABASE_URL"] = await pg_database(server, spec.db_name)
                    env["PYTHONPATH"] = str(spec.root)  # this checkout or --also-tree's
                    if spec.db_name is not None and spec.loop != "uvloop":
                        env["PYTHONPATH"] = f"{no_uvloop_dir(workdir)}:{spec.root}"
                    log_name = f"{spec.name.replace('@', '-')}.log"
                    bot = await BotProcess(env, workdir, argv=spec.argv, log_name=log_name).start()
                    try:
                        identifies += 1
                        await lb.call("wait_session", identifies=identifies, timeout=60)
                        key = spec.db_name or "bare"
                        if key not in posts:
                            posts[key] = await make_posts(lb, spec, args, servers)
                        on_pg = server if spec.backend == "postgresql" else None
                        result = await run_bot_load(
                            spec.name, lb, bot, posts[key], args, round_no, on_pg
                        )
                        try:  # a bot still sending deferred replies may take a while
                            result["exit_status"] = await bot.terminate(EXIT_WAIT)
                        except TimeoutError:
                            result["exit_status"] = f"no exit {EXIT_WAIT:g} s after SIGTERM"
                        rounds[spec.name].append(result)
                        answered[spec.name] += args.warmup + sum(
                            r["answered"] for r in result.values() if isinstance(r, dict)
                        )
                    finally:
                        await bot.stop()
                        if args.keep_logs:
                            shutil.copy(bot.log_path, OUT_DIR / f"answer_path.{log_name}")
            figures["answers"] = {}
            for spec in specs:
                if spec.db_name is None:
                    continue
                if spec.backend == "postgresql":
                    assert server is not None
                    in_db = await pg_answers(server, spec.db_name)
                else:
                    with sqlite3.connect(workdir / f"{spec.db_name}.sqlite3") as conn:
                        in_db = conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
                figures["answers"][spec.name] = [in_db, answered[spec.name]]
        finally:
            await lb.close()
            if server is not None:
                server.stop()
    return figures


def print_figures(figures: dict[str, Any], header: str) -> bool:
    """Print the table and the verdict; returns whether the answers were all recorded."""
    med = {name: median_runs(runs) for name, runs in figures["rounds"].items() if runs}
    figures["median"] = med
    answers = {k: (v[0], v[1]) for k, v in figures.get("answers", {}).items()}
    order = figures.get("order") or sorted(med)
    bad, total = rounds_disturbed(figures["rounds"])
    print()
    print(f"{header}; {bad} of {total} round(s) disturbed by other load")
    print(report(med, order))
    lines = verdict(med, answers)
    figures["verdict"] = lines
    print("\n".join(lines))
    return all(in_db == n for in_db, n in answers.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="tpquiz answer path vs a bare discord.py bot")
    parser.add_argument("--posts", type=int, default=10, help="posts (servers with --daily)")
    parser.add_argument("--clicks", type=int, default=4000, help="clicks per closed run, c>1")
    parser.add_argument("--clicks-c1", type=int, default=1000, help="clicks per closed run, c=1")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32, 128])
    parser.add_argument(
        "--rates", type=float, nargs="+", default=[200.0], help="open-loop clicks/s"
    )
    parser.add_argument("--duration", type=float, default=15.0, help="open-loop seconds")
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument(
        "--daily",
        action="store_true",
        help="click on daily question posts (one per server) instead of /tpquiz question",
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of all bots")
    parser.add_argument("--bots", nargs="+", choices=BOTS, default=list(BOTS))
    parser.add_argument("--also-tree", type=Path, help="also run the tpquiz of this checkout")
    parser.add_argument("--also-label", default="other", help="its name: tpquiz@LABEL")
    parser.add_argument(
        "--quiet-wait", type=float, default=60.0, help="max seconds to wait for quiet (0: none)"
    )
    parser.add_argument(
        "--loops",
        nargs="+",
        choices=("asyncio", "uvloop"),
        default=["asyncio"],
        help="run every bot on each of these event loops, in the same rounds",
    )
    parser.add_argument("--uvloop", action="store_true", help="short for --loops uvloop")
    parser.add_argument(
        "--backends",
        nargs="+",
        choices=("sqlite", "postgresql"),
        default=["sqlite"],
        help="run this checkout's tpquiz on each (postgresql: a local throwaway server)",
    )
    parser.add_argument("--profile", action="store_true", help="py-spy each bot at c=32")
    parser.add_argument("--profile-gil", action="store_true", help="only samples holding the GIL")
    parser.add_argument(
        "--profile-loopback", action="store_true", help="cProfile the loopback at c=32"
    )
    parser.add_argument("--keep-logs", action="store_true", help="copy bot logs to bench/out")
    parser.add_argument("--quick", action="store_true", help="small sizes, to check it works")
    parser.add_argument(
        "--from-json", type=Path, help="print the table of an earlier run's JSON and stop"
    )
    args = parser.parse_args(argv)
    if args.from_json is not None:
        document = json.loads(args.from_json.read_text())
        print_figures(document["figures"], f"{document['command']} ({document['finished_at']})")
        return 0
    if args.quick:
        args.posts, args.clicks, args.clicks_c1, args.duration = 3, 800, 200, 3.0
        args.warmup, args.rounds, args.quiet_wait = 100, 1, min(args.quiet_wait, 10.0)
    if args.uvloop:
        args.loops = ["uvloop"]
    figures = asyncio.run(bench(args))
    loops = " and ".join(args.loops)
    header = (
        f"Answer path on {machine_line()}, event loop {loops}; median of {args.rounds} round(s)"
    )
    ok = print_figures(figures, header)
    name = "answer_path_daily" if args.daily else "answer_path"
    path = write_json(name, figures, module="answer_path")
    print(f"figures written to {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
