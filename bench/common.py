"""What every bench needs: the machine it ran on, percentiles, a table and a JSON file.

The figures only mean something next to the machine that produced them (a 2-core VM
and a laptop differ by 3x), so every JSON file carries `machine()` and the command line.
"""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "bench" / "out"


def cpu_model() -> str:
    """The CPU model line of /proc/cpuinfo ("unknown" off Linux)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict[str, Any]:
    """nproc, CPU model, Python, discord.py and SQLite versions."""
    try:
        import discord

        discord_version = discord.__version__
    except ImportError:  # pragma: no cover - the venv always has it
        discord_version = "absent"
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "discord.py": discord_version,
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
    }


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary_ms(seconds: Sequence[float]) -> dict[str, float]:
    """p50/p95/p99/max/mean of durations given in seconds, in milliseconds."""
    ms = [s * 1000 for s in seconds]
    return {
        "p50": percentile(ms, 50),
        "p95": percentile(ms, 95),
        "p99": percentile(ms, 99),
        "max": max(ms) if ms else float("nan"),
        "mean": statistics.fmean(ms) if ms else float("nan"),
    }


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table (also readable in a terminal), numbers formatted compactly."""

    def cell(value: object) -> str:
        if isinstance(value, float):
            if value != value:  # NaN
                return "-"
            if abs(value) >= 100:
                return f"{value:,.0f}"
            if abs(value) >= 10:
                return f"{value:.1f}"
            return f"{value:.2f}"
        return str(value)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [
        max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)
    ]
    lines = [
        "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |",
        "| " + " | ".join("-" * w for w in widths) + " |",
    ]
    for row in cells:
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    return "\n".join(lines)


def write_json(name: str, figures: dict[str, Any], module: str | None = None) -> Path:
    """Write `bench/out/<name>.json` with the figures, the machine and the command
    (`python -m bench.<module or name> <arguments>`)."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"{name}.json"
    document = {
        "bench": name,
        "command": " ".join(
            [Path(sys.executable).name, "-m", f"bench.{module or name}", *sys.argv[1:]]
        ),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": machine(),
        "figures": figures,
    }
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return path


def machine_line() -> str:
    m = machine()
    return (
        f"{m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, discord.py {m['discord.py']},"
        f" SQLite {m['sqlite']}"
    )


def proc_cpu_seconds(pid: int) -> float:
    """User+system CPU seconds a process has used so far (Linux /proc), 0.0 if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def proc_rss_mb(pid: int) -> float:
    """Resident set size of a process in MiB (VmRSS from /proc), NaN if gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def thread_cpu_seconds(pid: int) -> dict[str, float]:
    """CPU seconds per thread of a process, keyed "main" for the main thread and
    "<comm>-<tid>" for the others (aiosqlite's worker shows up as one of those)."""
    result: dict[str, float] = {}
    ticks = os.sysconf("SC_CLK_TCK")
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return result
    for tid in tids:
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        key = "main" if int(tid) == pid else f"{comm}-{tid}"
        result[key] = (int(fields[11]) + int(fields[12])) / ticks
    return result


def cpu_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """Per-thread CPU used between two `thread_cpu_seconds` snapshots (main, others)."""
    main = after.get("main", 0.0) - before.get("main", 0.0)
    others = sum(v for k, v in after.items() if k != "main") - sum(
        v for k, v in before.items() if k != "main"
    )
    return {"main": main, "other_threads": others}
