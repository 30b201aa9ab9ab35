"""The periodic refresh of each server's item statistics summary (issue #13).

Glue only: the work is `bot.services.items.ItemStatsService.refresh_due` (the bot's
`items`). Every
REFRESH_MINUTES, the servers whose first answers changed since their last refresh (or
that have none yet, or a stale one) are recomputed, a bounded number of answers per
tick, so that `/tpquiz-admin questions` reads a summary in milliseconds instead of
computing over a big server's answers. The loop waits for the bot to be ready first, as
discord.py's examples/background_task.py does; a failed tick is logged and the next one
tries again (a write the database refuses, a full disk say, in one line when it starts
and one when it ends, not a traceback per tick). Split into shards over several processes, a
process refreshes only the servers of its own shards (`bot.ownership`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

from bot.infra.fault_log import FaultLog
from bot.services.items import REFRESH_MINUTES
from bot.storage.errors import WriteFailed

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)


class ItemRefreshCog(commands.Cog):
    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot
        #: Set once the first tick after start is over (tests wait on it).
        self.first_tick = asyncio.Event()
        #: A full disk or a database that is down fails every refresh: one warning when
        #: that starts and one line when a refresh works again (bot.infra.fault_log).
        self.faults = FaultLog(
            log,
            "item statistics refresh: the database write failed (%s); the next one tries again",
            "item statistics refresh: the database write works again",
        )

    async def cog_load(self) -> None:
        self.refresh.start()

    async def cog_unload(self) -> None:
        self.refresh.cancel()

    @tasks.loop(minutes=REFRESH_MINUTES)
    async def refresh(self) -> None:
        try:
            await self.refresh_due()
        except WriteFailed as exc:
            self.faults.failed(exc.reason)
        except Exception:
            log.exception("item statistics refresh failed; the next one tries again")
        else:
            self.faults.worked()
        finally:
            self.first_tick.set()

    @refresh.before_loop
    async def _before_refresh(self) -> None:
        await self.bot.wait_until_ready()

    async def refresh_due(self) -> list[int]:
        """Refresh the servers that are due, by the bot's clock; the servers written."""
        now_ms = int(self.bot.clock().timestamp() * 1000)
        return await self.bot.items.refresh_due(now_ms, owns=self.bot.ownership.owns)


async def setup(bot: TPQuizBot) -> None:
    await bot.add_cog(ItemRefreshCog(bot))
