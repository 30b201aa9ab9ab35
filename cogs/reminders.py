"""Opt-in review reminders: the tick that DMs members, and the 50007 notice.

Order of operations, as for daily posts (cogs/daily.py): the member's day is claimed in
the database before the DM is sent, so two ticks never send one member two reminders on
a day; DMs go through the daily posts' pacer, so a minute with many reminders and many
daily posts together stays under Discord's global rate limit. A DM Discord refuses with
50007 (the member's DMs are closed) turns the reminder off; the member is told the next
time a `/tpquiz` command of theirs completes (`on_app_command_completion`). The setting
itself is an option of `/tpquiz review` (cogs/review.py).

Split into shards over several processes, a process reminds only the members of the
servers on its own shards (`bot.ownership`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.i18n import t
from bot.infra.fault_log import FaultLog
from bot.services.reminders import DueReminder, ReminderService
from bot.storage.errors import WriteFailed
from bot.ui.buttons.review import start_view
from bot.ui.poster import TICK_SECONDS, Pacer
from bot.ui.responses import user_lang

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]
#: Discord's "Cannot send messages to this user".
DMS_CLOSED = 50007


@dataclass
class ReminderRun:
    """What one tick did (for logs and tests)."""

    sent: list[DueReminder] = field(default_factory=list)
    refused: list[DueReminder] = field(default_factory=list)
    failed: list[DueReminder] = field(default_factory=list)
    #: Not claimed: the database took no write (still due; the next tick tries again).
    unsaved: list[DueReminder] = field(default_factory=list)


class ReminderCog(commands.Cog):
    """Runs the reminder tick every TICK_SECONDS, like the daily posts."""

    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot
        self.service: ReminderService = bot.reminders
        #: A full disk or a database that is down fails every claim of every tick: one
        #: warning when that starts, one line when a claim works again (bot.infra.fault_log).
        self.faults = FaultLog(
            log,
            "review reminders: the database write failed (%s); the next tick tries again",
            "review reminders: the database write works again",
        )

    async def cog_load(self) -> None:
        self.tick.start()

    async def cog_unload(self) -> None:
        self.tick.cancel()

    @property
    def pacer(self) -> Pacer:
        """The daily posts' pacer: one budget for both (see `bot.ui.poster`)."""
        return self.bot.poster.pacer

    @tasks.loop(seconds=TICK_SECONDS)
    async def tick(self) -> None:
        try:
            await self.run_due(self.bot.clock())
        except Exception:
            log.exception("reminder tick failed; the next tick tries again")

    @tick.before_loop
    async def _before_tick(self) -> None:
        await self.bot.wait_until_ready()

    async def run_due(self, now: datetime) -> ReminderRun:
        """DM every member whose reminder is due at `now`; safe to run twice at once."""
        run = ReminderRun()
        try:
            due = await self.service.due(now, owns=self.bot.ownership.owns)
        except WriteFailed as exc:  # the database cannot be read now
            self.faults.failed(exc.reason)
            return run
        results = await asyncio.gather(*(self._remind(r) for r in due), return_exceptions=True)
        for reminder, result in zip(due, results, strict=True):
            if isinstance(result, WriteFailed):  # not claimed: the next tick tries again
                self.faults.failed(result.reason)
                run.unsaved.append(reminder)
                continue
            self.faults.worked()
            if isinstance(result, BaseException):
                log.error("reminder for user %s failed", reminder.user_id, exc_info=result)
                run.failed.append(reminder)
            elif result == "sent":
                run.sent.append(reminder)
            elif result == "refused":
                run.refused.append(reminder)
            elif result == "failed":
                run.failed.append(reminder)
        if len(due) > len(run.unsaved):  # a tick that could write nothing said so above
            log.info(
                "reminder tick: %d due, %d sent, %d refused, %d failed",
                len(due),
                len(run.sent),
                len(run.refused),
                len(run.failed),
            )
        return run

    async def _remind(self, reminder: DueReminder) -> str | None:
        if not await self.service.claim(reminder):
            return None  # another tick took the day
        lang = reminder.language
        guild = self.bot.get_guild(reminder.guild_id)
        embed = discord.Embed(
            title=t("reminder_dm_title", lang, n=reminder.due_cards),
            description=t(
                "reminder_dm_body",
                lang,
                guild=discord.utils.escape_markdown(guild.name if guild else t("a_server", lang)),
            ),
            colour=discord.Colour.blurple(),
        )
        try:
            await self.pacer.wait()
            channel = await self.bot.create_dm(discord.Object(reminder.user_id))
            await self.pacer.wait()
            await channel.send(embed=embed, view=start_view(reminder.guild_id, lang))
        except discord.Forbidden as exc:
            if exc.code != DMS_CLOSED:
                raise
            log.info(
                "user %s does not accept DMs (50007): review reminder in guild %s turned off",
                reminder.user_id,
                reminder.guild_id,
            )
            await self.service.refused(reminder)
            return "refused"
        except discord.HTTPException as exc:  # the day stays claimed; tomorrow tries again
            log.warning(
                "review reminder DM to user %s failed (status %s, code %s): %s",
                reminder.user_id,
                exc.status,
                exc.code,
                exc.text,
            )
            return "failed"
        return "sent"

    @commands.Cog.listener()
    async def on_app_command_completion(
        self, interaction: Interaction, command: app_commands.Command[Any, ..., Any]
    ) -> None:
        """After a member's /tpquiz command: say once that Discord refused their DM."""
        root = command.root_parent or command
        if root.name != "tpquiz" or interaction.guild_id is None:
            return
        try:
            if await self.service.take_refusal(interaction.guild_id, interaction.user.id):
                await interaction.followup.send(
                    t("reminder_refused", user_lang(interaction)), ephemeral=True
                )
        except Exception:
            log.warning(
                "could not tell user %s about refused DMs", interaction.user.id, exc_info=True
            )


async def setup(bot: TPQuizBot) -> None:
    await bot.add_cog(ReminderCog(bot))
