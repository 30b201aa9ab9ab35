"""Embeds for every message the bot sends. Pure functions of domain values.

Nothing here decides anything: whether an answer is right, what it scored and which rank
it holds all come in as arguments.
"""

from __future__ import annotations

from datetime import date

import discord

from bot.bank.topic_names import topic_name
from bot.i18n import t
from bot.quiz.model import LETTERS, Lang, Question, in_topic_order
from bot.quiz.own_questions import only_language
from bot.quiz.scoring import AnswerResult, MemberScore
from bot.quiz.testrun import TestAnswer, score_run
from bot.services.quiz import LeaderboardPage, StatsReport
from bot.storage.records import Post
from bot.ui.figures import show_explanation_figure, show_question_figure

RIGHT_COLOUR = discord.Colour.green()
WRONG_COLOUR = discord.Colour.red()
QUESTION_COLOUR = discord.Colour.blurple()


def letter_of(order: tuple[int, ...], choice_index: int) -> str:
    """The letter a choice shows under on a post with this order."""
    return LETTERS[order.index(choice_index)]


def choice_lines(question: Question, order: tuple[int, ...], lang: Lang) -> str:
    return "\n".join(
        f"**{LETTERS[pos]}.** {question.choices[idx].text.get(lang)}"
        for pos, idx in enumerate(order)
    )


def topic_line(question: Question, lang: Lang) -> str:
    """'Konu: Attention'ın bölünmesi · Zorluk: 2/3': the topic by its name, never the slug."""
    return t(
        "topic_difficulty",
        lang,
        topic=topic_name(question.topic, lang),
        difficulty=question.difficulty,
    )


def question_embed(
    question: Question,
    order: tuple[int, ...],
    lang: Lang,
    *,
    answered: int = 0,
    title: str | None = None,
    extra: str | None = None,
) -> discord.Embed:
    description = f"{question.text.get(lang)}\n\n{choice_lines(question, order, lang)}"
    only = only_language(question)
    if only is not None and only != lang:  # a server's question in one language (issue 27)
        description = (
            f"_{t('own_only_language', lang, language=t(f'language_{only}', lang))}_\n"
            + description
        )
    if extra:
        description += f"\n\n{extra}"
    embed = discord.Embed(
        title=title or t("question_title", lang), description=description, colour=QUESTION_COLOUR
    )
    embed.set_footer(
        text=topic_line(question, lang) + " · " + t("answered_count", lang, n=answered)
    )
    return show_question_figure(embed, question)


def post_embed(post: Post, question: Question) -> discord.Embed:
    """A question post as it stands now, with its current answer count."""
    lang: Lang = "tr" if post.language == "tr" else "en"
    if post.kind == "daily" and post.daily_date:
        return daily_embed(
            question,
            post.order,
            lang,
            day=date.fromisoformat(post.daily_date),
            closes_at_ms=post.closes_at,
            answered=post.answer_count,
        )
    return question_embed(question, post.order, lang, answered=post.answer_count)


# -- daily questions (issue #3) ----------------------------------------------------------


def day_label(day: date, lang: Lang) -> str:
    """'2 December' / '2 Aralık': the day a daily question is for."""
    return f"{day.day} {t('months', lang).split()[day.month - 1]}"


def daily_embed(
    question: Question,
    order: tuple[int, ...],
    lang: Lang,
    *,
    day: date,
    closes_at_ms: int | None,
    answered: int = 0,
) -> discord.Embed:
    """The question of the day: the date, the question, lettered choices, when it closes."""
    extra = None
    if closes_at_ms is not None:
        extra = t("daily_closes", lang, when=f"<t:{closes_at_ms // 1000}:R>")
    return question_embed(
        question,
        order,
        lang,
        answered=answered,
        title=t("daily_title", lang, day=day_label(day, lang)),
        extra=extra,
    )


def bar(n: int, total: int, width: int = 10) -> str:
    filled = round(width * n / total) if total else 0
    return "█" * filled + "░" * (width - filled)


def reveal_embed(post: Post, question: Question, counts: dict[int, int]) -> discord.Embed:
    """A closed daily question: the right answer, a bar per choice, how many answered."""
    lang: Lang = "tr" if post.language == "tr" else "en"
    total = sum(counts.values())
    right = question.correct_index
    lines = []
    for pos, idx in enumerate(post.order):
        n = counts.get(idx, 0)
        pct = round(100 * n / total) if total else 0
        mark = " ✅" if idx == right else ""
        lines.append(
            f"**{LETTERS[pos]}.** {question.choices[idx].text.get(lang)}\n"
            f"`{bar(n, total)}` {n} ({pct}%){mark}"
        )
    day = date.fromisoformat(post.daily_date) if post.daily_date else None
    title = t("daily_title", lang, day=day_label(day, lang)) if day else t("question_title", lang)
    embed = discord.Embed(
        title=f"{title} · {t('daily_closed_tag', lang)}"[:256],
        description=f"{question.text.get(lang)}\n\n" + "\n".join(lines),
        colour=RIGHT_COLOUR,
    )
    embed.add_field(
        name=t("right_answer", lang),
        value=_choice_ref(question, post.order, right, lang),
        inline=False,
    )
    embed.add_field(name=t("why", lang), value=question.explanation.get(lang), inline=False)
    embed.add_field(name=t("source", lang), value=question.source, inline=False)
    embed.set_footer(text=topic_line(question, lang) + " · " + t("answered_count", lang, n=total))
    # The reveal shows the explanation's figure; without one, the question's stays.
    show_question_figure(embed, question)
    return show_explanation_figure(embed, question)


def _choice_ref(question: Question, order: tuple[int, ...], idx: int, lang: Lang) -> str:
    return f"**{letter_of(order, idx)}.** {question.choices[idx].text.get(lang)}"


def feedback_fields(
    embed: discord.Embed,
    question: Question,
    order: tuple[int, ...],
    chosen: int | None,
    lang: Lang,
) -> None:
    """Right answer, the member's answer, why, why their choice is wrong, and the source."""
    right = question.correct_index
    if chosen is not None and chosen != right:
        embed.add_field(
            name=t("your_answer", lang),
            value=_choice_ref(question, order, chosen, lang),
            inline=False,
        )
    embed.add_field(
        name=t("right_answer", lang), value=_choice_ref(question, order, right, lang), inline=False
    )
    embed.add_field(name=t("why", lang), value=question.explanation.get(lang), inline=False)
    if chosen is not None and chosen != right:
        feedback = question.choices[chosen].feedback
        if feedback is not None:
            embed.add_field(
                name=t("why_not", lang, letter=letter_of(order, chosen)),
                value=feedback.get(lang),
                inline=False,
            )
    embed.add_field(name=t("source", lang), value=question.source, inline=False)


def answer_embed(
    question: Question, order: tuple[int, ...], result: AnswerResult, lang: Lang
) -> discord.Embed:
    verdict = t("right", lang) if result.correct else t("wrong", lang)
    lines = [question.text.get(lang)]
    if result.duplicate:
        lines.insert(0, t("already", lang, letter=letter_of(order, result.choice_index)))
    elif result.points_awarded == 0 and result.correct:
        lines.append(f"_{t('no_points_repeat', lang)}_")
    embed = discord.Embed(
        title=verdict,
        description="\n\n".join(lines),
        colour=RIGHT_COLOUR if result.correct else WRONG_COLOUR,
    )
    feedback_fields(embed, question, order, result.choice_index, lang)
    embed.set_footer(text=points_line(result.score, result.rank, result.points_awarded, lang))
    return embed


def points_line(score: MemberScore, rank: int, awarded: int, lang: Lang) -> str:
    return t(
        "points_line", lang, awarded=awarded, points=score.points, rank=rank, streak=score.streak
    )


def closed_embed(question: Question, order: tuple[int, ...], lang: Lang) -> discord.Embed:
    embed = discord.Embed(
        title=question.text.get(lang)[:256],
        description=t("closed", lang, letter=letter_of(order, question.correct_index)),
        colour=QUESTION_COLOUR,
    )
    feedback_fields(embed, question, order, None, lang)
    return embed


def test_question_embed(
    question: Question,
    order: tuple[int, ...],
    lang: Lang,
    *,
    position: int,
    total: int,
    last_correct: bool | None = None,
) -> discord.Embed:
    extra = None
    if last_correct is not None:
        extra = t("test_last", lang, verdict=t("right" if last_correct else "wrong", lang))
    embed = question_embed(question, order, lang, title=t("test_title", lang), extra=extra)
    embed.set_author(name=t("test_progress", lang, n=position + 1, total=total))
    embed.set_footer(text=t("test_intro", lang))
    return embed


#: Discord's limit on the characters of all embeds in one message together.
MESSAGE_EMBED_CHARS = 6000
MESSAGE_EMBEDS = 10


def test_summary_messages(summary: list[TestAnswer], lang: Lang) -> list[list[discord.Embed]]:
    """The test's promise: the score, then every question's answer and explanation.

    One embed per question; they are packed into as few messages as Discord's limits
    allow (10 embeds and 6000 characters a message), the score first.
    """
    right, total = score_run(summary)
    header = discord.Embed(
        title=t("test_done", lang, right=right, total=total),
        description=t("test_intro", lang),
        colour=RIGHT_COLOUR if right == total else QUESTION_COLOUR,
    )
    embeds = [header]
    for i, answer in enumerate(summary):
        q = answer.question
        mark = "✅" if answer.correct else "❌"
        embed = discord.Embed(
            title=f"{mark} {i + 1}. {q.text.get(lang)}"[:256],
            colour=RIGHT_COLOUR if answer.correct else WRONG_COLOUR,
        )
        if answer.choice_index is None:
            embed.add_field(
                name=t("your_answer", lang), value=t("not_answered", lang), inline=False
            )
        elif answer.correct:
            embed.add_field(
                name=t("your_answer", lang),
                value=_choice_ref(q, answer.order, answer.choice_index, lang),
                inline=False,
            )
        feedback_fields(embed, q, answer.order, answer.choice_index, lang)
        embeds.append(show_explanation_figure(embed, q))
    return pack_embeds(embeds)


def pack_embeds(embeds: list[discord.Embed]) -> list[list[discord.Embed]]:
    """Split embeds into messages that each respect Discord's per-message limits."""
    messages: list[list[discord.Embed]] = []
    current: list[discord.Embed] = []
    size = 0
    for embed in embeds:
        if current and (len(current) == MESSAGE_EMBEDS or size + len(embed) > MESSAGE_EMBED_CHARS):
            messages.append(current)
            current, size = [], 0
        current.append(embed)
        size += len(embed)
    if current:
        messages.append(current)
    return messages


def _pct(score: MemberScore) -> int:
    return round(score.accuracy * 100)


def _daily_suffix(streak: int, lang: Lang) -> str:
    return t("leaderboard_daily", lang, n=streak) if streak > 0 else ""


def leaderboard_embed(page: LeaderboardPage, lang: Lang) -> discord.Embed:
    period_name = t(f"period_{page.period}", lang)
    embed = discord.Embed(
        title=t("leaderboard_title", lang, period=period_name), colour=QUESTION_COLOUR
    )
    if not page.rows:
        embed.description = t("leaderboard_empty", lang)
        return embed
    lines = [
        t(
            "leaderboard_row",
            lang,
            rank=row.rank,
            name=discord.utils.escape_markdown(row.score.name or str(row.score.user_id)),
            points=row.score.points,
            accuracy=_pct(row.score),
        )
        + _daily_suffix(page.daily_streaks.get(row.score.user_id, 0), lang)
        for row in page.rows
    ]
    if page.caller is not None:
        lines.append("…")
        lines.append(
            t(
                "leaderboard_row",
                lang,
                rank=page.caller.rank,
                name=f"{t('leaderboard_you', lang)} ({discord.utils.escape_markdown(page.caller.score.name)})",
                points=page.caller.score.points,
                accuracy=_pct(page.caller.score),
            )
            + _daily_suffix(page.daily_streaks.get(page.caller.score.user_id, 0), lang)
        )
    embed.description = "\n".join(lines)
    embed.set_footer(text=t("page", lang, page=page.page + 1, pages=page.pages, total=page.total))
    return embed


def stats_embed(name: str, report: StatsReport | None, lang: Lang) -> discord.Embed:
    safe = discord.utils.escape_markdown(name)
    if report is None:
        return discord.Embed(description=t("stats_none", lang, name=safe), colour=QUESTION_COLOUR)
    stats = report.stats
    score = stats.score
    embed = discord.Embed(title=t("stats_title", lang, name=safe)[:256], colour=QUESTION_COLOUR)
    embed.add_field(name=t("stats_points", lang), value=str(score.points))
    embed.add_field(name=t("stats_rank", lang), value=f"#{stats.rank}")
    embed.add_field(name=t("stats_answers", lang), value=str(score.answered))
    embed.add_field(name=t("stats_accuracy", lang), value=f"{_pct(score)}%")
    embed.add_field(name=t("stats_streak", lang), value=f"{score.streak} / {score.best_streak}")
    daily, daily_best = report.daily_streak
    embed.add_field(name=t("stats_daily_streak", lang), value=f"{daily} / {daily_best}")
    best = stats.best_test
    embed.add_field(
        name=t("stats_best_test", lang),
        value=f"{best[0]}/{best[1]}" if best else t("stats_no_test", lang),
    )
    topics = in_topic_order(stats.per_topic)
    if topics:
        lines = []
        for topic in topics:
            answered, right = stats.per_topic[topic]
            share = round(right * 100 / answered)
            lines.append(f"{topic_name(topic, lang)}: {share}% ({right}/{answered})")
        embed.add_field(name=t("stats_topics", lang), value="\n".join(lines)[:1024], inline=False)
    if report.weakest:
        embed.add_field(
            name=t("stats_weakest", lang),
            value=", ".join(topic_name(topic, lang) for topic in report.weakest),
            inline=False,
        )
    return embed
