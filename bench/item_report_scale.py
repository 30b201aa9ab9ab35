"""Item statistics at scale (issue #13), run by `bench.storage_scale` on its database.

* `tpquiz questions report` over every server: what the command does after loading the
  bank (read-only connection, the first answers, open reports, the figures, the
  printable rows). The path the command uses now (SQLite's per-member pass,
  `member_rows` + `bank_stats_member_rows`) against the one it used before
  (`first_answer_rows` + `bank_stats_rows`), run alternately in the same run, and the
  straightforward definition (`first_answers` + `bank_stats`) once, after checking that
  the new path gives exactly its figures;
* the periodic refresh (`ItemStatsService.refresh_due`, what cogs/item_refresh.py runs)
  until every server has a summary: ticks, the longest tick, the time in all;
* the admin view (`ItemStatsService.server_stats`, what `/tpquiz-admin questions`
  reads): from the summary, for servers drawn by member count (so big servers weigh as
  they would) and for the biggest server; against the old on-demand computation
  (`first_answer_rows` + `bank_stats_rows` for one server) in the same run.
"""

from __future__ import annotations

import random
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import summary_ms
from bot.cli.stats import report_rows
from bot.quiz.itemstats import Item, ItemStats, bank_stats, item_of
from bot.quiz.itemstats_fast import bank_stats_member_rows, bank_stats_rows
from bot.quiz.model import Bank
from bot.services.items import ItemStatsService
from bot.services.quiz import QuizService
from bot.storage.sqlite import Storage
from bot.storage.sqlite.itemstats import (
    first_answer_rows,
    first_answers,
    has_table,
    member_rows,
    open_readonly,
)
from bot.storage.sqlite.reports import open_counts

GOAL_REPORT_S = 5.0
GOAL_SERVER_P99_MS = 50.0
#: The three ways to the same figures.
NEW, OLD, STRAIGHT = "new", "old", "straightforward"


def _stats(
    conn: sqlite3.Connection, items: list[Item], guild: int | None, path: str
) -> list[ItemStats]:
    reports = open_counts(conn, guild) if has_table(conn, "reports") else {}
    if path == NEW:
        return bank_stats_member_rows(items, member_rows(conn, guild), reports)
    if path == OLD:
        return bank_stats_rows(items, first_answer_rows(conn, guild), reports)
    return bank_stats(items, first_answers(conn, guild), reports)


def report_once(path: Path, bank: Bank, items: list[Item], guild: int | None, way: str) -> float:
    """Seconds for one report (connection opened and closed, as the command does)."""
    started = time.perf_counter()
    conn = open_readonly(path)
    try:
        report_rows(_stats(conn, items, guild, way), bank)
    finally:
        conn.close()
    return time.perf_counter() - started


async def item_report_side(
    path: Path,
    bank: Bank,
    guilds: list[tuple[int, int]],
    *,
    runs: int,
    samples: int,
    seed: int,
) -> dict[str, Any]:
    """Report, refresh and view timings; `guilds` is (id, members), biggest first."""
    items = [item_of(q) for q in bank]
    conn = open_readonly(path)
    try:  # the figures must not change: compare the paths once, untimed
        expected = _stats(conn, items, None, STRAIGHT)
        same = _stats(conn, items, None, NEW) == expected == _stats(conn, items, None, OLD)
    finally:
        conn.close()
    new, old = [], []
    for _ in range(runs):  # alternately, so both see the same load
        new.append(report_once(path, bank, items, None, NEW))
        old.append(report_once(path, bank, items, None, OLD))
    plain = [report_once(path, bank, items, None, STRAIGHT)]

    storage = await Storage.open(path)
    try:
        clock = lambda: datetime(2026, 12, 2, 9, tzinfo=UTC)  # noqa: E731
        quiz = QuizService(bank, storage, clock, random.Random(seed))
        service = ItemStatsService(quiz)
        trips = _time_trips(storage)
        ticks: list[float] = []
        refreshed = 0
        started = time.perf_counter()
        while await service.due():
            tick = time.perf_counter()
            refreshed += len(await service.refresh_due(1_796_202_000_000))
            ticks.append(time.perf_counter() - tick)
        refresh_s = time.perf_counter() - started
        longest_trip = max(trips)
        rng = random.Random(seed + 3)
        drawn = rng.choices([g for g, _ in guilds], weights=[n for _, n in guilds], k=samples)
        biggest = guilds[0][0]
        view = await service.server_stats(biggest)  # and the summary gives the same figures
        same_view = view.as_of_ms is not None and view.stats == (
            await service.compute(biggest, await storage.db.run_read(
                lambda c: open_counts(c, biggest)))
        )  # fmt: skip
        for g in drawn[:10]:  # warm-up
            await service.server_stats(g)
        per_server, per_biggest = [], []
        for g in drawn:
            t = time.perf_counter()
            await service.server_stats(g)
            per_server.append(time.perf_counter() - t)
        for _ in range(max(20, samples // 5)):
            t = time.perf_counter()
            await service.server_stats(biggest)
            per_biggest.append(time.perf_counter() - t)
    finally:
        await storage.close()
    # The old on-demand view, fewer samples (a big server takes a second each).
    old_drawn = drawn[: max(20, samples // 4)]
    old_server = [report_once(path, bank, items, g, OLD) for g in old_drawn]
    old_biggest = [report_once(path, bank, items, biggest, OLD) for _ in range(10)]
    return {
        "same_figures": same,
        "summary_same_figures": same_view,
        "report_all_servers_ms": summary_ms(new),
        "report_all_servers_old_ms": summary_ms(old),
        "report_all_servers_straightforward_ms": summary_ms(plain),
        "refresh": {
            "servers": refreshed,
            "ticks": len(ticks),
            "longest_tick_s": max(ticks) if ticks else 0.0,
            "seconds": refresh_s,
            "longest_trip_ms": longest_trip * 1000,
        },
        "per_server_ms": summary_ms(per_server),
        "per_server_biggest_ms": summary_ms(per_biggest),
        "per_server_old_ms": summary_ms(old_server),
        "per_server_biggest_old_ms": summary_ms(old_biggest),
        "biggest_server_members": guilds[0][1],
    }


def _time_trips(storage: Storage) -> list[float]:
    """Time every trip to the database thread from now on (what a click waits behind
    while the refresh runs): the instance's run_read and run_transaction wrapped."""
    trips: list[float] = []
    db = storage.db
    read, write = db.run_read, db.run_transaction

    async def timed_read(work: Any) -> Any:
        t = time.perf_counter()
        try:
            return await read(work)
        finally:
            trips.append(time.perf_counter() - t)

    async def timed_write(work: Any) -> Any:
        t = time.perf_counter()
        try:
            return await write(work)
        finally:
            trips.append(time.perf_counter() - t)

    db.run_read = timed_read  # type: ignore[method-assign]
    db.run_transaction = timed_write  # type: ignore[method-assign]
    return trips


def item_report_rows(figures: dict[str, Any]) -> list[list[object]]:
    """Rows for `bench.common.table`: name, p50, p99, max, goal met."""
    rows: list[list[object]] = []
    for key, name, goal in (
        ("report_all_servers_ms", "questions report, every server (SQLite per-member pass)",
         GOAL_REPORT_S * 1000),
        ("report_all_servers_old_ms", "questions report, before (Python per-member pass)", None),
        ("report_all_servers_straightforward_ms", "questions report, straightforward", None),
        ("per_server_ms", "admin view from the summary, servers by size", GOAL_SERVER_P99_MS),
        ("per_server_biggest_ms", "admin view from the summary, biggest server",
         GOAL_SERVER_P99_MS),
        ("per_server_old_ms", "admin view on demand (before), servers by size", None),
        ("per_server_biggest_old_ms", "admin view on demand (before), biggest server", None),
    ):  # fmt: skip
        s = figures[key]
        ok = "" if goal is None else ("OK" if s["p99"] < goal else "MISSED")
        rows.append([name, s["p50"], s["p99"], s["max"], ok])
    return rows
