"""The command tree: a command Discord knows and this code does not, in one sentence.

After an update the commands a client shows can lag behind the code (a removed
subcommand, changed options), and a forged interaction can name any command. discord.py
raises `CommandNotFound` or `CommandSignatureMismatch` for those before any cog is
involved, and by default only logs a traceback while the member sees "interaction
failed". Here the member is told to reload, and the log gets one line. A command or
autocomplete whose payload discord.py cannot read at all is refused the same way
(`interaction_check`, bot.ui.gateway_guard).
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.services.quiz import QuizError
from bot.ui.gateway_guard import refuse_unreadable, unreadable_command
from bot.ui.options import logged
from bot.ui.responses import report_error
from bot.ui.types import Interaction

log = logging.getLogger(__name__)


class CommandTree(app_commands.CommandTree[discord.Client]):
    """The bot's tree (its `tree_cls`); it uses nothing of the bot but its client."""

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        """Every command and autocomplete, before the tree reads its options: one that
        discord.py cannot read (bot.ui.gateway_guard) gets one warning line and an answer,
        instead of a traceback in the tree's task and no reply."""
        why = unreadable_command(interaction)
        if why is None:
            return True
        await refuse_unreadable(interaction, why)
        return False

    async def on_error(
        self, interaction: Interaction, error: app_commands.AppCommandError, /
    ) -> None:
        if not isinstance(
            error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch
        ):
            await super().on_error(interaction, error)
            return
        if interaction.response.is_done():  # a cog's error handler already answered
            return
        data: dict[str, Any] = dict(interaction.data or {})
        log.warning(
            "refused a command from user %s in guild %s: %s is not a command of this version (%s)",
            interaction.user.id,
            interaction.guild_id,
            logged(data.get("name")),
            type(error).__name__,
        )
        await report_error(interaction, QuizError("unknown_command"))
