"""The stats picture draws a PNG for every shape of history, in either language."""

from __future__ import annotations

from typing import cast

from matplotlib.backends.backend_agg import FigureCanvasAgg

from bot.bank.topic_names import topic_name
from bot.quiz.model import LANGS, TOPICS
from bot.ui.charts import stats_figure, stats_png
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


def test_the_topic_axis_names_each_topic_in_the_readers_language_and_every_name_fits() -> None:
    """Issue 32: names, not slugs, in the teaching order; none cut at the picture's edge,
    and the weakest legend below the axis, where it hides no bar."""
    per_topic = {topic: (4, i % 5) for i, topic in enumerate(reversed(TOPICS))}
    for lang in LANGS:
        figure = stats_figure(
            per_topic=per_topic,
            weakest=["memory", "overlap"],
            weeks=WEEKS,
            labels=chart_labels("Ayşe", lang),
        )
        renderer = cast(FigureCanvasAgg, figure.canvas).get_renderer()
        figure.draw(renderer)
        topics_ax = figure.axes[0]
        labels = topics_ax.get_yticklabels()
        assert [label.get_text() for label in labels] == [topic_name(t, lang) for t in TOPICS]
        for label in labels:
            box = label.get_window_extent(renderer)
            assert box.x0 >= 0, f"{label.get_text()!r} is cut off at the left edge"
        legend = topics_ax.get_legend()
        assert legend is not None
        assert legend.get_window_extent(renderer).y1 <= topics_ax.get_window_extent(renderer).y0
