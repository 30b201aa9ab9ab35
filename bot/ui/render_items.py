"""Embeds of the admin's item statistics (issue #13): the flagged list and one question.
A server's own questions (issue 27) head the list, marked as its own, with why one is out
of the picks and whether it is still on probation.

Figures and flag reasons in the admin's language; choice bars as the daily reveal draws
them (`bot.ui.render.bar`). Report bodies are members' words: escaped (`bot.ui.limits.echo`).
"""

from __future__ import annotations

import discord

from bot.i18n import t
from bot.quiz.itemstats import MIN_FLAG_ANSWERS, ItemStats
from bot.quiz.model import LETTERS, Lang, Question
from bot.services.items import Listed
from bot.storage.records import Report
from bot.ui.limits import echo
from bot.ui.render import QUESTION_COLOUR, bar, topic_line

#: Flagged questions per page of `/tpquiz-admin questions`.
PAGE = 5
BODY_SHOWN = 200


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


def figures(s: ItemStats, lang: Lang) -> str:
    return t(
        "questions_figures",
        lang,
        n=s.answers,
        facility=_share(s.facility),
        discrimination=_signed(s.discrimination),
        reports=s.open_reports,
    )


def reasons(s: ItemStats, lang: Lang) -> list[str]:
    return [t(f"flag_{f.code}", lang, **f.params) for f in s.flags]


def pages_of(total: int) -> int:
    return max(1, -(-total // PAGE))


def _block(entry: Listed, lang: Lang) -> str:
    """One question of the list: its id (and whose), figures, then why it is listed:
    out of the picks, its flags, on probation."""
    s = entry.stats
    head = f"**`{s.question_id}`**"
    if entry.own:
        head += f" · {t('questions_own_mark', lang)}"
    lines = [f"{head} · {figures(s, lang)}"]
    if entry.withheld is not None:
        lines.append(f"• {t(f'questions_withheld_{entry.withheld}', lang)}")
    lines += [f"• {reason}" for reason in reasons(s, lang)]
    if entry.probation:
        lines.append(f"• {t('questions_probation', lang, n=s.answers, limit=MIN_FLAG_ANSWERS)}")
    return "\n".join(lines)


def questions_embed(listed: list[Listed], page: int, lang: Lang) -> discord.Embed:
    """One page of the list: the server's own questions with something to say first
    (issue 27), then the bank's flagged ones, most serious first."""
    own = sum(entry.own for entry in listed)
    title = t("questions_title_own" if own else "questions_title", lang)
    embed = discord.Embed(title=title, colour=QUESTION_COLOUR)
    if not listed:
        embed.description = t("questions_none", lang)
        return embed
    shown = listed[page * PAGE : (page + 1) * PAGE]
    embed.description = "\n\n".join(_block(entry, lang) for entry in shown)[:4096]
    pages = pages_of(len(listed))
    if own:
        footer = t("questions_page_own", lang, page=page + 1, pages=pages, own=own,
                   n=len(listed) - own)  # fmt: skip
    else:
        footer = t("questions_page", lang, page=page + 1, pages=pages, n=len(listed))
    embed.set_footer(text=footer)
    return embed


def _bars(question: Question, picks: tuple[int, ...], lang: Lang) -> str:
    total = sum(picks)
    lines = []
    for i, n in enumerate(picks):
        pct = round(100 * n / total) if total else 0
        mark = " ✅" if i == question.correct_index else ""
        lines.append(f"**{LETTERS[i]}** `{bar(n, total)}` {n} ({pct}%){mark}")
    return "\n".join(lines)


def question_embed(
    question: Question, s: ItemStats | None, reports: list[Report], lang: Lang
) -> discord.Embed:
    """One question: its text and choices, bars overall and by thirds, flags, reports;
    its topic (by name) and difficulty below, as on a post."""
    choices = "\n".join(
        f"**{LETTERS[i]}.** {c.text.get(lang)}" for i, c in enumerate(question.choices)
    )
    embed = discord.Embed(
        title=t("question_stats_title", lang, question_id=question.id)[:256],
        description=f"{question.text.get(lang)}\n\n{choices}"[:4096],
        colour=QUESTION_COLOUR,
    )
    if s is None or not s.answers:
        embed.add_field(name=t("question_all_choices", lang), value=t("question_no_answers", lang))
    else:
        embed.add_field(
            name=t("question_all_choices", lang),
            value=f"{figures(s, lang)}\n{_bars(question, s.picks, lang)}"[:1024],
            inline=False,
        )
        for key, picks in (
            ("question_top_third", s.top_picks),
            ("question_bottom_third", s.bottom_picks),
        ):
            embed.add_field(
                name=t(key, lang), value=_bars(question, picks, lang)[:1024], inline=False
            )
    flags = reasons(s, lang) if s is not None else []
    embed.add_field(
        name=t("question_flags", lang),
        value="\n".join(f"• {r}" for r in flags)[:1024] or t("none_short", lang),
        inline=False,
    )
    lines = []
    for report in reports:
        body = echo(report.body, BODY_SHOWN) if report.body else "—"
        state = "" if report.open else " ✔"
        lines.append(f"**#{report.id}** {t(f'reason_{report.reason}', lang)}{state}: {body}")
    embed.add_field(
        name=t("question_reports", lang),
        value="\n".join(lines)[:1024] or t("none_short", lang),
        inline=False,
    )
    embed.set_footer(text=topic_line(question, lang))
    return embed
