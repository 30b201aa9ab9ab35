"""What a trip to the database thread costs, and what group commit saves per click.

docs/performance.md 1 explains the click path by these figures: every statement sent
through aiosqlite is a round trip between the event loop and aiosqlite's thread, and
`Database.call` (the database's own thread, for plain sqlite3 work) is one too; a click
used to be one transaction of its own (BEGIN IMMEDIATE, its statements, COMMIT), now it
shares one with the clicks in flight beside it (bot/storage/sqlite/group_commit.py).

Measured, in one process, on a real file in a temporary directory, each as the median
of `--repeat` runs:

* `aiosqlite SELECT 1`: one statement through aiosqlite (one trip);
* `Database.call no-op`: one trip to the database's own thread, no SQL;
* `run_transaction, empty`: BEGIN IMMEDIATE .. COMMIT, one trip, the write lock;
* `click, 1 in flight`: one `AnswerStore.record` at a time (a batch of one);
* `click, N in flight`: N awaited together, per click (batches form by themselves);
* `click SQL alone`: `record_click` run directly on a plain sqlite3 connection in one
  transaction per click, the SQL floor without asyncio or a thread.

    .venv/bin/python -m bench.db_trips            # about 20 s
    .venv/bin/python -m bench.db_trips --quick
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench.common import machine_line, table, write_json
from bot.quiz.model import Question
from bot.storage.click_read import Click
from bot.storage.sqlite import Storage
from bot.storage.sqlite.clicks import record_click
from tests.factories import make_bank

GUILD = 42


async def _per_op(n: int, op: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    for _ in range(n):
        await op()
    return (time.perf_counter() - started) / n * 1e6


async def _clicks(
    storage: Storage, question: Question, post_id: int, first_user: int, n: int, in_flight: int
) -> float:
    users = iter(range(first_user, first_user + n))

    async def clicker() -> None:
        for user in users:
            await storage.answers.record(
                guild_id=GUILD,
                user_id=user,
                name="m",
                question=question,
                choice_index=user % 4,
                now_ms=1_700_000_000_000,
                post_id=post_id,
            )

    started = time.perf_counter()
    await asyncio.gather(*(clicker() for _ in range(in_flight)))
    return (time.perf_counter() - started) / n * 1e6


def _sql_alone(path: Path, question: Question, post_id: int, first_user: int, n: int) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous = NORMAL")
        started = time.perf_counter()
        for user in range(first_user, first_user + n):
            conn.execute("BEGIN IMMEDIATE")
            record_click(
                conn,
                Click(GUILD, user, "m", question, user % 4, 1_700_000_000_000, post_id=post_id),
            )
            conn.execute("COMMIT")
        return (time.perf_counter() - started) / n * 1e6
    finally:
        conn.close()


async def measure(n: int, repeat: int, in_flight: list[int]) -> dict[str, float]:
    question = make_bank()["mlp-split-01"]
    runs: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trips.sqlite3"
        storage = await Storage.open(path)
        try:
            post = await storage.posts.create(
                guild_id=GUILD,
                channel_id=1,
                question_id=question.id,
                order=(0, 1, 2, 3),
                language="en",
                now_ms=0,
            )
            db = storage.db
            user = 1
            for _ in range(repeat):

                async def select() -> None:
                    async with db.conn.execute("SELECT 1") as cur:
                        await cur.fetchone()

                runs.setdefault("aiosqlite SELECT 1", []).append(await _per_op(n, select))
                runs.setdefault("Database.call no-op", []).append(
                    await _per_op(n, lambda: db.call(lambda conn: None))
                )
                runs.setdefault("run_transaction, empty", []).append(
                    await _per_op(n, lambda: db.run_transaction(lambda conn: None))
                )
                for k in in_flight:
                    runs.setdefault(f"click, {k} in flight (per click)", []).append(
                        await _clicks(storage, question, post.id, user, n, k)
                    )
                    user += n
                runs.setdefault("click SQL alone, one transaction each", []).append(
                    await asyncio.to_thread(_sql_alone, path, question, post.id, user, n)
                )
                user += n
        finally:
            await storage.close()
    return {name: statistics.median(values) for name, values in runs.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="cost of a trip to the database thread")
    parser.add_argument("--ops", type=int, default=2_000, help="operations per run")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--in-flight", type=int, nargs="+", default=[1, 8, 32, 128])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.ops, args.repeat = 300, 2
    figures = asyncio.run(measure(args.ops, args.repeat, args.in_flight))
    print(machine_line())
    print(table(["operation", "µs each (median of runs)"], [[k, v] for k, v in figures.items()]))
    write_json("db_trips", {"ops": args.ops, "repeat": args.repeat, "us": figures})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
