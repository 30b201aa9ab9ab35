"""Members suggest questions, moderators review them (issue 27): glue only.

`/tpquiz suggest` (Turkish `öner`) joins the `tpquiz` group of cogs/quiz.py and opens
the suggestion modal; `/tpquiz-admin suggestions` (`öneriler`) pages through the open
ones with their review buttons, and `/tpquiz-admin suggestions-settings`
(`öneri-ayarları`) sets the review channel and the reviewer role. Both join
`cogs.admin`'s group, whose `interaction_check` does not cover them: the queue checks
the reviewer (Manage Server or the role) itself, the settings Manage Server
(`check_admin_command`), server-side.

The buttons and what they do are bot/ui/buttons/suggestion.py's; the modals'
submissions, which come to the listener here by custom_id, bot/ui/suggestion_flow.py's.
After any `/tpquiz` command of a member completes, they are told once of decisions on
their suggestions (`deliver_notices`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.i18n import t
from bot.ui.buttons.suggestion import (
    NO_MENTIONS,
    EditSuggestionButton,
    QueueButton,
    ReviewButton,
    show_queue,
)
from bot.ui.command_groups import check_admin_command, join_group, leave_group
from bot.ui.options import check_options
from bot.ui.render_suggestions import settings_text
from bot.ui.responses import Caller, preamble, reply, report_command_error, user_lang
from bot.ui.suggestion_flow import deliver_notices, on_modal, open_new_modal

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]


@app_commands.command(
    name=locale_str("suggest"), description=locale_str("Suggest a question for this server")
)
@app_commands.guild_only()
async def suggest_command(interaction: Interaction) -> None:
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    check_options(interaction)
    await open_new_modal(interaction)


@app_commands.command(
    name=locale_str("suggestions"),
    description=locale_str("Members' suggested questions waiting for review"),
)
@app_commands.describe(page=locale_str("Page number"))
@app_commands.rename(page=locale_str("page"))
async def suggestions_command(
    interaction: Interaction, page: app_commands.Range[int, 1, 10_000] = 1
) -> None:
    check_options(interaction)
    await show_queue(interaction, page - 1, edit=False)


#: What the bot needs in the review channel to post a suggestion with its buttons.
POST_PERMISSIONS = ("view_channel", "send_messages", "embed_links")


def _missing_permission(
    interaction: Interaction, channel: discord.TextChannel | None
) -> str | None:
    """Why the bot could not post in the review channel chosen, or None."""
    me = interaction.guild.me if interaction.guild is not None else None
    if channel is None or me is None:
        return None
    perms = channel.permissions_for(me)
    lang = user_lang(interaction)
    for name in POST_PERMISSIONS:
        if not getattr(perms, name):
            permission = t(f"perm_{name}", lang)
            return t(
                "suggestion_missing_permission",
                lang,
                channel=channel.mention,
                permission=permission,
            )
    return None


@app_commands.command(
    name=locale_str("suggestions-settings"),
    description=locale_str("Where suggestions are posted and who reviews them"),
)
@app_commands.describe(
    channel=locale_str("Channel where each new suggestion is posted for review"),
    reviewer_role=locale_str("Role whose members may review suggestions"),
    off=locale_str("Clear the review channel and the reviewer role"),
)
@app_commands.rename(
    channel=locale_str("channel"), reviewer_role=locale_str("reviewer-role"), off=locale_str("off")
)
async def settings_command(
    interaction: Interaction,
    channel: discord.TextChannel | None = None,
    reviewer_role: discord.Role | None = None,
    off: bool = False,
) -> None:
    check_admin_command(interaction, "the suggestion settings")
    service = interaction.client.suggestions
    missing = _missing_permission(interaction, channel)
    if missing is not None:
        await reply(interaction, content=missing, ephemeral=True, allowed_mentions=NO_MENTIONS)
        return

    async def work(caller: Caller) -> tuple[int | None, int | None]:
        now = await service.settings(caller.guild_id)
        if off:
            chosen: tuple[int | None, int | None] = (None, None)
        else:
            chosen = (
                channel.id if channel else now[0],
                reviewer_role.id if reviewer_role else now[1],
            )
        if off or channel or reviewer_role:
            await service.set_settings(
                caller.guild_id, channel_id=chosen[0], reviewer_role_id=chosen[1]
            )
            log.info("suggestion settings of guild %s: %s", caller.guild_id, chosen)
        return chosen

    done = await preamble(interaction, work, ephemeral=True)
    if done is not None:
        text = settings_text(*done.value, done.lang)
        await reply(interaction, content=text, ephemeral=True, allowed_mentions=NO_MENTIONS)


suggest_command.error(report_command_error)
suggestions_command.error(report_command_error)
settings_command.error(report_command_error)


class SuggestionsCog(commands.Cog):
    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_interaction(self, interaction: Interaction) -> None:
        if interaction.type is discord.InteractionType.modal_submit:
            await on_modal(interaction)

    @commands.Cog.listener()
    async def on_app_command_completion(
        self, interaction: Interaction, command: app_commands.Command[Any, ..., Any]
    ) -> None:
        """After a member's /tpquiz command: the decisions on their suggestions, once (as
        cogs/reminders.py says a refused DM)."""
        root = command.root_parent or command
        if root.name == "tpquiz":
            await deliver_notices(interaction)


async def setup(bot: TPQuizBot) -> None:
    bot.add_dynamic_items(EditSuggestionButton, ReviewButton, QueueButton)
    await join_group(bot, "tpquiz", [suggest_command])
    await join_group(bot, "tpquiz-admin", [suggestions_command, settings_command])
    await bot.add_cog(SuggestionsCog(bot))


async def teardown(bot: TPQuizBot) -> None:
    bot.remove_dynamic_items(EditSuggestionButton, ReviewButton, QueueButton)
    leave_group(bot, "tpquiz", ["suggest"])
    leave_group(bot, "tpquiz-admin", ["suggestions", "suggestions-settings"])
