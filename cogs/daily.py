"""Daily question posts: the tick loop, sending each server's post, and the reveal edit.

Every decision (which server is due, which question, when a post closes) is made by
`bot.services.daily.DailyService` and the pure rules behind it; this module only talks to Discord.
The order of operations is what makes it safe:

1. the server's (guild, local date) slot is claimed in the database, with the post row,
   in one transaction, *before* anything is sent; a claim that loses a race (an
   overlapping tick, `daily now`, another process) returns nothing and sends nothing;
2. the message is sent; on any failure the error is stored for `/tpquiz-admin settings`
   and the slot stays taken, so the day is never posted twice and the next day's time
   tries again;
3. once it is out, the server's previous daily post is closed and edited to reveal the
   answer with a bar per choice.

A 429 is left to discord.py's rate-limit handling. To stay under Discord's global limit
(50 requests per second per bot) when many servers are due in the same minute, sends go
through the bot's `DailyPoster` (`bot.ui.poster`): one semaphore and one even pacer,
shared by the tick, `daily now` and the reminders.

Split into shards over several processes (TPQUIZ_SHARDS), a process posts and closes
only for the servers of its own shards (`bot.ownership`), so each server's post comes
from one process; the claim in step 1 still makes a mistaken overlap post once.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

from bot.ui.poster import TICK_SECONDS, Delivery

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)


@dataclass
class DailyRun:
    """What one tick did (for logs and tests)."""

    due: list[tuple[int, date]] = field(default_factory=list)
    delivered: list[Delivery] = field(default_factory=list)
    failed: list[Delivery] = field(default_factory=list)
    closed: list[int] = field(default_factory=list)


class DailyCog(commands.Cog):
    """Runs the daily tick: every TICK_SECONDS, and once as soon as the bot is ready."""

    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot
        self.service = bot.daily
        self.poster = bot.poster
        #: Set when the first tick (the catch-up at start) has finished.
        self.first_tick_done = asyncio.Event()

    async def cog_load(self) -> None:
        self.tick.start()

    async def cog_unload(self) -> None:
        self.tick.cancel()

    @tasks.loop(seconds=TICK_SECONDS)
    async def tick(self) -> None:
        try:
            await self.run_due(self.bot.clock())
        except Exception:
            # Never let one bad tick (a locked database, say) stop the loop.
            log.exception("daily tick failed; the next tick tries again")
        finally:
            self.first_tick_done.set()

    @tick.before_loop
    async def _before_tick(self) -> None:
        await self.bot.wait_until_ready()

    async def run_due(self, now: datetime) -> DailyRun:
        """Post every due server's question and close what is due to close, at `now`.

        Safe to run twice at once: each (server, day) is claimed in the database before
        sending, so an overlapping run finds nothing left to claim. One server's failure
        is recorded and logged; the others still get their posts.
        """
        owned = self.bot.ownership
        run = DailyRun(due=owned.only_owned(await self.service.due(now), lambda d: d[0]))
        results = await asyncio.gather(
            *(self._post(guild_id, day, now) for guild_id, day in run.due),
            return_exceptions=True,
        )
        for (guild_id, _), result in zip(run.due, results, strict=True):
            if isinstance(result, BaseException):
                log.error("daily post for guild %s failed", guild_id, exc_info=result)
            elif result is not None:
                (run.delivered if result.ok else run.failed).append(result)
        for post in owned.only_owned(await self.service.due_to_close(now), lambda p: p.guild_id):
            try:
                if await self.poster.close(post.id, now):
                    run.closed.append(post.id)
            except Exception:
                log.exception("closing daily post %s failed", post.id)
        if run.due or run.closed:
            log.info(
                "daily tick: %d due, %d posted, %d failed, %d closed",
                len(run.due),
                len(run.delivered),
                len(run.failed),
                len(run.closed),
            )
        return run

    async def _post(self, guild_id: int, day: date, now: datetime) -> Delivery | None:
        claim = await self.poster.claim(guild_id, day, now)
        if claim is None:
            return None  # someone else took the day
        return await self.poster.deliver(claim, now)


async def setup(bot: TPQuizBot) -> None:
    await bot.add_cog(DailyCog(bot))
