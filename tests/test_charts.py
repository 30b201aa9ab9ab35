"""The stats picture draws a PNG for every shape of history, in either language."""

from __future__ import annotations

from bot.charts import stats_png
from cogs.stats import chart_labels

WEEK = 7 * 86_400_000
WEEKS = [(1_764_547_200_000 + i * WEEK, i, i // 2) for i in range(12)]


def test_a_member_with_history_gets_a_png_with_their_title() -> None:
    png = stats_png(
        per_topic={"basics": (10, 7), "mlp-split": (4, 1)},
        weakest=["mlp-split"],
        weeks=WEEKS,
        labels=chart_labels("Ayşe", "tr"),
    )
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000


def test_no_topics_and_empty_weeks_still_draw() -> None:
    png = stats_png(
        per_topic={},
        weakest=[],
        weeks=[(start, 0, 0) for start, _, _ in WEEKS],
        labels=chart_labels("Bob", "en"),
    )
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_labels_follow_the_language() -> None:
    assert chart_labels("A", "tr").weeks_title == "Son 12 hafta"
    assert chart_labels("A", "en").title == "A — progress"
