"""`/tpquiz-admin reports`: a server's open problem reports, with a Resolve button each.

Glue only, beside `cogs.reports` (the member's side). The command joins the
`tpquiz-admin` group of `cogs.admin`, whose `interaction_check` does not cover commands
added from another module, so Manage Server and the options are checked here on the
command (`check_admin_command`) and Manage Server again on every Resolve click (a button can be clicked by anyone who sees the message, and the
custom_id can be forged). A report's body is a member's words: shown escaped
(`bot.ui.limits.echo`: no markdown, no mentions, one line) and sent with no allowed mentions.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.i18n import t
from bot.quiz.model import Lang
from bot.services.quiz import QuizError
from bot.storage.records import Report
from bot.ui.command_groups import (
    check_admin_command,
    join_group,
    leave_group,
    require_manage_guild,
)
from bot.ui.custom_ids import number
from bot.ui.limits import echo
from bot.ui.render import QUESTION_COLOUR
from bot.ui.responses import AnyInteraction, preamble, reply, report_command_error, update

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]

#: Reports per page: one Resolve button each, in one action row.
PAGE = 5
BODY_SHOWN = 300
NO_MENTIONS = discord.AllowedMentions.none()


def _admin(interaction: Interaction) -> int:
    """The server, for a caller who may manage it (else a QuizError)."""
    require_manage_guild(interaction, "the reports")
    assert interaction.guild_id is not None  # checked just above
    return interaction.guild_id


def reports_embed(found: list[Report], total: int, page: int, lang: Lang) -> discord.Embed:
    """One page of open reports, newest first; every member-written text escaped."""
    embed = discord.Embed(title=t("reports_title", lang), colour=QUESTION_COLOUR)
    if not found:
        embed.description = t("reports_none", lang)
        return embed
    lines = []
    for report in found:
        head = t(
            "reports_line",
            lang,
            id=report.id,
            question=echo(report.question_id, 60),
            reason=t(f"reason_{report.reason}", lang),
            user=report.user_id,
            when=f"<t:{report.created_at // 1000}:R>",
        )
        body = echo(report.body, BODY_SHOWN) if report.body else "—"
        lines.append(f"{head}\n> {body}")
    embed.description = "\n\n".join(lines)[:4096]
    pages = max(1, -(-total // PAGE))
    embed.set_footer(text=t("reports_page", lang, page=page + 1, pages=pages, n=total))
    return embed


class ResolveButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:rr:(?P<report>[^:]+):(?P<page>[^:]+)",
):
    """Resolve one report, then redraw the page; the state is all in the custom_id."""

    def __init__(self, report_id: int, page: int, label: str = "Resolve") -> None:
        super().__init__(
            discord.ui.Button(
                label=label[:80],
                style=discord.ButtonStyle.success,
                custom_id=f"tpq:rr:{report_id}:{page}",
            )
        )
        self.report_id, self.page = report_id, page

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ResolveButton:
        # A forged number reads as report 0, which no server has: "no open report #0".
        return cls(number(match["report"]) or 0, number(match["page"], 10_000) or 0)

    async def callback(self, interaction: AnyInteraction) -> None:
        await self.pressed(interaction)

    async def pressed(self, interaction: Interaction) -> None:
        done = await preamble(
            interaction, lambda caller: self._resolve(interaction), ephemeral=True, update=True
        )
        if done is None:
            return
        (found, total), lang = done.value, done.lang
        await update(
            interaction,
            content=t("report_resolved", lang, id=self.report_id),
            embeds=[reports_embed(found, total, self.page, lang)],
            view=page_view(found, self.page, lang),
            allowed_mentions=NO_MENTIONS,
        )

    async def _resolve(self, interaction: Interaction) -> tuple[list[Report], int]:
        """Resolve the report; the open reports of this page after it (or of the first
        page, when this one is now empty)."""
        guild_id = _admin(interaction)
        service = interaction.client.reports
        done = await service.resolve(guild_id, self.report_id, interaction.user.id)
        if done is None:
            raise QuizError("report_unknown", id=self.report_id)
        log.info(
            "report %s resolved by user %s in guild %s", done.id, interaction.user.id, guild_id
        )
        found, total = await service.open_reports(guild_id, limit=PAGE, offset=self.page * PAGE)
        if not found and self.page:
            self.page = 0
            found, total = await service.open_reports(guild_id, limit=PAGE)
        return found, total


def page_view(found: list[Report], page: int, lang: Lang) -> discord.ui.View | None:
    if not found:
        return None
    view = discord.ui.View(timeout=None)
    for report in found:
        view.add_item(ResolveButton(report.id, page, t("resolve_button", lang, id=report.id)))
    return view


@app_commands.command(
    name=locale_str("reports"), description=locale_str("Open problem reports on questions")
)
@app_commands.describe(page=locale_str("Page number"))
@app_commands.rename(page=locale_str("page"))
async def reports_command(
    interaction: Interaction, page: app_commands.Range[int, 1, 10_000] = 1
) -> None:
    check_admin_command(interaction, "the reports")
    done = await preamble(
        interaction,
        lambda caller: interaction.client.reports.open_reports(
            _admin(interaction), limit=PAGE, offset=(page - 1) * PAGE
        ),
        ephemeral=True,
    )
    if done is None:
        return
    (found, total), lang = done.value, done.lang
    await reply(
        interaction,
        embed=reports_embed(found, total, page - 1, lang),
        view=page_view(found, page - 1, lang),
        ephemeral=True,
        allowed_mentions=NO_MENTIONS,
    )


reports_command.error(report_command_error)


async def setup(bot: TPQuizBot) -> None:
    bot.add_dynamic_items(ResolveButton)
    await join_group(bot, "tpquiz-admin", [reports_command])


async def teardown(bot: TPQuizBot) -> None:
    bot.remove_dynamic_items(ResolveButton)
    leave_group(bot, "tpquiz-admin", ["reports"])
