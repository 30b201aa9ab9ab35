"""`/tpquiz-admin questions` and `/tpquiz-admin question <id>`: a server's item statistics.

Glue only, as `cogs.reports_admin`: the commands join the `tpquiz-admin` group of
`cogs.admin`, whose `interaction_check` does not cover commands added from another
module, so Manage Server and the options are checked here on each command
(`check_admin_command`) and Manage Server on every Previous/Next click (anyone who sees the message can click, and a custom_id can be forged). The page
lives in the custom_id, so the buttons work after a restart. Report bodies are shown
escaped and sent with no allowed mentions.

The figures come from the server's summary, refreshed every few minutes
(cogs/item_refresh.py); the message says when they were computed ("as of", a Discord
timestamp the admin's client shows in their time zone), or that they were computed just
now because the server has no up-to-date summary yet.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.i18n import t
from bot.quiz.model import Lang, Question
from bot.services.items import REFRESH_MINUTES, Listed, ServerStats
from bot.services.quiz import QuizError
from bot.ui.command_groups import (
    check_admin_command,
    join_group,
    leave_group,
    require_manage_guild,
)
from bot.ui.custom_ids import number
from bot.ui.render_items import pages_of, question_embed, questions_embed
from bot.ui.responses import AnyInteraction, preamble, reply, report_command_error, update

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot
    from bot.storage.records import Report

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]

NO_MENTIONS = discord.AllowedMentions.none()
#: The longest question id the option accepts (bank ids are far shorter).
ID_LENGTH = 100


def _admin(interaction: Interaction) -> int:
    """The server, for a caller who may manage it (else a QuizError)."""
    require_manage_guild(interaction, "the item statistics")
    assert interaction.guild_id is not None  # checked just above
    return interaction.guild_id


async def _listed(interaction: Interaction) -> tuple[ServerStats, list[Listed]]:
    stats = await interaction.client.items.server_stats(_admin(interaction))
    return stats, stats.listed()


def as_of(stats: ServerStats, lang: Lang) -> str:
    """When the figures were computed: the summary's time, or just now."""
    if stats.as_of_ms is None:
        return t("questions_computed_now", lang, minutes=REFRESH_MINUTES)
    when = f"<t:{stats.as_of_ms // 1000}:R>"
    return t("questions_as_of", lang, when=when, minutes=REFRESH_MINUTES)


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:qs:(?P<page>[^:]+):(?P<dir>[pn])",
):
    """Previous or Next page of the flagged questions; the target page is in the custom_id."""

    def __init__(self, page: int, direction: str, label: str = "Next", *, disabled: bool = False):
        super().__init__(
            discord.ui.Button(
                label=label[:80],
                style=discord.ButtonStyle.secondary,
                custom_id=f"tpq:qs:{page}:{direction}",
                disabled=disabled,
            )
        )
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PageButton:
        return cls(number(match["page"], 10_000) or 0, match["dir"])

    async def callback(self, interaction: AnyInteraction) -> None:
        await self.pressed(interaction)

    async def pressed(self, interaction: Interaction) -> None:
        done = await preamble(
            interaction, lambda caller: _listed(interaction), ephemeral=True, update=True
        )
        if done is None:
            return
        (found, flagged), lang = done.value, done.lang
        page = min(self.page, pages_of(len(flagged)) - 1)
        await update(
            interaction,
            content=as_of(found, lang),
            embeds=[questions_embed(flagged, page, lang)],
            view=page_view(flagged, page, lang),
            allowed_mentions=NO_MENTIONS,
        )


def page_view(flagged: list[Listed], page: int, lang: Lang) -> discord.ui.View | None:
    pages = pages_of(len(flagged))
    if pages <= 1:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(
        PageButton(max(page - 1, 0), "p", t("questions_previous", lang), disabled=page == 0)
    )
    view.add_item(
        PageButton(
            min(page + 1, pages - 1), "n", t("questions_next", lang), disabled=page >= pages - 1
        )
    )
    return view


@app_commands.command(
    name=locale_str("questions"), description=locale_str("This server's most flagged questions")
)
@app_commands.describe(page=locale_str("Page number"))
@app_commands.rename(page=locale_str("page"))
async def questions_command(
    interaction: Interaction, page: app_commands.Range[int, 1, 10_000] = 1
) -> None:
    check_admin_command(interaction, "the item statistics")
    done = await preamble(interaction, lambda caller: _listed(interaction), ephemeral=True)
    if done is None:
        return
    (found, flagged), lang = done.value, done.lang
    shown = min(page - 1, pages_of(len(flagged)) - 1)
    await reply(
        interaction,
        content=as_of(found, lang),
        embed=questions_embed(flagged, shown, lang),
        view=page_view(flagged, shown, lang),
        ephemeral=True,
        allowed_mentions=NO_MENTIONS,
    )


async def _one_question(
    interaction: Interaction, question_id: str
) -> tuple[Question, ServerStats, list[Report]]:
    """The server's statistics (one question's shown) and the question's reports."""
    guild_id = _admin(interaction)
    items = interaction.client.items
    question = await items.question(guild_id, question_id)
    if question is None:
        raise QuizError("question_unknown", question_id=question_id)
    stats = await items.server_stats(guild_id)
    reports = await interaction.client.reports.reports_of_question(guild_id, question_id)
    return question, stats, reports


@app_commands.command(
    name=locale_str("question"),
    description=locale_str("One question's figures, choice bars and reports"),
)
@app_commands.describe(question_id=locale_str("The question's id"))
@app_commands.rename(question_id=locale_str("id"))
async def question_command(
    interaction: Interaction, question_id: app_commands.Range[str, 1, ID_LENGTH]
) -> None:
    check_admin_command(interaction, "the item statistics")
    done = await preamble(
        interaction, lambda caller: _one_question(interaction, question_id), ephemeral=True
    )
    if done is None:
        return
    question, found, reports = done.value
    await reply(
        interaction,
        content=as_of(found, done.lang),
        embed=question_embed(question, found.of(question.id), reports, done.lang),
        ephemeral=True,
        allowed_mentions=NO_MENTIONS,
    )


@question_command.autocomplete("question_id")
async def _question_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    if not isinstance(current, str) or len(current) > ID_LENGTH:
        return []
    return [
        app_commands.Choice(name=i, value=i) for i in interaction.client.items.ids_matching(current)
    ]


questions_command.error(report_command_error)
question_command.error(report_command_error)


async def setup(bot: TPQuizBot) -> None:
    bot.add_dynamic_items(PageButton)
    await join_group(bot, "tpquiz-admin", [questions_command, question_command])


async def teardown(bot: TPQuizBot) -> None:
    bot.remove_dynamic_items(PageButton)
    leave_group(bot, "tpquiz-admin", ["questions", "question"])
