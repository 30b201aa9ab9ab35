"""The answer-path bench's pure helpers: frame templates, other-load arithmetic, verdict.

The bench itself is not run here (it measures; tests must not time anything), but the
pieces that decide what it sends and what it concludes are plain functions.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from bench.answer_report import baseline_of, median_runs, report, rounds_disturbed, verdict
from bench.fast_loopback import FrameTemplate, check_value, sentinel, slot_format
from bench.quiet import machine_busy_seconds, other_cores


def test_frame_template_fills_every_slot_and_keeps_braces() -> None:
    frame = {
        "op": 0,
        "s": sentinel("S"),
        "d": {
            "id": sentinel("I"),
            "token": sentinel("T"),
            "member": {"user": {"id": sentinel("U"), "username": sentinel("N")}},
            "note": 'a {brace} and a "quote"',
        },
    }
    text = FrameTemplate(frame).render(S=7, I="123", T="tok_-9", U="456", N="m456")
    assert json.loads(text) == {
        "op": 0,
        "s": 7,
        "d": {
            "id": "123",
            "token": "tok_-9",
            "member": {"user": {"id": "456", "username": "m456"}},
            "note": 'a {brace} and a "quote"',
        },
    }


def test_slot_format_refuses_a_fragment_that_is_not_there() -> None:
    with pytest.raises(ValueError, match="does not occur"):
        slot_format({"a": 1}, {'"@@X@@"': "{X}"})


@pytest.mark.parametrize("value", ['a"b', "a\\b", "{x}", "é", "a\nb"])
def test_check_value_refuses_what_would_need_escaping(value: str) -> None:
    with pytest.raises(ValueError):
        check_value(value)


def test_check_value_passes_ids_tokens_and_names() -> None:
    assert check_value("aW50ZXJhY3Rpb246_x-Y") == "aW50ZXJhY3Rpb246_x-Y"


def test_machine_busy_counts_all_but_idle_and_iowait() -> None:
    stat = "cpu  100 10 50 1000 40 5 5 0 0 0\ncpu0 1 1 1 1 1 1 1 1 0 0\n"
    ticks = 100 + 10 + 50 + 5 + 5 + 0
    assert machine_busy_seconds(stat) == ticks / os.sysconf("SC_CLK_TCK")


def test_other_cores_is_what_is_not_ours_and_never_negative() -> None:
    assert other_cores(3.0, 1.0, 2.0) == 1.0
    assert other_cores(1.0, 1.5, 2.0) == 0.0
    assert other_cores(1.0, 0.0, 0.0) == 0.0


def _load(
    clicks_per_s: float, p99: float, cpu_s: float, busy: float, **extra: Any
) -> dict[str, Any]:
    return {
        "sent": 100,
        "answered": 100,
        "lost": 0,
        "clicks_per_s": clicks_per_s,
        "latency_ms": {"p50": p99 / 2, "p95": p99, "p99": p99, "max": p99},
        "callback_types": {"4": 100},
        "statuses": {"200": 100},
        "bot_cpu_s": cpu_s,
        "bot_thread_cpu_s": {"main": cpu_s, "other_threads": 0.0},
        "loopback_cpu_s": 0.01,
        "sender_lag_max_ms": 0.0,
        "bot_main_busy": busy,
        "bot_main_waiting": 0.0,
        "other_cores": 0.0,
        **extra,
    }


def _round(c32: float, p99: float, cpu_s: float, busy: float, **extra: Any) -> dict[str, Any]:
    return {
        "closed_c8": _load(c32 / 2, p99, cpu_s, busy, **extra),
        "closed_c32": _load(c32, p99, cpu_s, busy, **extra),
        "open_200": _load(200, p99, cpu_s, busy / 2, **extra),
        "exit_status": 0,
    }


def test_verdict_passes_a_tpquiz_close_to_a_saturated_bare_bot() -> None:
    med = {
        "tpquiz": median_runs([_round(1700, 10.0, 0.12, 0.97)]),
        "baseline": median_runs([_round(2000, 6.0, 0.10, 0.98)]),
    }
    lines = verdict(med, {"tpquiz": (500, 500)})
    assert not any("WARNING" in line for line in lines)
    assert not any("MISSED" in line for line in lines), lines
    assert any("0.85x" in line and "OK" in line for line in lines)
    assert any("grows at every step" in line for line in lines)
    assert lines[-1].endswith("OK")


def test_verdict_warns_when_the_bare_bot_was_not_saturated_and_misses_goals() -> None:
    med = {
        "tpquiz": median_runs([_round(500, 30.0, 0.30, 0.60)]),
        "baseline": median_runs([_round(1000, 6.0, 0.10, 0.70)]),
    }
    lines = verdict(med, {"tpquiz": (499, 500)})
    assert lines[0].startswith("WARNING: baseline's main thread was 70% busy")
    assert sum("MISSED" in line for line in lines) == 3  # throughput, p99, CPU
    assert lines[-1].endswith("MISMATCH")


def test_medians_prefer_clean_rounds_and_count_disturbed_ones() -> None:
    clean = _round(1000, 5.0, 0.1, 0.96)
    busy = _round(400, 50.0, 0.2, 0.50, disturbed=True)
    merged = median_runs([busy, clean, busy])
    assert merged["closed_c32"]["clicks_per_s"] == 1000
    assert merged["closed_c32"]["rounds_disturbed"] == 2
    assert merged["closed_c32"]["rounds_used"] == 1
    assert rounds_disturbed({"tpquiz": [busy, clean, busy], "baseline": [clean] * 3}) == (2, 3)


def test_a_tpquiz_on_uvloop_is_compared_with_the_bare_bot_on_uvloop() -> None:
    med = {
        "tpquiz+uvloop": median_runs([_round(900, 10.0, 0.12, 0.97)]),
        "baseline": median_runs([_round(2000, 6.0, 0.10, 0.98)]),
        "baseline+uvloop": median_runs([_round(1000, 6.0, 0.10, 0.98)]),
    }
    lines = verdict(med)
    assert "tpquiz+uvloop: throughput at 32 in flight 0.90x the bare bot (goal >= 0.8) OK" in lines
    assert sum("saturated" in line for line in lines) == 2


def test_the_database_server_row_shows_only_for_a_bot_on_postgresql() -> None:
    sqlite_only = {
        "tpquiz": median_runs([_round(1500, 10.0, 0.12, 0.97)]),
        "baseline": median_runs([_round(2000, 6.0, 0.10, 0.98)]),
    }
    assert "database server CPU" not in report(sqlite_only, ["tpquiz", "baseline"])
    on_pg = dict(sqlite_only, **{"tpquiz+pg": median_runs([_round(500, 9.0, 0.3, 0.9)])})
    on_pg["tpquiz+pg"]["closed_c32"]["db_server_ms_per_click"] = 1.25
    rows = [
        line
        for line in report(on_pg, ["tpquiz", "tpquiz+pg", "baseline"]).splitlines()
        if "closed_c32" in line and "database server CPU" in line
    ]
    assert len(rows) == 1 and "1.25" in rows[0]


def test_a_bot_on_postgresql_is_compared_with_the_bare_bot() -> None:
    text_only = {"baseline": {}, "baseline+uvloop": {}}
    assert baseline_of("tpquiz+pg", text_only) == "baseline"
    assert baseline_of("tpquiz+pg+uvloop", text_only) == "baseline+uvloop"
    both = {**text_only, "baseline-embed": {}}
    assert baseline_of("tpquiz+pg", both) == "baseline-embed"


def test_the_embed_floor_is_the_comparison_and_the_text_baseline_a_second_reference() -> None:
    """Issue 30: the bare bot sending tpquiz's own embed is the fair floor; the verdict
    judges against it and says both reply bodies' sizes; the text reply keeps a column."""
    med = {
        "tpquiz": median_runs([_round(900, 10.0, 0.12, 0.97)]),
        "baseline": median_runs([_round(2000, 6.0, 0.10, 0.98)]),
        "baseline-embed": median_runs([_round(1000, 6.0, 0.10, 0.98)]),
    }
    med["tpquiz"]["closed_c32"]["reply_body_bytes"] = 2100.0
    med["baseline-embed"]["closed_c32"]["reply_body_bytes"] = 2000.0
    lines = verdict(med)
    assert "tpquiz: compared with baseline-embed" in lines
    assert "tpquiz: throughput at 32 in flight 0.90x the bare bot (goal >= 0.8) OK" in lines
    assert "tpquiz: reply body 2100 bytes, baseline-embed's 2000 bytes (1.05x)" in lines
    assert sum("saturated" in line for line in lines) == 1  # the floor's
    table = report(med, ["tpquiz", "baseline-embed", "baseline"])
    header = table.splitlines()[0]
    assert "tpquiz/baseline-embed" in header and "tpquiz/baseline " in header + " "
    assert header.index("tpquiz/baseline-embed") < header.index("tpquiz/baseline |")
    assert any("reply body bytes" in line and "2,100" in line for line in table.splitlines())


def test_loop_stalls_reads_the_watchers_lines_and_names_each_pause() -> None:
    from bench.loop_stalls import culprit, read_stalls, summarise

    log = "\n".join(
        [
            "2026-12-07 INFO bot: ready",
            "2026-12-07 WARNING bot.ops.loop_stalls: event loop paused 12.5 ms (6 samples);"
            " most seen: base_events.py:1922 _run_once > items.py:88 refresh",
            "2026-12-07 WARNING bot.ops.loop_stalls: event loop paused 6.0 ms (2 samples);"
            " most seen: base_events.py:1900 _run_once > selectors.py:468 select",
            "2026-12-07 WARNING bot.ops.loop_stalls: event loop paused 7.5 ms (0 samples);"
            " most seen: (no sample)",
        ]
    )
    stalls = read_stalls(log)
    assert [ms for ms, _ in stalls] == [12.5, 6.0, 7.5]
    assert culprit(stalls[0][1]) == "items.py:88 refresh"
    assert "no CPU or no GIL" in culprit(stalls[1][1])
    assert "GIL was held" in culprit(stalls[2][1])
    lines = summarise(stalls, 10.0)
    assert lines[0].startswith("3 pause(s) in 10 s, 26 ms in all")
    assert "items.py:88 refresh" in lines[1]  # the largest total first
