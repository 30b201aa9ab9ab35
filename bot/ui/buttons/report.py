"""The "Report a problem" button under answer replies and the modal it opens (issue #13).

The button's custom_id says what the member answered (`tpq:rp:p:<post>` for a post,
`tpq:rp:t:<run>` for a finished personal test, `tpq:rp:r:<run>` for a review round), and
the modal's custom_id carries the same (`tpq:rpm:...`). Posts, tests and review rounds
all show it, so it lives here (see `bot.ui.buttons`); cogs/reports.py registers it and
files what the modal submits. The Modal sent is given a timeout so discord.py forgets it:
its submission is handled by that cog's listener, which needs nothing kept in memory.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import discord

from bot.i18n import t
from bot.quiz.model import Lang
from bot.quiz.reports import MAX_BODY, REASONS
from bot.services.quiz import QuizError
from bot.ui.custom_ids import number
from bot.ui.responses import AnyInteraction, report_error, user_lang
from bot.ui.types import Interaction, quiz_bot

REASON_FIELD, BODY_FIELD, WHICH_FIELD = "reason", "body", "which"
#: Seconds discord.py keeps the Modal object (the listener needs none of it).
MODAL_TIMEOUT = 900.0
#: Report views kept for reuse (one per post or run and language recently answered).
REPORT_VIEWS_KEPT = 2048


class ReportButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:rp:(?P<kind>[ptr]):(?P<ref>[^:]+)",
):
    """ "Report a problem" under an answer reply; opens the report modal."""

    def __init__(self, kind: str, ref: int, label: str = "Report a problem") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                emoji="⚠️",
                custom_id=f"tpq:rp:{kind}:{ref}",
            )
        )
        self.kind = kind
        self.ref: int | None = ref

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReportButton:
        button = cls(match["kind"], 0)
        button.ref = number(match["ref"])
        return button

    async def callback(self, interaction: AnyInteraction) -> None:
        await open_modal(interaction, self.kind, self.ref)


@functools.lru_cache(maxsize=REPORT_VIEWS_KEPT)
def report_view(kind: str, ref: int, lang: Lang) -> discord.ui.View:
    """The view under an answer reply: the report button, labelled in `lang`.

    Kept and sent again for every reply to the same post (or run) in the same language:
    building a View and its button costs about 45 µs, a tenth of a click's own work in
    bench.answer_path's profile. Sending one View many times is safe because its only
    item is a DynamicItem with no timeout: discord.py keeps no per-message state for a
    fully dynamic view, and a click on it is routed by its custom_id. Callers must not
    change the view they get.
    """
    view = discord.ui.View(timeout=None)
    view.add_item(ReportButton(kind, ref, t("report_button", lang)))
    return view


def report_modal(
    kind: str, ref: int, lang: Lang, questions: list[tuple[str, str]] | None = None
) -> discord.ui.Modal:
    """The modal: which question (a test only: `questions` as (value, label)), the
    reason, and up to MAX_BODY characters."""
    modal = discord.ui.Modal(
        title=t("report_title", lang), custom_id=f"tpq:rpm:{kind}:{ref}", timeout=MODAL_TIMEOUT
    )
    if questions:
        which = discord.ui.Select[Any](
            custom_id=WHICH_FIELD,
            options=[discord.SelectOption(label=label[:100], value=v) for v, label in questions],
        )
        modal.add_item(discord.ui.Label(text=t("report_which", lang), component=which))
    reasons = discord.ui.Select[Any](
        custom_id=REASON_FIELD,
        options=[discord.SelectOption(label=t(f"reason_{r}", lang), value=r) for r in REASONS],
    )
    modal.add_item(discord.ui.Label(text=t("report_reason", lang), component=reasons))
    body = discord.ui.TextInput[Any](
        custom_id=BODY_FIELD,
        style=discord.TextStyle.paragraph,
        required=False,
        max_length=MAX_BODY,
        placeholder=t("report_body_hint", lang),
    )
    modal.add_item(discord.ui.Label(text=t("report_body", lang), component=body))
    return modal


async def open_modal(interaction: Interaction, kind: str, ref: int | None) -> None:
    """Answer the click with the modal (a modal cannot follow a deferral, so the only
    work first is one read of a test run's questions)."""
    lang = user_lang(interaction)
    try:
        if interaction.guild_id is None:
            raise QuizError("guild_only")
        if ref is None:
            raise QuizError({"p": "unknown_post", "t": "unknown_test"}.get(kind, "unknown_review"))
        questions = None
        if kind in ("t", "r"):
            bot = quiz_bot(interaction)
            ids = await bot.reports.question_ids_of_run(
                kind, ref, interaction.guild_id, interaction.user.id
            )
            questions = []
            for i, qid in enumerate(ids):
                question = bot.service.pool.get(qid) or bot.service.own.known(
                    interaction.guild_id, qid
                )
                text = question.text.get(lang) if question else qid
                questions.append((str(i), f"{i + 1}. {text}"))
        await interaction.response.send_modal(report_modal(kind, ref, lang, questions))
    except Exception as exc:
        await report_error(interaction, exc)
