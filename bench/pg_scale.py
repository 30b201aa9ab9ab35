"""PostgreSQL at a million answers: the storage_scale database on both backends, one run.

Why a bench of its own: issue 15 asks for the leaderboard/stats p99 under 5 ms at
1,000,000 answers on PostgreSQL too, and the recording rate against SQLite's, measured
in the same run on the same machine (a loaded 2-core VM moves figures by 2x from one
run to the next, so only figures from one run compare). It reuses bench.storage_scale:

1. a throwaway PostgreSQL server (tests/pg_server.py's `PgServer`, in a temp dir);
2. storage_scale's generated SQLite database (`--quick`: a tenth), migrated by
   `Storage.open`;
3. `bot.storage.copy.copy_from_sqlite` into an empty PostgreSQL database (timed, then
   VACUUM (ANALYZE), timed apart: the test server runs without autovacuum, so nothing
   else would gather the planner's statistics or set the visibility map that lets the
   rank counts be index-only scans, as autovacuum would on a real server), verified: rows per table equal, and the
   leaderboards (all, week, month) of the biggest servers and a random sample equal;
4. the read side on both: `QuizService.leaderboard` (week, month, all) and
   `member_stats` for callers drawn from all members (big servers weigh as they would)
   and from the biggest server;
5. recording: `AnswerStore.record` vs `PgAnswerStore.record`, 1 and 32 in flight.

    .venv/bin/python -m bench.pg_scale           # full size (several minutes)
    .venv/bin/python -m bench.pg_scale --quick   # a tenth of it
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import asyncpg

from bench.common import machine_line, summary_ms, table, write_json
from bench.storage_scale import (
    GOAL_P99_MS,
    NOW,
    RECORD_IN_FLIGHT,
    Generated,
    create_base_schema,
    generate,
    parse_scale_arguments,
    scale_arguments,
    timed,
)
from bot.bank.loader import load_bank
from bot.quiz.model import Bank, Question
from bot.services.quiz import QuizService
from bot.storage.contract import AnswersContract, PostsContract, StandingsContract
from bot.storage.copy import copy_from_sqlite
from bot.storage.periods import month_start_ms, week_start_ms
from bot.storage.pg.answers import PgAnswerStore
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.executor import PgExecutor
from bot.storage.pg.standings import PgStandings
from bot.storage.records import Post
from bot.storage.sqlite import Storage
from bot.storage.stores.daily import DailyStore
from bot.storage.stores.posts import PostStore
from tests.pg_server import PgServer, find_bin_dir

#: Servers whose leaderboards are compared after the copy: the biggest, then a sample.
VERIFY_BIGGEST, VERIFY_SAMPLE = 5, 20
BACKENDS = ("sqlite", "postgresql")


class _PgShim:
    """The two stores `QuizService.leaderboard` and `.stats` read, over PostgreSQL: the
    PostgreSQL `Storage` is another engineer's, not in main yet."""

    def __init__(self, db: PgDatabase) -> None:
        self.standings = PgStandings(db)
        self.daily = DailyStore(PgExecutor(db))


async def start_database(server: PgServer) -> PgDatabase:
    name = "bench_" + secrets.token_hex(4)
    admin = await asyncpg.connect(server.url())
    try:
        await admin.execute(f"CREATE DATABASE {name}")
    finally:
        await admin.close()
    return await PgDatabase.open(server.url(name))


async def copy_and_verify(path: Path, pg: PgDatabase, gen: Generated, seed: int) -> dict[str, Any]:
    """Copy the SQLite file into `pg` (timed), VACUUM (ANALYZE) (timed), compare counts and
    boards."""
    started = time.perf_counter()
    copied = await copy_from_sqlite(path, pg)
    copy_s = time.perf_counter() - started
    started = time.perf_counter()
    async with pg.pool.acquire() as conn:
        await conn.execute("VACUUM (ANALYZE)")
    analyze_s = time.perf_counter() - started
    with sqlite3.connect(path) as conn:
        lite_counts = {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in copied}
    pg_counts = {}
    for t in copied:
        row = await pg.fetchrow(f'SELECT COUNT(*) FROM "{t}"')
        pg_counts[t] = int(row[0]) if row else -1
    counts_equal = lite_counts == pg_counts == copied
    rng = random.Random(seed + 7)
    ids = [g for g, _ in gen.guilds]
    servers = ids[:VERIFY_BIGGEST] + rng.sample(ids[VERIFY_BIGGEST:], VERIFY_SAMPLE)
    now_ms = int(NOW.timestamp() * 1000)
    sinces = (None, week_start_ms(now_ms), month_start_ms(now_ms))
    lite = await Storage.open(path)
    pg_standings = PgStandings(pg)
    unequal = []
    try:
        for guild in servers:
            for since in sinces:
                if await lite.standings.all_rows(guild, since) != await pg_standings.all_rows(
                    guild, since
                ):
                    unequal.append((guild, since))
    finally:
        await lite.close()
    print(
        f"copied {sum(copied.values()):,} rows in {copy_s:.1f} s (VACUUM ANALYZE {analyze_s:.1f} s);"
        f" counts equal: {counts_equal}; boards of {len(servers)} servers equal: {not unequal}",
        flush=True,
    )
    return {
        "seconds": copy_s,
        "analyze_seconds": analyze_s,
        "rows": copied,
        "counts_equal": counts_equal,
        "servers_compared": len(servers),
        "boards_unequal": unequal,
    }


async def read_side(
    service: QuizService, standings: StandingsContract, gen: Generated, *, samples: int, seed: int
) -> dict[str, Any]:
    """storage_scale's leaderboard and member_stats timings, over any backend."""
    rng = random.Random(seed + 1)
    anyone = [rng.choice(gen.members) for _ in range(samples)]
    biggest_id = gen.guilds[0][0]
    in_biggest = [m for m in gen.members if m[0] == biggest_id]
    big = [rng.choice(in_biggest) for _ in range(max(20, samples // 4))]
    results: dict[str, Any] = {}
    for label, callers in (("all servers", anyone), ("biggest server", big)):
        for period in ("week", "month", "all"):

            def board(g: int, u: int, p: str = period) -> Callable[[], Awaitable[object]]:
                return lambda: service.leaderboard(guild_id=g, user_id=u, period=p, page=0)  # type: ignore[arg-type]

            await timed([board(g, u) for g, u in callers[:20]])  # warm-up
            results[f"leaderboard {period}, {label}"] = summary_ms(
                await timed([board(g, u) for g, u in callers])
            )

        def stats(g: int, u: int) -> Callable[[], Awaitable[object]]:
            return lambda: standings.member_stats(g, u)

        await timed([stats(g, u) for g, u in callers[:20]])
        results[f"member_stats, {label}"] = summary_ms(
            await timed([stats(g, u) for g, u in callers])
        )
    return results


async def record_rate(
    posts: PostsContract,
    answers: AnswersContract,
    bank: Bank,
    gen: Generated,
    *,
    count: int,
    seed: int,
    in_flight: int,
) -> float:
    """Answers per second through `answers.record`, `in_flight` awaited at once, on new
    posts in the 20 biggest servers (the same plan on both backends for one seed)."""
    rng = random.Random(seed + 2)
    questions = list(bank)
    now_ms = int(NOW.timestamp() * 1000)
    made: list[tuple[Post, Question, list[tuple[int, int]]]] = []
    for guild_id, _ in gen.guilds[:20]:
        question = questions[rng.randrange(len(questions))]
        post = await posts.create(
            guild_id=guild_id,
            channel_id=gen.channel_of[guild_id],
            question_id=question.id,
            order=tuple(range(len(question.choices))),
            language="en",
            now_ms=now_ms,
        )
        made.append((post, question, [m for m in gen.members if m[0] == guild_id]))
    plan: list[tuple[Post, Question, int, int]] = []
    used: set[tuple[int, int]] = set()
    while len(plan) < count:
        post, question, members = made[len(plan) % len(made)]
        _, user = rng.choice(members)
        if (post.id, user) not in used:
            used.add((post.id, user))
            plan.append((post, question, user, rng.randrange(len(question.choices))))
    pending = iter(plan)

    async def clicker() -> None:
        for post, question, user, choice in pending:
            await answers.record(
                guild_id=post.guild_id,
                user_id=user,
                name=f"m{user % 1_000_000}",
                question=question,
                choice_index=choice,
                now_ms=now_ms,
                post_id=post.id,
            )

    started = time.perf_counter()
    await asyncio.gather(*(clicker() for _ in range(in_flight)))
    return count / (time.perf_counter() - started)


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    bank = load_bank()
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("no PostgreSQL binaries (apt-get install postgresql, or TPQUIZ_PG_BIN)")
    server = PgServer(bin_dir)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="tpquiz-pgscale-") as tmp:
        server.start()
        try:
            path = Path(tmp) / "big.sqlite3"
            create_base_schema(path)
            gen = generate(
                path,
                bank,
                guilds=args.guilds,
                members=args.members,
                answers=args.answers,
                seed=args.seed,
            )
            storage = await Storage.open(path)  # the newer migrations
            version = await storage.db.schema_version()
            await storage.close()
            print(
                f"generated {gen.answers:,} answers, {len(gen.members):,} members in"
                f" {len(gen.guilds):,} servers (schema {version}) in {gen.seconds:.1f} s",
                flush=True,
            )
            pg = await start_database(server)
            try:
                row = await pg.fetchrow("SHOW server_version")
                pg_version = str(row[0]) if row else "unknown"
                copy = await copy_and_verify(path, pg, gen, args.seed)
                reads: dict[str, dict[str, Any]] = {}
                storage = await Storage.open(path)
                try:
                    lite_service = QuizService(bank, storage, lambda: NOW, random.Random(1))
                    reads["sqlite"] = await read_side(
                        lite_service, storage.standings, gen, samples=args.samples, seed=args.seed
                    )
                    shim = _PgShim(pg)
                    pg_service = QuizService(
                        bank, cast(Storage, shim), lambda: NOW, random.Random(1)
                    )
                    reads["postgresql"] = await read_side(
                        pg_service, shim.standings, gen, samples=args.samples, seed=args.seed
                    )
                    print("reads timed", flush=True)
                    record: dict[str, dict[str, float]] = {"sqlite": {}, "postgresql": {}}
                    for in_flight in (1, RECORD_IN_FLIGHT):
                        record["sqlite"][str(in_flight)] = await record_rate(
                            storage.posts, storage.answers, bank, gen,
                            count=args.record, seed=args.seed, in_flight=in_flight,
                        )  # fmt: skip
                        record["postgresql"][str(in_flight)] = await record_rate(
                            PostStore(PgExecutor(pg)), PgAnswerStore(pg), bank, gen,
                            count=args.record, seed=args.seed, in_flight=in_flight,
                        )  # fmt: skip
                    print("recording timed", flush=True)
                finally:
                    await storage.close()
            finally:
                await pg.close()
        finally:
            server.stop()
    return {
        "generated": {
            "answers": gen.answers,
            "members": len(gen.members),
            "posts": gen.posts,
            "servers": len(gen.guilds),
            "biggest_server_members": gen.guilds[0][1],
            "seconds": gen.seconds,
        },
        "schema_version": version,
        "postgresql": pg_version,
        "load_average": {"start": load_before, "end": os.getloadavg()},
        "copy": copy,
        "reads_ms": reads,
        "record_per_s": record,
        "record_answers": args.record,
    }


def report(figures: dict[str, Any]) -> str:
    reads = figures["reads_ms"]
    rows: list[list[object]] = []
    for name in reads["sqlite"]:
        lite, pg = reads["sqlite"][name], reads["postgresql"][name]
        ok = "OK" if pg["p99"] < GOAL_P99_MS else "MISSED"
        rows.append([name, lite["p50"], lite["p99"], pg["p50"], pg["p99"], pg["max"], ok])
    headers = ["query (ms)", "SQLite p50", "SQLite p99", "PG p50", "PG p99", "PG max"]
    lines = [table([*headers, f"PG p99 < {GOAL_P99_MS:g} ms"], rows), ""]
    rec = figures["record_per_s"]
    lines.append(
        table(
            ["recording (answers/s)", "SQLite", "PostgreSQL", "PG/SQLite"],
            [
                [
                    f"{n} in flight",
                    rec["sqlite"][n],
                    rec["postgresql"][n],
                    rec["postgresql"][n] / rec["sqlite"][n],
                ]
                for n in rec["sqlite"]
            ],
        )
    )
    copy = figures["copy"]
    lines.append("")
    lines.append(
        f"copy: {sum(copy['rows'].values()):,} rows in {copy['seconds']:.1f} s, VACUUM ANALYZE"
        f" {copy['analyze_seconds']:.1f} s; rows per table equal: {copy['counts_equal']};"
        f" leaderboards of {copy['servers_compared']} servers equal:"
        f" {not copy['boards_unequal']}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = scale_arguments("tpquiz on PostgreSQL at a million answers")
    args = parse_scale_arguments(parser, argv)
    figures = asyncio.run(bench(args))
    g = figures["generated"]
    print()
    print(
        f"PostgreSQL and SQLite at {g['answers']:,} answers, {g['members']:,} members,"
        f" {g['servers']:,} servers (biggest {g['biggest_server_members']:,} members),"
        f" schema {figures['schema_version']}, on {machine_line()},"
        f" PostgreSQL {figures['postgresql']}"
    )
    load = figures["load_average"]
    print(
        "load average (1, 5, 15 min) at start: {:.2f} {:.2f} {:.2f}, at end: {:.2f} {:.2f} {:.2f}".format(
            *load["start"], *load["end"]
        )
    )
    print(report(figures))
    path = write_json("pg_scale", figures)
    print(f"figures written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
