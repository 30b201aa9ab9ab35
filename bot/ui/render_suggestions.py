"""What members' suggestions look like on Discord (issue 27): the modals, the review
embed, the problems and the decision texts.

Why its own module: everything here shows a member's own words, so it is the one place
that makes them plain text: markdown escaped (`**` shows as typed, a `[link](...)`
cannot disguise itself), mentions broken (`@everyone` and `<@id>` do not ping; every
send also passes no allowed mentions), and every part cut to Discord's limits (a modal
input's `max_length`, an embed field's 1,024 characters).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.bank.suggestion_check import DraftCheck
from bot.i18n import t
from bot.quiz.model import Lang
from bot.quiz.suggestions import (
    FIELD_LIMITS,
    MAX_REASON,
    Draft,
    DraftProblem,
    Suggestion,
    parse_wrong,
)
from bot.ui.limits import EMBED_DESCRIPTION, FIELD_VALUE, clip, display_name, fit_embed
from bot.ui.render import QUESTION_COLOUR

__all__ = [
    "FIELDS",
    "REASON_FIELD",
    "decision_status",
    "notice_text",
    "plain_text",
    "problems_text",
    "reason_modal",
    "settings_text",
    "suggest_modal",
    "suggestion_embed",
]

#: The modal's inputs, in order (their custom_ids).
FIELDS: tuple[str, ...] = ("text", "right", "wrong", "explanation", "source")
REASON_FIELD = "reason"
#: Seconds discord.py keeps a Modal object (the listeners need none of it).
MODAL_TIMEOUT = 900.0
_PARAGRAPH = {"text", "wrong", "explanation"}
_HINTS = {"wrong": "suggest_wrong_hint", "source": "suggest_source_hint"}


def plain_text(text: str, limit: int) -> str:
    """A member's words as inert text within `limit` characters (newlines kept)."""
    escaped = discord.utils.escape_markdown(discord.utils.escape_mentions(text))
    return clip(escaped, limit)


def suggest_modal(custom_id: str, title: str, lang: Lang, draft: Draft | None) -> discord.ui.Modal:
    """The five inputs, prefilled with `draft` (the member's kept text) when given."""
    modal = discord.ui.Modal(title=clip(title, 45), custom_id=custom_id, timeout=MODAL_TIMEOUT)
    values = draft.fields() if draft is not None else {}
    for name in FIELDS:
        hint = _HINTS.get(name)
        default = values.get(name) or None
        text_input = discord.ui.TextInput[Any](
            custom_id=name,
            style=discord.TextStyle.paragraph if name in _PARAGRAPH else discord.TextStyle.short,
            required=True,
            max_length=FIELD_LIMITS[name],
            placeholder=t(hint, lang) if hint else None,
            default=clip(default, FIELD_LIMITS[name]) if default else None,
        )
        modal.add_item(
            discord.ui.Label(text=t(f"suggest_field_{name}", lang), component=text_input)
        )
    return modal


def reason_modal(custom_id: str, title: str, lang: Lang) -> discord.ui.Modal:
    modal = discord.ui.Modal(title=clip(title, 45), custom_id=custom_id, timeout=MODAL_TIMEOUT)
    reason = discord.ui.TextInput[Any](
        custom_id=REASON_FIELD,
        style=discord.TextStyle.paragraph,
        required=True,
        max_length=MAX_REASON,
    )
    modal.add_item(discord.ui.Label(text=t("review_reason", lang), component=reason))
    return modal


def _problem_line(problem: DraftProblem, lang: Lang) -> str:
    field = t(f"suggest_field_{problem.field}", lang)
    if problem.message is not None:
        what = plain_text(problem.message, 400)
    else:
        what = t(problem.key, lang, **dict(problem.params))
    return f"• **{field}**: {what}"


def problems_text(check: DraftCheck, lang: Lang, head: str) -> str:
    """`head`, then each problem by the modal field it is in, then the warnings."""
    lines = [head, *(_problem_line(p, lang) for p in check.problems)]
    if check.warnings:
        lines += [t("suggest_warnings", lang), *(_problem_line(p, lang) for p in check.warnings)]
    return "\n".join(lines)


def decision_status(suggestion: Suggestion, reviewer: str, lang: Lang) -> str:
    """The line a review post shows once decided (`reviewer`: a display name)."""
    if suggestion.state not in ("accepted", "rejected", "changes"):
        return t("suggestion_state_open", lang)
    return t(
        f"suggestion_state_{suggestion.state}",
        lang,
        reviewer=plain_text(display_name(reviewer), 64),
        reason=plain_text(suggestion.reason or "", 600),
        question_id=suggestion.question_id or "",
    )


def suggestion_embed(
    suggestion: Suggestion,
    lang: Lang,
    *,
    status: str | None = None,
    warnings: tuple[DraftProblem, ...] = (),
) -> discord.Embed:
    """One suggestion as a moderator reviews it: the question, the right answer, each
    wrong one with why, the explanation, the source and its author (a name, no ping)."""
    draft = suggestion.draft
    description = plain_text(draft.text, EMBED_DESCRIPTION - 300)
    head = status or t("suggestion_state_open", lang)
    embed = discord.Embed(
        title=t("suggestion_title", lang, id=suggestion.id),
        description=f"{head}\n\n{description}",
        colour=QUESTION_COLOUR,
    )
    embed.add_field(
        name=t("suggestion_right", lang), value=plain_text(draft.right, FIELD_VALUE), inline=False
    )
    wrong, problems = parse_wrong(draft.wrong)
    if problems:
        embed.add_field(
            name=t("suggest_field_wrong", lang),
            value=plain_text(draft.wrong, FIELD_VALUE) or "—",
            inline=False,
        )
    for number, line in enumerate(wrong, 1):
        value = plain_text(line.text, 300) + "\n> " + plain_text(line.why, 600)
        embed.add_field(
            name=t("suggestion_wrong", lang, n=number), value=clip(value, FIELD_VALUE), inline=False
        )
    embed.add_field(
        name=t("why", lang), value=plain_text(draft.explanation, FIELD_VALUE) or "—", inline=False
    )
    embed.add_field(
        name=t("source", lang), value=plain_text(draft.source, FIELD_VALUE) or "—", inline=False
    )
    if warnings:
        shown = "\n".join(_problem_line(w, lang) for w in warnings)
        embed.add_field(name="⚠️", value=clip(shown, FIELD_VALUE), inline=False)
    embed.set_footer(
        text=t(
            "suggestion_by",
            lang,
            name=display_name(suggestion.author_name),
            language=t(f"language_{suggestion.language}", lang),
        )
    )
    return fit_embed(embed)


def notice_text(suggestion: Suggestion, guild_name: str, lang: Lang) -> str:
    """What the author is told of the decision (once in the server, and by DM)."""
    return t(
        f"notice_{suggestion.state}",
        lang,
        id=suggestion.id,
        guild=plain_text(guild_name, 100),
        question_id=suggestion.question_id or "",
        reason=plain_text(suggestion.reason or "", 600),
    )


def typed_text(draft: Draft, lang: Lang) -> str:
    """What a moderator typed in the edit modal, shown back so none of it is lost."""
    parts = []
    for name, value in draft.fields().items():
        fenced = value.replace("```", "'''")
        parts.append(f"**{t(f'suggest_field_{name}', lang)}**\n```\n{fenced}\n```")
    return "\n".join(parts)


def settings_text(channel_id: int | None, role_id: int | None, lang: Lang) -> str:
    none = t("suggestion_settings_none", lang)
    return t(
        "suggestion_settings",
        lang,
        channel=f"<#{channel_id}>" if channel_id else none,
        role=f"<@&{role_id}>" if role_id else none,
    )
