"""Embeds of a review round and of the review part of `/tpquiz stats` (issue #12).

Pure functions of what `bot.services.review` returns, beside bot/ui/render.py (whose answer embed
gives each review answer the same feedback a post gives: the right answer, why, and why
the member's choice was wrong).
"""

from __future__ import annotations

from datetime import UTC, datetime

import discord

from bot.i18n import t
from bot.quiz.model import Lang
from bot.quiz.review import Outlook
from bot.services.review import MemoryReport, ReviewQuestion, ReviewStep, ReviewSummary
from bot.ui.figures import show_explanation_figure
from bot.ui.render import QUESTION_COLOUR, RIGHT_COLOUR, answer_embed, question_embed


def review_question_embed(
    current: ReviewQuestion, lang: Lang, *, resumed: bool = False
) -> discord.Embed:
    extra = f"_{t('review_resumed', lang)}_" if resumed else None
    embed = question_embed(
        current.question, current.order, lang, title=t("review_title", lang), extra=extra
    )
    embed.set_author(name=t("test_progress", lang, n=current.position + 1, total=current.total))
    embed.set_footer(text=t("review_intro", lang))
    return embed


def _when(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def outlook_lines(coming: Outlook, lang: Lang) -> list[str]:
    """Due tomorrow and this week, and when the next card falls due (a Discord timestamp,
    shown in the member's own time zone by their client)."""
    lines = [t("review_outlook", lang, tomorrow=coming.tomorrow, week=coming.week)]
    if coming.next_due_ms is None:
        lines.append(t("review_no_cards", lang))
    else:
        when = _when(coming.next_due_ms)
        lines.append(
            t(
                "review_next_due",
                lang,
                relative=discord.utils.format_dt(when, "R"),
                when=discord.utils.format_dt(when, "f"),
            )
        )
    return lines


def review_summary_embed(summary: ReviewSummary, lang: Lang) -> discord.Embed:
    return discord.Embed(
        title=t("review_done", lang, right=summary.right, total=summary.total),
        description="\n".join(outlook_lines(summary.outlook, lang)),
        colour=RIGHT_COLOUR if summary.right == summary.total else QUESTION_COLOUR,
    )


def review_nothing_embed(coming: Outlook, lang: Lang) -> discord.Embed:
    lines = [t("review_nothing", lang), *outlook_lines(coming, lang)]
    return discord.Embed(
        title=t("review_title", lang), description="\n".join(lines), colour=QUESTION_COLOUR
    )


def review_step_embeds(step: ReviewStep, lang: Lang) -> list[discord.Embed]:
    """The answer's feedback, then the next question or the round's summary."""
    done = step.answered
    feedback = answer_embed(done.question, done.order, step.result, lang)
    feedback.set_author(name=t("test_progress", lang, n=done.position + 1, total=done.total))
    show_explanation_figure(feedback, done.question)
    if step.next is not None:
        return [feedback, review_question_embed(step.next, lang)]
    assert step.summary is not None
    return [feedback, review_summary_embed(step.summary, lang)]


def memory_fields(embed: discord.Embed, memory: MemoryReport, lang: Lang) -> None:
    """Due now, due this week and the retention estimate, added to the stats embed."""
    embed.add_field(name=t("stats_due_now", lang), value=str(memory.due_now))
    embed.add_field(name=t("stats_due_week", lang), value=str(memory.due_week))
    retention = (
        t("stats_no_cards", lang)
        if memory.retention is None
        else f"{round(memory.retention * 100)}%"
    )
    embed.add_field(name=t("stats_retention", lang), value=retention)
