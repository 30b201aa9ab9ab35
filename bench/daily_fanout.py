"""Daily fan-out: 1,000 servers due in the same minute, against Discord's global limit.

Discord allows a bot 50 requests per second in all (interaction callbacks aside), so
1,000 daily posts cannot go out in less than 20 s, and on the second day, when each new
post also closes yesterday's (a reveal edit), 2,000 requests take at least 40 s. This
bench measures how close `cogs/daily.py` gets to that floor without breaking it: the
loopback Discord (its own process) answers any bot request beyond 50 in a second with a
global 429, as Discord does, and counts them.

The bot runs in this process (`TPQuizBot` with a fixed clock, on a temporary database in
which 1,000 servers have daily posts at 09:00 UTC); its own tick is stopped and
`DailyCog.run_due(now)` is called for day 1 and day 2 at 09:00:05, timed from the call
to its return (every post sent and, on day 2, every reveal edited).

    .venv/bin/python -m bench.daily_fanout            # 1,000 servers (about 90 s)
    .venv/bin/python -m bench.daily_fanout --quick    # 100 servers
    .venv/bin/python -m bench.daily_fanout --clicks-per-s 100   # with members clicking

With `--clicks-per-s R` members click on `--click-posts` question posts at R clicks a
second all through each day's run (the loopback's open-loop click load): their replies
are interaction responses, which Discord does not count against the global limit, but
each busy post's "N answered" edit is a channel request that is, and shares the pacer
with the daily posts (bot/ui/poster.py). The table then says how many of the requests
let through were those edits, and whether any drew a 429.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.common import machine_line, table, write_json
from bench.loopback_process import DISCORD_GLOBAL_RPS, LoopbackProcess
from bot.bank.loader import load_bank
from bot.cli.main import apply_endpoints
from bot.infra.config import Settings
from bot.runtime.bot import TPQuizBot
from bot.runtime.compose import build_bot
from bot.storage.sqlite import Storage
from bot.ui.poster import SENDS_PER_SECOND

#: Day 1 of the bench: a Monday; schedules were set the week before.
DAY_1 = datetime(2030, 1, 7, 9, 0, 5, tzinfo=UTC)


class FixedClock:
    """The bot's clock, moved by the bench only."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


async def schedule_all(storage: Storage, guilds: list[tuple[int, int]]) -> None:
    """Daily posts at 09:00 UTC in every server, set a week before day 1."""
    set_at = int((DAY_1 - timedelta(days=7)).timestamp() * 1000)
    for guild_id, channel_id in guilds:
        await storage.daily.set_schedule(
            guild_id, channel_id=channel_id, post_time="09:00", timezone="UTC", now_ms=set_at
        )


async def run_day(
    lb: LoopbackProcess,
    cog: Any,
    clock: FixedClock,
    now: datetime,
    clicks: dict[str, Any] | None = None,
) -> dict[str, Any]:
    await lb.call("global_limit", rps=DISCORD_GLOBAL_RPS)  # also resets the counters
    clock.now = now
    load = asyncio.create_task(lb.call("load", mode="open", **clicks)) if clicks else None
    started = time.perf_counter()
    run = await cog.run_due(now)
    seconds = time.perf_counter() - started
    clicked = await load if load is not None else None
    seen = await lb.call("channel_posts")
    extra: dict[str, Any] = {}
    if clicked is not None:
        edits = seen["allowed"] - seen["posts"] - len(run.closed)
        edits -= sum(len(d.closed) for d in run.delivered)
        extra = {
            "clicks_answered": clicked["answered"],
            "clicks_lost": clicked["lost"],
            "click_p99_ms": clicked["latency_ms"]["p99"],
            "count_edits": edits,
        }
    return {
        **extra,
        "due": len(run.due),
        "delivered": len(run.delivered),
        "failed": len(run.failed),
        "closed": len(run.closed) + sum(len(d.closed) for d in run.delivered),
        "seconds": seconds,
        "global_429s": seen["rejected_429"],
        "posts_seen_by_discord": seen["posts"],
    }


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    bank = load_bank()
    with tempfile.TemporaryDirectory(prefix="tpquiz-daily-") as tmp:
        workdir = Path(tmp)
        lb = await LoopbackProcess(workdir / "loopback.log").start()
        storage = await Storage.open(workdir / "tpquiz.sqlite3")
        bot: TPQuizBot | None = None
        connect: asyncio.Task[None] | None = None
        try:
            guilds = [tuple(g) for g in (await lb.call("setup", guilds=args.guilds))["guilds"]]
            await schedule_all(storage, guilds)  # type: ignore[arg-type]
            info = lb.info
            settings = Settings(
                token=info["token"],
                db_path=workdir / "tpquiz.sqlite3",
                api_base=info["rest_base"],
                gateway_url=info["gateway_url"],
            )
            apply_endpoints(settings)
            clock = FixedClock(DAY_1 - timedelta(hours=1))
            bot = build_bot(
                settings=settings,
                storage=storage,
                bank=bank,
                clock=clock,
                rng=random.Random(args.seed),
                guild_ready_timeout=0.5,
            )
            await bot.login(info["token"])  # runs setup_hook: the cogs are loaded
            cog = bot.get_cog("DailyCog")
            assert cog is not None, "cogs/daily.py is not loaded"
            cog.tick.cancel()  # type: ignore[attr-defined]  # the bench calls run_due itself
            connect = asyncio.create_task(bot.connect(reconnect=False))
            async with asyncio.timeout(120):
                await bot.wait_until_ready()
            clicks = None
            if args.clicks_per_s:
                guild, channel = guilds[0]
                made = await lb.call("post", count=args.click_posts, guild=guild, channel=channel)
                clicks = {
                    "message_ids": made["message_ids"],
                    "rate": args.clicks_per_s,
                    # About as long as a day's run at the pacer's rate.
                    "duration": args.guilds / SENDS_PER_SECOND,
                }
            day1 = await run_day(lb, cog, clock, DAY_1, clicks)
            print(f"  day 1: {day1}", flush=True)
            day2 = await run_day(lb, cog, clock, DAY_1 + timedelta(days=1), clicks)
            print(f"  day 2: {day2}", flush=True)
        finally:
            if bot is not None:
                await bot.close()
            if connect is not None:
                with contextlib.suppress(Exception):
                    await connect
            await storage.close()
            await lb.close()
    return {"servers": args.guilds, "day1": day1, "day2": day2}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="daily posts to many servers at once")
    parser.add_argument("--guilds", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--clicks-per-s", type=float, default=0.0, help="members clicking meanwhile (0: none)"
    )
    parser.add_argument("--click-posts", type=int, default=20, help="posts they click on")
    args = parser.parse_args(argv)
    if args.quick:
        args.guilds = 100
    figures = asyncio.run(bench(args))
    rows = []
    for label, day, requests in (
        ("day 1: posts", figures["day1"], args.guilds),
        ("day 2: posts + reveal edits", figures["day2"], 2 * args.guilds),
    ):
        # The count edits made meanwhile share the global limit: the floor counts them.
        requests += day.get("count_edits", 0)
        floor = requests / DISCORD_GLOBAL_RPS
        day["floor_s"] = floor
        day["ratio"] = floor / day["seconds"]
        row = [
            label,
            requests,
            day["delivered"],
            day["failed"],
            day["closed"],
            day["seconds"],
            floor,
            day["ratio"],
            day["global_429s"],
        ]
        if args.clicks_per_s:
            row += [day["count_edits"], day["clicks_answered"], day["clicks_lost"]]
            row += [day["click_p99_ms"]]
        rows.append(row)
    print()
    print(f"Daily fan-out to {args.guilds:,} servers due at once, on {machine_line()}")
    print(
        table(
            [
                "run",
                "requests",
                "posted",
                "failed",
                "revealed",
                "seconds",
                f"floor s (at {DISCORD_GLOBAL_RPS}/s)",
                "floor/measured",
                "global 429s",
            ]
            + (
                ["of which count edits", "clicks answered", "clicks lost", "click p99 ms"]
                if args.clicks_per_s
                else []
            ),
            rows,
        )
    )
    path = write_json("daily_fanout", figures)
    print(f"figures written to {path}")
    lost = any(d["delivered"] != args.guilds for d in (figures["day1"], figures["day2"]))
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
