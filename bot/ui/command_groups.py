"""Commands that join a group another extension owns, and the admin check they share.

`/tpquiz` is created by `cogs.quiz` and `/tpquiz-admin` by `cogs.admin`; the review,
stats, privacy, reports and item-statistics extensions add their subcommands to those
groups at load time, in one way, here. A command added to `/tpquiz-admin` from another
module is not covered by the admin cog's `interaction_check`, so it calls
`check_admin_command` itself (and every button it shows `require_manage_guild`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.services.quiz import QuizError
from bot.ui.options import check_options

log = logging.getLogger(__name__)

#: The extension that creates each group.
OWNERS = {"tpquiz": "cogs.quiz", "tpquiz-admin": "cogs.admin"}


async def join_group(
    bot: commands.Bot,
    group_name: str,
    added: Iterable[app_commands.Command[Any, Any, Any] | app_commands.Group],
) -> None:
    """Load the group's owner if it is not loaded yet, then add `added` to the group."""
    owner = OWNERS[group_name]
    if owner not in bot.extensions:
        await bot.load_extension(owner)
    group = bot.tree.get_command(group_name)
    assert isinstance(group, app_commands.Group), f"{owner} owns the {group_name} group"
    for command in added:
        group.add_command(command)


def leave_group(bot: commands.Bot, group_name: str, names: Iterable[str]) -> None:
    """Take the named subcommands out of the group again (an extension's teardown)."""
    group = bot.tree.get_command(group_name)
    if isinstance(group, app_commands.Group):
        for name in names:
            group.remove_command(name)


def require_manage_guild(interaction: discord.Interaction[Any], what: str) -> None:
    """Refuse (QuizError) outside a server or without Manage Server; `what` is for the log."""
    if interaction.guild_id is None:
        raise QuizError("guild_only")
    if not interaction.permissions.manage_guild:
        log.info(
            "refused %s of guild %s to user %s (no Manage Server)",
            what,
            interaction.guild_id,
            interaction.user.id,
        )
        raise QuizError("admin_only")


def check_admin_command(interaction: discord.Interaction[Any], what: str) -> None:
    """What the admin cog's `interaction_check` does for its own subcommands, for one
    added from another module: in a server, Manage Server, then the option values
    (`bot.ui.options.check_options`: a forged `page` of 0 or 2**70, or a string, is refused
    before the command reads it). Called first in the command's body; the command's
    error handler (`bot.ui.responses.report_command_error`) answers the refusal."""
    require_manage_guild(interaction, what)
    check_options(interaction)
