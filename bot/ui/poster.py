"""Sending daily posts and their reveal edits, paced under Discord's global rate limit.

`DailyPoster` is one of the bot's resources (built with the services in `bot.runtime.compose`),
not a cog's: the daily tick (cogs/daily.py), `/tpquiz-admin daily now` (cogs/admin.py)
and the review reminders (cogs/reminders.py, through its `pacer`) share one semaphore
and one pacer, and so do the "N answered" count edits (`TPQuizBot.edit_count`) and quiz
night's channel edits (bot/ui/live_announcer.py), so a minute with many servers due, an admin's `daily
now`, many reminders and busy posts together stay under Discord's 50 requests per second.

What the pacer leaves room for (issue 30): Discord's global limit counts every request
made with the bot's token except interaction responses and their follow-ups (they go to
the interaction's own webhook), so the replies to clicks need no room in it. Every
request the bot makes in bulk goes through the pacer, which therefore runs close to the
limit: one request a second under it (`SENDS_PER_SECOND`), the room for the few requests
that are not paced (a command sync at start-up, an admin command's channel request) and
for requests reaching Discord a little closer together than they were started.

The order of operations that makes a post safe is in cogs/daily.py's docstring: the
(server, day) slot is claimed before anything is sent, a failed send is recorded and
leaves the slot taken, and the older post is closed once the new one is out.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import discord

from bot.ops.metrics import Metrics
from bot.quiz.model import Lang
from bot.services.daily import DailyClaim, DailyService
from bot.ui import render
from bot.ui.buttons.answer import answer_view, closed_view
from bot.ui.figures import FigureCache, attach

log = logging.getLogger(__name__)

#: Seconds between ticks of the daily posts and of the reminders. A post goes out at
#: most this long after its time.
TICK_SECONDS = 30
#: Daily sends in flight at once (posts and reveal edits).
MAX_CONCURRENT_SENDS = 8
#: Discord's global limit: requests per second per bot token (interaction responses aside).
DISCORD_GLOBAL_PER_SECOND = 50
#: Paced requests started per second, by all the senders sharing the pacer: one under
#: Discord's limit (see the module docstring; it was 40 while the pacer left room for
#: the interaction replies, which Discord does not count, and did not pace count edits).
SENDS_PER_SECOND = float(DISCORD_GLOBAL_PER_SECOND - 1)


def process_rate(process_count: int) -> float:
    """This process's share of SENDS_PER_SECOND: Discord's global limit is per bot, so
    `process_count` processes on one token (TPQUIZ_PROCESS_COUNT) split it evenly."""
    return SENDS_PER_SECOND / max(1, process_count)


class Pacer:
    """Starts requests at most `rate` a second, evenly spaced, and never more than `rate`
    (rounded down) in any one second.

    Each caller reserves the next slot of an even spacing and sleeps until it; a caller
    woken late (the event loop was busy) makes up for it, but never beyond the budget of
    the second behind it: it also waits until the `rate`-th start before it is a second
    old. So a stall cannot squeeze more than one second's share into a second, and with
    `rate` 49 every one-second window holds at most 49 starts: one under Discord's 50, the
    room for a request arriving a little early or not paced at all. `clock` and `sleep`
    are the monotonic clock and its sleep (tests pass their own).
    """

    def __init__(
        self,
        rate: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.interval = 1.0 / rate
        self._next = 0.0
        #: The latest starts, as many as one second's budget.
        self._starts: deque[float] = deque(maxlen=max(1, int(rate)))
        self._clock = clock
        self._sleep = sleep

    async def wait(self) -> None:
        slot = max(self._clock(), self._next)
        self._next = slot + self.interval
        while True:
            now = self._clock()
            start = slot
            if len(self._starts) == self._starts.maxlen:
                start = max(start, self._starts[0] + 1.0)
            if start <= now:
                break
            await self._sleep(start - now)
        self._starts.append(now)


@dataclass(frozen=True, slots=True)
class Delivery:
    """What happened to one claimed daily post."""

    claim: DailyClaim
    message_id: int | None
    error: Exception | None = None
    #: The server's older daily posts this one closed (their reveal edits).
    closed: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        return self.message_id is not None


def error_fields(exc: Exception) -> tuple[int | None, int | None, str]:
    """(Discord error code, HTTP status, text) of a failed send, for storage."""
    if isinstance(exc, discord.HTTPException):
        return exc.code or None, exc.status, exc.text or str(exc)
    return None, None, f"{type(exc).__name__}: {exc}"


class DailyPoster:
    """Sends daily posts and reveal edits; one per bot, shared with `daily now`."""

    def __init__(
        self,
        bot: discord.Client,
        metrics: Metrics,
        service: DailyService,
        *,
        concurrency: int = MAX_CONCURRENT_SENDS,
        rate: float = SENDS_PER_SECOND,
        figures: FigureCache | None = None,
    ) -> None:
        self.bot = bot
        self.figures = figures or FigureCache()
        self.metrics = metrics
        self.service = service
        self._slots = asyncio.Semaphore(concurrency)
        self.pacer = Pacer(rate)

    def _guild_locale(self, guild_id: int) -> str | None:
        guild = self.bot.get_guild(guild_id)
        return str(guild.preferred_locale) if guild is not None else None

    async def claim(self, guild_id: int, day: date, now: datetime) -> DailyClaim | None:
        return await self.service.claim(guild_id, day, now, self._guild_locale(guild_id))

    async def claim_now(self, guild_id: int) -> DailyClaim:
        return await self.service.claim_now(guild_id, self._guild_locale(guild_id))

    async def deliver(self, claim: DailyClaim, now: datetime) -> Delivery:
        """Send a claimed post; record the outcome; close the server's previous post."""
        post = claim.post
        lang: Lang = "tr" if post.language == "tr" else "en"
        embed = render.daily_embed(
            claim.question, post.order, lang, day=claim.day, closes_at_ms=post.closes_at
        )
        extra: dict[str, Any] = {"embed": embed}
        if claim.role_id is not None:
            # Ping that role and nothing else, whatever the question text contains.
            extra["content"] = f"<@&{claim.role_id}>"
            extra["allowed_mentions"] = discord.AllowedMentions(
                everyone=False, users=False, roles=[discord.Object(claim.role_id)]
            )
        channel = self.bot.get_partial_messageable(
            post.channel_id, guild_id=post.guild_id, type=discord.ChannelType.text
        )
        await attach(self.figures, extra, [claim.question], lang)  # drawn before the slot
        try:
            async with self._slots:
                await self.pacer.wait()
                message = await channel.send(view=answer_view(post.id, post.order), **extra)
        except Exception as exc:  # every failure is recorded; none may stop the tick
            code, status, text = error_fields(exc)
            log.warning(
                "daily post for guild %s in channel %s failed (status %s, code %s): %s;"
                " the next day's post will try again",
                post.guild_id,
                post.channel_id,
                status,
                code,
                text,
            )
            await self.service.failed(claim, code=code, status=status, text=text)
            self.metrics.daily_post(sent=False)
            return Delivery(claim, None, exc)
        self.metrics.daily_post(sent=True)
        log.info(
            "daily question %s posted in guild %s (message %s)",
            claim.question.id,
            post.guild_id,
            message.id,
        )
        closed = []
        for older in await self.service.delivered(claim, message.id):
            try:
                if await self.close(older.id, now):
                    closed.append(older.id)
            except Exception:
                # The new post is out; the old one closes at its own time instead.
                log.exception("closing daily post %s failed", older.id)
        return Delivery(claim, message.id, closed=tuple(closed))

    async def close(self, post_id: int, now: datetime) -> bool:
        """Close a daily post and edit it to reveal the answer; True if this call did."""
        reveal = await self.service.close(post_id, now)
        if reveal is None:
            return False
        post = reveal.post
        if post.message_id is None:
            return True  # never reached Discord: nothing to edit
        embed = render.reveal_embed(post, reveal.question, reveal.counts)
        view = closed_view(post.id, post.order, reveal.question.correct_index)
        lang: Lang = "tr" if post.language == "tr" else "en"
        # The explanation's figure replaces the question's; without one, nothing changes.
        changes: dict[str, Any] = {"embed": embed}
        if reveal.question.explanation_figure is not None:
            await attach(self.figures, changes, [reveal.question], lang, edit=True)
        message = self.bot.get_partial_messageable(
            post.channel_id, guild_id=post.guild_id
        ).get_partial_message(post.message_id)
        try:
            async with self._slots:
                await self.pacer.wait()
                await message.edit(view=view, **changes)
        except discord.HTTPException as exc:
            # Deleted message or channel, lost permission: the post is closed all the same.
            log.warning(
                "could not edit closed daily post %s in guild %s: %s", post.id, post.guild_id, exc
            )
        return True
