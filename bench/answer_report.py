"""The answer-path bench's table and verdict, from the rounds it measured.

Kept apart from `bench/answer_path.py` (which runs the processes) so that the figures
can be reprinted from a saved JSON file (`--from-json`) and the verdict, which decides
whether a goal of issue 11 is met, can be unit-tested on made-up rounds.

Which rounds count: a load is "disturbed" when other processes used more than
`bench.quiet.DISTURBED_CORES` cores while it ran (or, open loop, when the click
generator fell behind its schedule). The median of a load uses the clean rounds when
there is at least one, all rounds otherwise, and the table says how many were disturbed.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from bench.common import table

#: Goals of issue 11 (tpquiz against the bare discord.py bot, same run).
GOAL_THROUGHPUT_RATIO = 0.8
GOAL_P99_RATIO = 2.0
GOAL_CPU_RATIO = 1.3
#: The bare bot's main thread must be this busy at the throughput load, or the click
#: generator was the limit and the throughput ratio flatters the slower bot.
SATURATED_BUSY = 0.95
THROUGHPUT_CONCURRENCY = 32
GOAL_RATE = 200.0
#: An open-loop round whose generator ran later than this was disturbed.
LATE_OK_MS = 20.0
BASELINE = "baseline"
#: The fair floor (issue 30): the bare bot sending tpquiz's own answer embed and report
#: button, so that the reply's size and shape are the same. The text baseline is kept
#: only as a second reference: a one-line reply hides part of the reply's cost.
FLOOR = "baseline-embed"


def baseline_of(name: str, med: dict[str, Any] | None = None) -> str:
    """The bare bot a tpquiz bot is compared with, on the same event loop: the embed
    floor when it ran (`med` holds it, or no `med` is given), else the text baseline."""
    suffix = "+uvloop" if name.endswith("+uvloop") else ""
    if med is None or FLOOR + suffix in med:
        return FLOOR + suffix
    return BASELINE + suffix


def second_reference(name: str, med: dict[str, Any]) -> str | None:
    """The text baseline, when it ran beside the floor: a second ratio column."""
    suffix = "+uvloop" if name.endswith("+uvloop") else ""
    if FLOOR + suffix in med and BASELINE + suffix in med:
        return BASELINE + suffix
    return None


def per_click_ms(run: dict[str, Any], seconds: float) -> float:
    return 1000 * seconds / max(1, run["answered"])


def disturbed(run: dict[str, Any]) -> bool:
    """Whether other load (or a late generator) disturbed this load of one round."""
    return bool(run.get("disturbed")) or run.get("sender_lag_max_ms", 0.0) > LATE_OK_MS


def rounds_disturbed(rounds: dict[str, list[dict[str, Any]]]) -> tuple[int, int]:
    """(disturbed, total) rounds: a round is disturbed when any load of any bot was."""
    total = min((len(runs) for runs in rounds.values()), default=0)
    bad = sum(
        any(
            disturbed(load)
            for runs in rounds.values()
            for load in runs[i].values()
            if isinstance(load, dict)
        )
        for i in range(total)
    )
    return bad, total


def median_runs(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per load: the median over rounds (clean rounds if any) of each figure."""
    merged: dict[str, Any] = {}
    loads = [k for k in runs[0] if isinstance(runs[0][k], dict)]
    for key in loads:
        every = [r[key] for r in runs if key in r]
        clean = [r for r in every if not disturbed(r)]
        used = clean or every

        def med(get: Callable[[dict[str, Any]], float], used: list[dict[str, Any]] = used) -> float:
            return statistics.median(get(r) for r in used)

        merged[key] = {
            "rounds_used": len(used),
            "rounds_disturbed": len(every) - len(clean),
            "clicks_per_s": med(lambda r: r["clicks_per_s"]),
            "main_busy": med(lambda r: r.get("bot_main_busy", float("nan"))),
            "main_waiting": med(lambda r: r.get("bot_main_waiting", float("nan"))),
            "other_cores": med(lambda r: r.get("other_cores", float("nan"))),
            "latency_ms": {
                q: statistics.median(r["latency_ms"][q] for r in used)
                for q in ("p50", "p95", "p99", "max")
            },
            "cpu_ms_per_click": med(lambda r: per_click_ms(r, r["bot_cpu_s"])),
            "main_thread_ms_per_click": med(
                lambda r: per_click_ms(r, r["bot_thread_cpu_s"]["main"])
            ),
            "generator_late_ms": med(lambda r: r["sender_lag_max_ms"]),
            "loopback_ms_per_click": med(lambda r: per_click_ms(r, r["loopback_cpu_s"])),
            "db_server_ms_per_click": med(lambda r: per_click_ms(r, r.get("db_server_cpu_s", 0.0))),
            "reply_body_bytes": med(lambda r: r.get("reply_body_bytes", 0.0)),
            "sent": sum(r["sent"] for r in every),
            "lost": sum(r["lost"] for r in every),
            "deferred": sum(r["callback_types"].get("5", 0) for r in every),
            "non_200": sum(n for r in every for s, n in r["statuses"].items() if s != "200"),
        }
    merged["exit_statuses"] = [r.get("exit_status") for r in runs]
    return merged


def load_names(med: dict[str, Any]) -> list[str]:
    first = next(iter(med.values()))
    return [k for k in first if isinstance(first[k], dict)]


_FIGURES: list[tuple[str, Callable[[dict[str, Any]], float], bool]] = [
    # (label, getter, whether a tpquiz/baseline ratio column makes sense)
    ("clicks/s", lambda r: r["clicks_per_s"], True),
    ("main thread busy %", lambda r: 100 * r["main_busy"], False),
    ("main thread waiting for CPU %", lambda r: 100 * r["main_waiting"], False),
    ("p50 ms", lambda r: r["latency_ms"]["p50"], True),
    ("p99 ms", lambda r: r["latency_ms"]["p99"], True),
    ("CPU ms/click", lambda r: r["cpu_ms_per_click"], True),
    ("main thread ms/click", lambda r: r["main_thread_ms_per_click"], True),
    ("loopback CPU ms/click", lambda r: r["loopback_ms_per_click"], False),
    # PostgreSQL's server processes (`--backends postgresql`); 0 for SQLite and bare bots.
    ("database server CPU ms/click", lambda r: r.get("db_server_ms_per_click", 0.0), False),
    ("other load, cores", lambda r: r["other_cores"], False),
    # The reply bodies compared: tpquiz's (which differ per member) and the floor's.
    ("reply body bytes (median)", lambda r: r.get("reply_body_bytes", 0.0), False),
]

#: Rows left out when every bot's figure is 0 (a run without PostgreSQL).
_ONLY_IF_ANY = {"database server CPU ms/click"}


def report(med: dict[str, Any], order: Sequence[str]) -> str:
    """The Markdown table: one row per (load, figure), one column per bot, then the
    ratio of each tpquiz to the bare bot."""
    names = [n for n in order if n in med]
    # (tpquiz bot, bare bot): the floor first, then the text baseline as a second reference.
    ratio_cols = [(n, baseline_of(n, med)) for n in names if n.startswith("tpquiz")]
    ratio_cols = [(n, b) for n, b in ratio_cols if b in med]
    ratio_cols += [
        (n, ref)
        for n in names
        if n.startswith("tpquiz") and (ref := second_reference(n, med)) is not None
    ]
    headers = ["load", "figure", *names, *(f"{n}/{b}" for n, b in ratio_cols)]
    blank = [""] * len(ratio_cols)
    rows: list[list[object]] = []
    for load in load_names(med):
        for label, get, ratio in _FIGURES:
            values = [get(med[n][load]) for n in names]
            if label in _ONLY_IF_ANY and not any(values):
                continue
            row: list[object] = [load, label, *values]
            if ratio:
                row += [get(med[n][load]) / get(med[b][load]) for n, b in ratio_cols]
            else:
                row += blank
            rows.append(row)
        rows.append(
            [
                load,
                "rounds used (disturbed)",
                *(
                    f"{med[n][load]['rounds_used']} ({med[n][load]['rounds_disturbed']})"
                    for n in names
                ),
                *blank,
            ]
        )
        rows.append(
            [
                load,
                "lost/sent, deferred",
                *(
                    f"{med[n][load]['lost']}/{med[n][load]['sent']}, {med[n][load]['deferred']}"
                    for n in names
                ),
                *blank,
            ]
        )
    return table(headers, rows)


def verdict(med: dict[str, Any], answers: dict[str, tuple[int, int]] | None = None) -> list[str]:
    """One line per goal of issue 11 and per tpquiz bot; `answers` maps a tpquiz bot to
    (answers in its database, clicks it answered). Warns when a bare bot was not
    saturated at the throughput load, since the ratio then means little."""
    bases = [n for n in med if n in (FLOOR, FLOOR + "+uvloop")] or [
        n for n in med if n in (BASELINE, BASELINE + "+uvloop")
    ]
    if not bases:
        return ["(no bare bot in this run: no verdict)"]
    lines = []
    closed = f"closed_c{THROUGHPUT_CONCURRENCY}"
    opened = f"open_{GOAL_RATE:g}"
    for b in bases:
        if closed not in med[b]:
            continue
        busy = med[b][closed]["main_busy"]
        if not busy >= SATURATED_BUSY:
            lines.append(
                f"WARNING: {b}'s main thread was {busy:.0%} busy at"
                f" {THROUGHPUT_CONCURRENCY} in flight (< {SATURATED_BUSY:.0%}): the click"
                " generator or the machine, not the bot, was the limit; the throughput ratio"
                " is not meaningful"
            )
        else:
            lines.append(
                f"{b}'s main thread {busy:.0%} busy at {THROUGHPUT_CONCURRENCY} in flight"
                f" (>= {SATURATED_BUSY:.0%}): saturated, the ratio is meaningful"
            )
    for name in (n for n in med if n.startswith("tpquiz")):
        tp = med[name]
        floor = baseline_of(name, med)
        base = med.get(floor)
        if base is not None:
            lines += _against_baseline(name, tp, base, closed, opened, floor)
        series = [
            (int(k.removeprefix("closed_c")), tp[k]["clicks_per_s"])
            for k in tp
            if k.startswith("closed_c")
        ]
        if len(series) > 1:
            series.sort()
            grows = all(b[1] > a[1] for a, b in zip(series, series[1:], strict=False))
            lines.append(
                f"{name}: clicks/s by clicks in flight "
                + ", ".join(f"{c}: {v:.0f}" for c, v in series)
                + (" (grows at every step)" if grows else " (does not grow at every step)")
            )
        loads = [v for v in tp.values() if isinstance(v, dict)]
        lost = sum(v["lost"] for v in loads)
        deferred = sum(v["deferred"] for v in loads)
        line = f"{name}: {lost} lost, {deferred} deferred (goal 0 and 0)"
        line += f" {_ok(lost == 0 and deferred == 0)}"
        if answers and name in answers:
            in_db, answered = answers[name]
            line += f"; answers in the database {in_db} of {answered} answered clicks"
            line += " OK" if in_db == answered else " MISMATCH"
        lines.append(line)
    return lines


def _against_baseline(
    name: str, tp: dict[str, Any], base: dict[str, Any], closed: str, opened: str, floor: str
) -> list[str]:
    """The throughput, p99 and CPU goals of one tpquiz bot against its bare bot (`floor`),
    and the two reply bodies' sizes, which must be comparable for the ratios to mean much."""
    lines = [f"{name}: compared with {floor}"]
    load = closed if closed in tp and closed in base else opened
    if load in tp and load in base:
        size, base_size = tp[load].get("reply_body_bytes", 0), base[load].get("reply_body_bytes", 0)
        lines.append(
            f"{name}: reply body {size:.0f} bytes, {floor}'s {base_size:.0f} bytes"
            + (f" ({size / base_size:.2f}x)" if base_size else "")
        )
    if closed in tp and closed in base:
        ratio = tp[closed]["clicks_per_s"] / base[closed]["clicks_per_s"]
        lines.append(
            f"{name}: throughput at {THROUGHPUT_CONCURRENCY} in flight {ratio:.2f}x the bare"
            f" bot (goal >= {GOAL_THROUGHPUT_RATIO}) {_ok(ratio >= GOAL_THROUGHPUT_RATIO)}"
        )
    if opened in tp and opened in base:
        p99, base_p99 = tp[opened]["latency_ms"]["p99"], base[opened]["latency_ms"]["p99"]
        ratio = p99 / base_p99
        lines.append(
            f"{name}: p99 at {GOAL_RATE:g} clicks/s {p99:.1f} ms, {ratio:.2f}x the bare bot's"
            f" {base_p99:.1f} ms (goal <= {GOAL_P99_RATIO:g}x) {_ok(ratio <= GOAL_P99_RATIO)}"
        )
        cpu, base_cpu = tp[opened]["cpu_ms_per_click"], base[opened]["cpu_ms_per_click"]
        ratio = cpu / base_cpu
        lines.append(
            f"{name}: CPU per click at {GOAL_RATE:g} clicks/s {cpu:.2f} ms, {ratio:.2f}x the"
            f" bare bot's {base_cpu:.2f} ms (goal <= {GOAL_CPU_RATIO}x)"
            f" {_ok(ratio <= GOAL_CPU_RATIO)}"
        )
    return lines


def _ok(ok: bool) -> str:
    return "OK" if ok else "MISSED"
