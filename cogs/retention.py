"""A server that removes the bot: its data is deleted TPQUIZ_GUILD_RETENTION_DAYS later.

Glue only (the decisions are in `bot.services.privacy`, the SQL in bot/storage/sqlite/privacy.py).

- GUILD_DELETE without `unavailable` means the bot was removed (kicked, or the server
  deleted): discord.py calls `on_guild_remove`, and the deletion is recorded as pending,
  in the database, so it survives restarts and `tpquiz doctor` lists it. A GUILD_DELETE
  with `unavailable: true` is a Discord outage, not a removal: discord.py calls
  `on_guild_unavailable` instead, and nothing happens here.
- The bot back in the server before the date (GUILD_CREATE: `on_guild_join`, or
  `on_guild_available` for a server seen at start) cancels the pending deletion.
- A background loop deletes every server whose date has passed, by the bot's clock
  (which tests move). A removal while the bot was stopped sends no GUILD_DELETE, so it
  is not seen: `tpquiz forget-guild` is the way then (docs/privacy.md).
- Split into shards over several processes, each deletes only the servers of its own
  shards (`bot.ownership`): the one that saw the GUILD_DELETE.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands, tasks

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

#: Minutes between checks for due deletions: a server's data goes at most this late.
CHECK_MINUTES = 10


class RetentionCog(commands.Cog):
    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot
        self.service = bot.privacy

    async def cog_load(self) -> None:
        self.check.start()

    async def cog_unload(self) -> None:
        self.check.cancel()

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        try:
            await self.service.guild_removed(guild.id, self.bot.clock())
        except Exception:
            log.exception("could not record the removal from guild %s", guild.id)
        # Tells tests (`bot.wait_for("tpquiz_retention")`) that the event was handled.
        self.bot.dispatch("tpquiz_retention", guild.id)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self._present(guild)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        await self._present(guild)

    async def _present(self, guild: discord.Guild) -> None:
        try:
            await self.service.guild_present(guild.id)
        except Exception:
            log.exception("could not cancel the pending deletion of guild %s", guild.id)
        self.bot.dispatch("tpquiz_retention", guild.id)

    @tasks.loop(minutes=CHECK_MINUTES)
    async def check(self) -> None:
        try:
            await self.delete_due()
        except Exception:
            # Never let one failed check (a locked database, say) stop the loop.
            log.exception("retention check failed; the next one tries again")

    @check.before_loop
    async def _before_check(self) -> None:
        await self.bot.wait_until_ready()

    async def delete_due(self) -> list[int]:
        """Delete the servers whose retention has run out, by the bot's clock."""
        return await self.service.delete_due(self.bot.clock(), owns=self.bot.ownership.owns)


async def setup(bot: TPQuizBot) -> None:
    await bot.add_cog(RetentionCog(bot))
