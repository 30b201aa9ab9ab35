"""The "Report a problem" button on answer replies and the modal it opens (issue #13).

Glue only: the button's custom_id says what the member answered (`tpq:rp:p:<post>` for a
post, `tpq:rp:t:<run>` for a finished personal test), the modal's custom_id carries the
same (`tpq:rpm:...`), and `bot.reports_service.ReportService` files the report.

The modal submission is handled by a listener on every interaction, not by the `Modal`
object discord.py keeps in memory: a modal left open across a restart still files its
report, as the answer buttons still work after one (state in the custom_id). The Modal
sent is given a timeout so discord.py forgets it; its own on_submit does nothing.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, cast

import discord
from discord.ext import commands

from bot.custom_ids import number
from bot.i18n import t
from bot.quiz.model import Lang
from bot.quiz.reports import MAX_BODY, REASONS
from bot.reports_service import ReportService
from bot.responses import reply, report_error, user_lang
from bot.service import QuizError

if TYPE_CHECKING:
    from bot.client import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]

MODAL_ID = re.compile(r"tpq:rpm:(?P<kind>[ptr]):(?P<ref>[^:]+)")
REASON_FIELD, BODY_FIELD, WHICH_FIELD = "reason", "body", "which"
#: Seconds discord.py keeps the Modal object (the listener needs none of it).
MODAL_TIMEOUT = 900.0


def _bot(interaction: Interaction) -> TPQuizBot:
    return cast("TPQuizBot", interaction.client)


def _reports(interaction: Interaction) -> ReportService:
    return ReportService(_bot(interaction).service)


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
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReportButton:
        button = cls(match["kind"], 0)
        button.ref = number(match["ref"])
        return button

    async def callback(self, interaction: Interaction) -> None:
        await open_modal(interaction, self.kind, self.ref)


def report_view(kind: str, ref: int, lang: Lang) -> discord.ui.View:
    """The view under an answer reply: the report button, labelled in `lang`."""
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
            bot = _bot(interaction)
            ids = await _reports(interaction).question_ids_of_run(
                kind, ref, interaction.guild_id, interaction.user.id
            )
            questions = []
            for i, qid in enumerate(ids):
                question = bot.service.pool.get(qid)
                text = question.text.get(lang) if question else qid
                questions.append((str(i), f"{i + 1}. {text}"))
        await interaction.response.send_modal(report_modal(kind, ref, lang, questions))
    except Exception as exc:
        await report_error(interaction, exc)


def submitted_values(data: Any) -> dict[str, list[str]]:
    """custom_id -> values of a modal submission, for labels (type 18, `component`) and
    action rows (type 1, `components`) alike; a text input gives its value as one item."""
    found: dict[str, list[str]] = {}
    rows = data.get("components", []) if isinstance(data, dict) else []
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        inner = [row["component"]] if isinstance(row.get("component"), dict) else []
        inner += [c for c in row.get("components", []) or [] if isinstance(c, dict)]
        for component in inner:
            custom_id = component.get("custom_id")
            if not isinstance(custom_id, str):
                continue
            if isinstance(component.get("values"), list):
                found[custom_id] = [str(v) for v in component["values"]]
            elif isinstance(component.get("value"), str):
                found[custom_id] = [component["value"]]
    return found


async def submit(interaction: Interaction, kind: str, ref: int | None) -> None:
    lang = user_lang(interaction)
    try:
        guild_id = interaction.guild_id
        if guild_id is None:
            raise QuizError("guild_only")
        service = _reports(interaction)
        values = submitted_values(interaction.data)
        if ref is None:
            raise QuizError({"p": "unknown_post", "t": "unknown_test"}.get(kind, "unknown_review"))
        if kind == "p":
            question_id = await service.question_of_post(ref, guild_id)
        else:
            ids = await service.question_ids_of_run(kind, ref, guild_id, interaction.user.id)
            position = number((values.get(WHICH_FIELD) or [""])[0], 99)
            if position is None or position >= len(ids):
                raise QuizError("bad_choice")
            question_id = ids[position]
        reason = (values.get(REASON_FIELD) or [""])[0]
        body = (values.get(BODY_FIELD) or [""])[0]
        outcome = await service.file(
            guild_id=guild_id,
            user_id=interaction.user.id,
            question_id=question_id,
            language=lang,
            reason=reason,
            body=body,
        )
    except Exception as exc:
        await report_error(interaction, exc)
        return
    if isinstance(outcome, str):
        text = t(outcome, lang)
    else:
        log.info(
            "report %s on %s by user %s in guild %s (%s)",
            outcome.id,
            outcome.question_id,
            outcome.user_id,
            outcome.guild_id,
            outcome.reason,
        )
        text = t("report_thanks", lang)
    try:
        await reply(interaction, content=text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not answer report submission %s", interaction.id, exc_info=True)


class ReportsCog(commands.Cog):
    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_interaction(self, interaction: Interaction) -> None:
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: dict[str, Any] = dict(interaction.data) if interaction.data else {}
        match = MODAL_ID.fullmatch(str(data.get("custom_id", "")))
        if match is None:
            return
        await submit(interaction, match["kind"], number(match["ref"]))


async def setup(bot: TPQuizBot) -> None:
    bot.add_dynamic_items(ReportButton)
    await bot.add_cog(ReportsCog(bot))
