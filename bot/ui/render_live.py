"""Quiz night's embeds (issue 26): the lobby, a question, its reveal, the top 5, the
podium, and each player's private verdict and summary. Public ones in the server's
language (the session's), private ones in the member's. Names are display names in
plain text; the bot's allowed mentions are none, so nobody is pinged."""

from __future__ import annotations

import discord

from bot.i18n import t
from bot.quiz.live import GROUP_WEAKEST, MIXED, Standing
from bot.quiz.live_state import LiveQuestion, LiveSession
from bot.quiz.model import LETTERS, Lang, Question
from bot.services.live import Final, Reveal, Verdict
from bot.ui.render import (
    QUESTION_COLOUR,
    RIGHT_COLOUR,
    WRONG_COLOUR,
    bar,
    feedback_fields,
    letter_of,
    question_embed,
    topic_line,
)

MEDALS = ("🥇", "🥈", "🥉")


def lang_of(session: LiveSession) -> Lang:
    return "tr" if session.language == "tr" else "en"


def lobby_embed(session: LiveSession, host: str) -> discord.Embed:
    lang = lang_of(session)
    seconds = (
        t("live_seconds_each", lang, n=session.seconds)
        if session.seconds
        else t("live_seconds_auto", lang)
    )
    topic = session.topic if session.topic in (MIXED, GROUP_WEAKEST) else session.topic
    starts = f"<t:{(session.deadline_at or session.created_at) // 1000}:R>"
    text = t(
        "live_lobby_text", lang, host=host, questions=session.question_count, seconds=seconds,
        scoring=session.scoring, topic=topic, starts=starts,
    )  # fmt: skip
    return discord.Embed(
        title=t("live_lobby_title", lang), description=text, colour=QUESTION_COLOUR
    )


def live_question_embed(
    session: LiveSession, live: LiveQuestion, question: Question
) -> discord.Embed:
    """The question, its lettered choices, its number and a countdown Discord's clients
    run themselves (a relative timestamp: no edit needed)."""
    lang = lang_of(session)
    if session.status == "paused" or session.deadline_at is None:
        extra = t("live_paused", lang)
    else:
        extra = t("live_time_up", lang, relative=f"<t:{-(-session.deadline_at // 1000)}:R>")
    return question_embed(
        question,
        live.order,
        lang,
        title=t("live_question_title", lang, n=live.position + 1, total=session.question_count),
        extra=extra,
    )


def reveal_embed(reveal: Reveal) -> discord.Embed:
    """The public reveal: right answer, a bar per choice (counts, never names), the
    explanation and the source."""
    session, live, question = reveal.session, reveal.live, reveal.question
    lang = lang_of(session)
    total = sum(reveal.counts.values())
    lines = []
    for pos, idx in enumerate(live.order):
        n = reveal.counts.get(idx, 0)
        mark = " ✅" if idx == question.correct_index else ""
        lines.append(
            f"**{LETTERS[pos]}.** {question.choices[idx].text.get(lang)}\n`{bar(n, total)}` {n}{mark}"
        )
    title = t("live_question_title", lang, n=live.position + 1, total=session.question_count)
    embed = discord.Embed(
        title=title,
        description=f"{question.text.get(lang)}\n\n" + "\n".join(lines),
        colour=RIGHT_COLOUR,
    )
    if live.skipped:
        embed.add_field(name="⏭", value=t("live_skipped", lang), inline=False)
    feedback_fields(embed, question, live.order, None, lang)
    embed.set_footer(text=topic_line(question, lang) + " · " + t("answered_count", lang, n=total))
    return embed


def top_embed(session: LiveSession, rows: list[Standing]) -> discord.Embed:
    lang = lang_of(session)
    lines = [
        f"**{r.place}.** {discord.utils.escape_markdown(r.name)} — {r.points}" for r in rows[:5]
    ]
    return discord.Embed(
        title=t("live_top", lang), description="\n".join(lines) or "—", colour=QUESTION_COLOUR
    )


def verdict_embed(reveal: Reveal, verdict: Verdict, lang: Lang) -> discord.Embed:
    """A player's private verdict: right or wrong, the right answer, why, the feedback
    for the choice they picked, and their points and place so far."""
    question, order = reveal.question, reveal.live.order
    right = letter_of(order, question.correct_index)
    if verdict.correct:
        title = t(
            "live_verdict_right", lang, letter=right, points=verdict.points, place=verdict.place
        )
    else:
        mine = "—" if verdict.choice_index is None else letter_of(order, verdict.choice_index)
        title = t(
            "live_verdict_wrong", lang, mine=mine, letter=right, points=verdict.points,
            place=verdict.place,
        )  # fmt: skip
    embed = discord.Embed(
        title=title[:256], description=question.text.get(lang),
        colour=RIGHT_COLOUR if verdict.correct else WRONG_COLOUR,
    )  # fmt: skip
    feedback_fields(embed, question, order, verdict.choice_index, lang)
    return embed


def podium_embed(final: Final) -> discord.Embed:
    session = final.session
    lang = lang_of(session)
    if session.end_reason == "cancel" or not final.questions:
        return discord.Embed(
            title=t("live_lobby_title", lang), description=t("live_cancelled", lang)
        )
    lines = [
        t(
            "live_podium_row",
            lang,
            medal=MEDALS[i],
            name=discord.utils.escape_markdown(r.name),
            points=r.points,
            right=r.right,
            seconds=round(r.time_ms / 1000, 1),
        )  # fmt: skip
        for i, r in enumerate(final.standings[:3])
    ]
    embed = discord.Embed(
        title=t("live_podium", lang), description="\n".join(lines) or "—", colour=RIGHT_COLOUR
    )
    if final.most_missed is not None:
        live, question = final.most_missed
        value = t(
            "live_most_missed", lang, text=question.text.get(lang),
            why=question.explanation.get(lang),
        )  # fmt: skip
        embed.add_field(name="❓", value=value[:1024], inline=False)
    return embed


def summary_text(final: Final, user_id: int, lang: Lang) -> str:
    rows = " ".join(
        f"{position + 1}{'✅' if right else '❌'}"
        for position, _choice, right in sorted(final.per_player.get(user_id, []))
    )
    return t("live_summary", lang, rows=rows or "—")
