"""The `/tpquiz stats` picture: accuracy per topic, and answers per week (issue #12).

Drawn with matplotlib's Agg backend on a `Figure` of its own (never pyplot, whose global
state is not safe across threads), so it can run in an executor off the event loop.
The labels, topic names included, come in translated; this module only draws.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from bot.quiz.model import in_topic_order

WEAK_COLOUR = "#ed4245"  # Discord's red: the weakest topics
TOPIC_COLOUR = "#5865f2"  # Discord's blurple
RIGHT_COLOUR = "#57f287"
ANSWERED_COLOUR = "#99aab5"


@dataclass(frozen=True, slots=True)
class ChartLabels:
    title: str
    topics_title: str
    accuracy: str
    weeks_title: str
    answers: str
    right: str
    weakest: str
    no_answers: str
    #: slug -> the topic's name in the reader's language (issue 32); a slug missing
    #: here is shown as itself.
    topic_names: Mapping[str, str] = field(default_factory=dict)


def stats_png(
    *,
    per_topic: Mapping[str, tuple[int, int]],
    weakest: Sequence[str],
    weeks: Sequence[tuple[int, int, int]],
    labels: ChartLabels,
) -> bytes:
    """PNG bytes. `per_topic` maps topic -> (answered, correct); `weeks` lists
    (week start ms, answered, correct), oldest first (the twelve weeks to show)."""
    figure = stats_figure(per_topic=per_topic, weakest=weakest, weeks=weeks, labels=labels)
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()


def stats_figure(
    *,
    per_topic: Mapping[str, tuple[int, int]],
    weakest: Sequence[str],
    weeks: Sequence[tuple[int, int, int]],
    labels: ChartLabels,
) -> Figure:
    """The picture before it is saved (`stats_png`), for a test to read its labels."""
    # Taller with more topics, so that each name keeps a readable row on a phone.
    figure = Figure(figsize=(10, max(4.2, 1.4 + 0.2 * len(per_topic))), dpi=100)
    FigureCanvasAgg(figure)
    figure.suptitle(labels.title, fontsize=13, fontweight="bold")
    topics_ax, weeks_ax = figure.subplots(1, 2, width_ratios=(1, 1.2))
    # Fixed margins (room for the longest topic name): a layout engine would double the
    # drawing time.
    figure.subplots_adjust(left=0.19, right=0.985, bottom=0.16, top=0.84, wspace=0.22)

    topics = in_topic_order(per_topic)
    if topics:
        shares = [100 * per_topic[t][1] / per_topic[t][0] for t in topics]
        colours = [WEAK_COLOUR if t in weakest else TOPIC_COLOUR for t in topics]
        # Positions, not the names, as the categories: two topics never share a bar.
        rows = list(range(len(topics)))
        bars = topics_ax.barh(rows, shares, color=colours)
        topics_ax.set_yticks(rows, [labels.topic_names.get(t, t) for t in topics])
        topics_ax.bar_label(bars, labels=[f"{round(s)}%" for s in shares], padding=2, fontsize=8)
        topics_ax.set_xlim(0, 110)
        topics_ax.invert_yaxis()
        if weakest:
            topics_ax.legend(
                handles=[bars[topics.index(w)] for w in weakest if w in topics][:1],
                labels=[labels.weakest],
                # Below the axis, beside its label: inside, it would hide the last bars.
                loc="upper right",
                bbox_to_anchor=(1.0, -0.07),
                fontsize=8,
                frameon=False,
            )
    else:
        topics_ax.text(0.5, 0.5, labels.no_answers, ha="center", va="center")
        topics_ax.set_yticks([])
    topics_ax.set_title(labels.topics_title, fontsize=11)
    topics_ax.set_xlabel(labels.accuracy)
    topics_ax.tick_params(axis="y", labelsize=8)

    positions = list(range(len(weeks)))
    answered = [a for _, a, _ in weeks]
    right = [c for _, _, c in weeks]
    weeks_ax.bar(positions, answered, color=ANSWERED_COLOUR, label=labels.answers)
    weeks_ax.bar(positions, right, color=RIGHT_COLOUR, width=0.5, label=labels.right)
    weeks_ax.set_xticks(
        positions,
        [datetime.fromtimestamp(start / 1000, UTC).strftime("%d.%m") for start, _, _ in weeks],
        rotation=45,
        fontsize=8,
    )
    weeks_ax.set_title(labels.weeks_title, fontsize=11)
    weeks_ax.set_ylabel(labels.answers)
    weeks_ax.yaxis.get_major_locator().set_params(integer=True)
    weeks_ax.legend(loc="upper left", fontsize=8)
    return figure
