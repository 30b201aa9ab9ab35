"""Filing what the "Report a problem" modal submits (issue #13).

Glue only: the button and the modal it opens are in `bot.ui.buttons.report` (answer
replies of several cogs show it); this extension registers the button, and
`bot.services.reports.ReportService` (the bot's `reports`) files the report.

The modal submission is handled by a listener on every interaction, not by the `Modal`
object discord.py keeps in memory: a modal left open across a restart still files its
report, as the answer buttons still work after one (state in the custom_id). The Modal
sent is given a timeout so discord.py forgets it; its own on_submit does nothing.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.i18n import t
from bot.quiz.reports import Refusal
from bot.services.quiz import QuizError
from bot.ui.buttons.report import BODY_FIELD, REASON_FIELD, WHICH_FIELD, ReportButton
from bot.ui.custom_ids import number
from bot.ui.modals import submitted_values
from bot.ui.responses import Caller, preamble, reply

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot
    from bot.storage.records import Report

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]

MODAL_ID = re.compile(r"tpq:rpm:(?P<kind>[ptr]):(?P<ref>[^:]+)")


async def _file(
    interaction: Interaction, caller: Caller, kind: str, ref: int | None
) -> Report | Refusal:
    """File the submitted report: the stored report, or the key of why it was not."""
    guild_id = caller.guild_id
    service = interaction.client.reports
    values = submitted_values(interaction.data)
    if ref is None:
        raise QuizError({"p": "unknown_post", "t": "unknown_test"}.get(kind, "unknown_review"))
    if kind == "p":
        question_id = await service.question_of_post(ref, guild_id)
    else:
        ids = await service.question_ids_of_run(kind, ref, guild_id, caller.user_id)
        position = number((values.get(WHICH_FIELD) or [""])[0], 99)
        if position is None or position >= len(ids):
            raise QuizError("bad_choice")
        question_id = ids[position]
    reason = (values.get(REASON_FIELD) or [""])[0]
    body = (values.get(BODY_FIELD) or [""])[0]
    return await service.file(
        guild_id=guild_id,
        user_id=caller.user_id,
        question_id=question_id,
        language=caller.lang,
        reason=reason,
        body=body,
    )


async def submit(interaction: Interaction, kind: str, ref: int | None) -> None:
    done = await preamble(
        interaction, lambda caller: _file(interaction, caller, kind, ref), ephemeral=True
    )
    if done is None:
        return
    outcome, lang = done.value, done.lang
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
