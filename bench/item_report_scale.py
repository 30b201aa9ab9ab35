"""Item statistics at scale (issue #13), run by `bench.storage_scale` on its database.

* `tpquiz questions report` over every server: what the command does after loading the
  bank (read-only connection, one pass over the first answers, open reports, the
  figures, the printable rows), through the fast path the command uses
  (`first_answer_rows` + `bank_stats_rows`), against the straightforward definition
  (`first_answers` + `bank_stats`) in the same run as the baseline;
* the per-server view (one server's item statistics, what `/tpquiz-admin questions`
  reads): servers drawn by member count (so big servers weigh as they would), and
  separately the biggest server.

The figures are computed on demand, not kept as summaries: the corrected point-biserial
of every question a member answered changes with each of their answers (their accuracy
on their other answers moves), so a summary would have to be rewritten for every
question on every click.
"""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path
from typing import Any

from bench.common import summary_ms
from bot.quiz.itemstats import Item, ItemStats, bank_stats, item_of
from bot.quiz.itemstats_fast import bank_stats_rows
from bot.quiz.model import Bank
from bot.stats_commands import report_rows
from bot.storage.itemstats import first_answer_rows, first_answers, has_table, open_readonly
from bot.storage.reports import open_counts

GOAL_REPORT_S = 5.0
GOAL_SERVER_P99_MS = 50.0


def _stats(
    conn: sqlite3.Connection, items: list[Item], guild: int | None, fast: bool
) -> list[ItemStats]:
    reports = open_counts(conn, guild) if has_table(conn, "reports") else {}
    if fast:
        return bank_stats_rows(items, first_answer_rows(conn, guild), reports)
    return bank_stats(items, first_answers(conn, guild), reports)


def report_once(path: Path, bank: Bank, items: list[Item], guild: int | None, fast: bool) -> float:
    """Seconds for one report (connection opened and closed, as the command does)."""
    started = time.perf_counter()
    conn = open_readonly(path)
    try:
        report_rows(_stats(conn, items, guild, fast), bank)
    finally:
        conn.close()
    return time.perf_counter() - started


def item_report_side(
    path: Path,
    bank: Bank,
    guilds: list[tuple[int, int]],
    *,
    runs: int,
    samples: int,
    seed: int,
) -> dict[str, Any]:
    """Report and per-server timings; `guilds` is (id, members), biggest first."""
    items = [item_of(q) for q in bank]
    conn = open_readonly(path)
    try:  # the figures must not change: compare the two paths once, untimed
        same = _stats(conn, items, None, True) == _stats(conn, items, None, False)
    finally:
        conn.close()
    fast = [report_once(path, bank, items, None, True) for _ in range(runs)]
    plain = [report_once(path, bank, items, None, False)]
    rng = random.Random(seed + 3)
    drawn = rng.choices([g for g, _ in guilds], weights=[n for _, n in guilds], k=samples)
    for g in drawn[:10]:  # warm-up
        report_once(path, bank, items, g, True)
    per_server = [report_once(path, bank, items, g, True) for g in drawn]
    biggest = [
        report_once(path, bank, items, guilds[0][0], True) for _ in range(max(20, samples // 5))
    ]
    return {
        "same_figures": same,
        "report_all_servers_ms": summary_ms(fast),
        "report_all_servers_straightforward_ms": summary_ms(plain),
        "per_server_ms": summary_ms(per_server),
        "per_server_biggest_ms": summary_ms(biggest),
        "biggest_server_members": guilds[0][1],
    }


def item_report_rows(figures: dict[str, Any]) -> list[list[object]]:
    """Rows for `bench.common.table`: name, p50, p99, max, goal met."""
    rows: list[list[object]] = []
    for key, name, goal in (
        (
            "report_all_servers_ms",
            "questions report, every server (fast path)",
            GOAL_REPORT_S * 1000,
        ),
        (
            "report_all_servers_straightforward_ms",
            "questions report, straightforward (baseline)",
            None,
        ),
        ("per_server_ms", "one server's item statistics, servers by size", GOAL_SERVER_P99_MS),
        (
            "per_server_biggest_ms",
            "one server's item statistics, biggest server",
            GOAL_SERVER_P99_MS,
        ),
    ):
        s = figures[key]
        ok = "" if goal is None else ("OK" if s["p99"] < goal else "MISSED")
        rows.append([name, s["p50"], s["p99"], s["max"], ok])
    return rows
