"""The host's report of a quiz night (issue 26): a CSV of every player's answer to every
question (player, question, choice, right, seconds) and a PNG of each question's share
right with its most-picked wrong choice.

The PNG is drawn with matplotlib's Agg backend on a `Figure` of its own, in an executor
off the event loop, as the stats picture is (bot/ui/charts.py). Both go to the host
privately, as a followup on their `/tpquiz live` (so within its 15 minutes).
"""

from __future__ import annotations

import asyncio
import csv
import io
from typing import Any

import discord
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from bot.quiz.model import Lang
from bot.services.live import Final
from bot.ui.render import letter_of
from bot.ui.render_live import lang_of

RIGHT_COLOUR = "#57f287"
WRONG_COLOUR = "#ed4245"
HEADER = ("player", "user_id", "question", "question_id", "choice", "right", "seconds")


def report_csv(final: Final) -> str:
    """One row per player and asked question; an unanswered one has an empty choice."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    answers = {(c.user_id, live.position): (c, a) for live, _q, c, a in final.scored}
    for user, name in sorted(final.names.items(), key=lambda kv: (kv[1], kv[0])):
        for live, question in final.questions:
            found = answers.get((user, live.position))
            if found is None:
                writer.writerow((name, user, live.position + 1, question.id, "", "", ""))
                continue
            choice, answer = found
            writer.writerow((
                name, user, live.position + 1, question.id, letter_of(live.order, choice.choice_index),
                int(answer.correct), round(answer.elapsed_ms / 1000, 3),
            ))  # fmt: skip
    return out.getvalue()


def per_question(final: Final) -> list[tuple[int, float, str | None, int]]:
    """(number, share right, most-picked wrong letter or None, its picks) per question."""
    rows = []
    for live, question in final.questions:
        picks: dict[int, int] = {}
        for other, _q, choice, _a in final.scored:
            if other.position == live.position:
                picks[choice.choice_index] = picks.get(choice.choice_index, 0) + 1
        total = sum(picks.values())
        right = picks.get(question.correct_index, 0)
        wrong = {c: n for c, n in picks.items() if c != question.correct_index}
        worst = max(wrong, key=lambda c: (wrong[c], -c)) if wrong else None
        rows.append((
            live.position + 1, right / total if total else 0.0,
            None if worst is None else letter_of(live.order, worst), wrong.get(worst, 0) if worst is not None else 0,
        ))  # fmt: skip
    return rows


def report_png(rows: list[tuple[int, float, str | None, int]], lang: Lang) -> bytes:
    figure = Figure(figsize=(8, 4), dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    numbers = [r[0] for r in rows]
    shares = [100 * r[1] for r in rows]
    ax.bar(numbers, shares, color=[RIGHT_COLOUR if s >= 50 else WRONG_COLOUR for s in shares])
    wrong = "en çok seçilen yanlış" if lang == "tr" else "most-picked wrong"
    for number, share, letter, n in rows:
        if letter is not None:  # above the bar: the wrong choice most picked, and how often
            ax.annotate(
                f"{wrong}: {letter} ×{n}", (number, 100 * share), ha="center", va="bottom",
                fontsize=8, xytext=(0, 3), textcoords="offset points",
            )  # fmt: skip
    ax.set_ylim(0, 110)
    ax.set_xticks(numbers)
    ax.set_xlabel("soru" if lang == "tr" else "question")
    ax.set_ylabel("% doğru" if lang == "tr" else "% right")
    ax.set_title(
        "Doğru oranı ve en çok seçilen yanlış"
        if lang == "tr"
        else "Share right and most-picked wrong choice"
    )
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()


async def send_report(final: Final, host: discord.Interaction[Any]) -> None:
    """The CSV and the PNG to the host, privately."""
    lang = lang_of(final.session)
    rows = per_question(final)
    png = await asyncio.get_running_loop().run_in_executor(None, report_png, rows, lang)
    files = [
        discord.File(
            io.BytesIO(report_csv(final).encode()), filename=f"live-{final.session.id}.csv"
        ),
        discord.File(io.BytesIO(png), filename=f"live-{final.session.id}.png"),
    ]
    await host.followup.send(files=files, ephemeral=True)
