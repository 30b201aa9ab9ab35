"""Daily question posts: the tick loop, sending each server's post, and the reveal edit.

Every decision (which server is due, which question, when a post closes) is made by
`bot.daily.DailyService` and the pure rules behind it; this module only talks to Discord.
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
through a semaphore and an even pacer shared by the tick and `daily now`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands, tasks

from bot import render
from bot.daily import DailyClaim, DailyService
from bot.quiz.model import LETTERS, Lang
from cogs.quiz import AnswerButton, answer_view

if TYPE_CHECKING:
    from bot.client import TPQuizBot

log = logging.getLogger(__name__)

#: Seconds between ticks. A post goes out at most this long after its time.
TICK_SECONDS = 30
#: Daily sends in flight at once (posts and reveal edits).
MAX_CONCURRENT_SENDS = 8
#: Daily requests started per second: under Discord's global 50/s, leaving room for the
#: interaction replies and count edits that share the bucket.
SENDS_PER_SECOND = 40.0


class Pacer:
    """Spaces request starts evenly, at most `rate` per second, without a burst.

    Each caller reserves the next free slot and sleeps until it; with `rate` 40 no
    one-second window ever holds more than 41 starts.
    """

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self._next = 0.0

    async def wait(self) -> None:
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


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


@dataclass
class DailyRun:
    """What one tick did (for logs and tests)."""

    due: list[tuple[int, date]] = field(default_factory=list)
    delivered: list[Delivery] = field(default_factory=list)
    failed: list[Delivery] = field(default_factory=list)
    closed: list[int] = field(default_factory=list)


def error_fields(exc: Exception) -> tuple[int | None, int | None, str]:
    """(Discord error code, HTTP status, text) of a failed send, for storage."""
    if isinstance(exc, discord.HTTPException):
        return exc.code or None, exc.status, exc.text or str(exc)
    return None, None, f"{type(exc).__name__}: {exc}"


def closed_view(post_id: int, order: tuple[int, ...], right: int) -> discord.ui.View:
    """The post's buttons, disabled, with the right letter in green."""
    view = discord.ui.View(timeout=None)
    for pos, choice_index in enumerate(order):
        item = AnswerButton(post_id, choice_index, LETTERS[pos])
        item.item.disabled = True
        if choice_index == right:
            item.item.style = discord.ButtonStyle.success
        view.add_item(item)
    return view


class DailyPoster:
    """Sends daily posts and reveal edits; one per bot, shared with `daily now`."""

    def __init__(
        self,
        bot: TPQuizBot,
        service: DailyService,
        *,
        concurrency: int = MAX_CONCURRENT_SENDS,
        rate: float = SENDS_PER_SECOND,
    ) -> None:
        self.bot = bot
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
        extra: dict[str, Any] = {}
        if claim.role_id is not None:
            # Ping that role and nothing else, whatever the question text contains.
            extra["content"] = f"<@&{claim.role_id}>"
            extra["allowed_mentions"] = discord.AllowedMentions(
                everyone=False, users=False, roles=[discord.Object(claim.role_id)]
            )
        channel = self.bot.get_partial_messageable(
            post.channel_id, guild_id=post.guild_id, type=discord.ChannelType.text
        )
        try:
            async with self._slots:
                await self.pacer.wait()
                message = await channel.send(
                    embed=embed, view=answer_view(post.id, post.order), **extra
                )
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
            self.bot.metrics.daily_post(sent=False)
            return Delivery(claim, None, exc)
        self.bot.metrics.daily_post(sent=True)
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
        message = self.bot.get_partial_messageable(
            post.channel_id, guild_id=post.guild_id
        ).get_partial_message(post.message_id)
        try:
            async with self._slots:
                await self.pacer.wait()
                await message.edit(embed=embed, view=view)
        except discord.HTTPException as exc:
            # Deleted message or channel, lost permission: the post is closed all the same.
            log.warning(
                "could not edit closed daily post %s in guild %s: %s", post.id, post.guild_id, exc
            )
        return True


class DailyCog(commands.Cog):
    """Runs the daily tick: every TICK_SECONDS, and once as soon as the bot is ready."""

    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot
        self.service = DailyService(bot.service)
        self.poster = DailyPoster(bot, self.service)
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
        run = DailyRun(due=await self.service.due(now))
        results = await asyncio.gather(
            *(self._post(guild_id, day, now) for guild_id, day in run.due),
            return_exceptions=True,
        )
        for (guild_id, _), result in zip(run.due, results, strict=True):
            if isinstance(result, BaseException):
                log.error("daily post for guild %s failed", guild_id, exc_info=result)
            elif result is not None:
                (run.delivered if result.ok else run.failed).append(result)
        for post in await self.service.due_to_close(now):
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
