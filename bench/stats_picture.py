"""How long the `/tpquiz stats` picture takes to draw (bot/ui/charts.py), and its size.

The bot draws it in an executor, off the event loop; this times the drawing itself, for
a member with every topic answered and twelve busy weeks (the largest picture).

    .venv/bin/python -m bench.stats_picture [--draws 30]
"""

from __future__ import annotations

import argparse
import sys
import time

from bench.common import machine_line, summary_ms, table, write_json
from bot.quiz.model import TOPICS
from bot.ui.charts import stats_png
from cogs.stats import chart_labels

WEEK_MS = 7 * 86_400_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="time the stats picture")
    parser.add_argument("--draws", type=int, default=30)
    args = parser.parse_args(argv)
    per_topic = {topic: (40 + i, 10 + 2 * i) for i, topic in enumerate(TOPICS)}
    weeks = [(1_764_547_200_000 + i * WEEK_MS, 50 + i, 30 + i) for i in range(12)]
    figures = {}
    for lang in ("en", "tr"):
        durations, size = [], 0
        for _ in range(args.draws + 1):
            started = time.perf_counter()
            png = stats_png(
                per_topic=per_topic,
                weakest=list(TOPICS[:2]),
                weeks=weeks,
                labels=chart_labels("Ayşe Yılmaz", lang),  # type: ignore[arg-type]
            )
            durations.append(time.perf_counter() - started)
            size = len(png)
        figures[lang] = {"first_ms": durations[0] * 1000, **summary_ms(durations[1:])}
        figures[lang]["bytes"] = size
    print(f"stats picture, {args.draws} draws per language, on {machine_line()}")
    print(
        table(
            ["language", "first draw ms", "p50 ms", "p99 ms", "PNG bytes"],
            [[lang, f["first_ms"], f["p50"], f["p99"], f["bytes"]] for lang, f in figures.items()],
        )
    )
    print(f"figures written to {write_json('stats_picture', figures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
