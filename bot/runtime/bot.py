"""The bot: a typed `commands.Bot` holding the services and resources the cogs share.

It builds nothing. The resources (storage, bank, clock, random source) are opened by the
command line and passed in, as in discord.py's `advanced_startup.py`, and one level
further: the services, the daily poster (one pacer for daily posts, `daily now` and
reminders) and the coalesced count edits are built by `bot.runtime.compose.build_bot`,
which `tpquiz run`, the tests and the benches all call, so each gets the same bot (on a
temporary database and a fixed clock in tests). Cogs read what they share from the bot
(typed, through `discord.Interaction[TPQuizBot]`); no cog builds a shared one, sets one
on the bot or looks another cog up to find it, so each extension also loads on its own.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

import discord
from discord.ext import commands

from bot.i18n import CommandTranslator
from bot.infra.config import Settings
from bot.infra.shards import Ownership
from bot.ops.database_probe import DatabaseProbe
from bot.ops.metrics import Metrics
from bot.quiz.model import Bank
from bot.services.daily import DailyService
from bot.services.guild_bank import GuildBankService
from bot.services.items import ItemStatsService
from bot.services.live import LiveService
from bot.services.privacy import PrivacyService
from bot.services.quiz import Clock, QuizService
from bot.services.reminders import ReminderService
from bot.services.reports import ReportService
from bot.services.review import ReviewService
from bot.services.suggestions import SuggestionService
from bot.storage.contract import StorageContract
from bot.ui import render
from bot.ui.figures import FigureCache
from bot.ui.gateway_guard import keep_connected
from bot.ui.live_announcer import DiscordAnnouncer
from bot.ui.post_updates import CoalescedEdits
from bot.ui.poster import DailyPoster

log = logging.getLogger(__name__)

#: How long `close()` waits for interactions in flight (systemd and Docker allow 30 s).
SHUTDOWN_GRACE = 10.0
#: At least this long is left to the handlers after the group commit's deadline, so the
#: members whose clicks were given up are told "not saved" (one followup each).
REPLY_GRACE = 2.0
#: Name prefixes of the tasks discord.py 2.x runs interaction handlers in: component
#: callbacks and modals ("discord-ui-..."), application commands ("CommandTree-invoker").
_INTERACTION_TASKS = ("discord-ui-", "CommandTree-invoker")

#: Every extension the bot loads, in order; a test loads each one.
# cogs.review and cogs.stats join the tpquiz group of cogs.quiz, and cogs.reports_admin
# the tpquiz-admin group of cogs.admin, so each comes after the cog that owns its group.
EXTENSIONS: tuple[str, ...] = (
    "cogs.quiz",
    "cogs.review",
    "cogs.live",
    "cogs.stats",
    "cogs.privacy",
    "cogs.health",
    "cogs.daily",
    "cogs.admin",
    "cogs.reminders",
    "cogs.reports",
    "cogs.reports_admin",
    "cogs.questions_admin",
    "cogs.item_refresh",
    "cogs.retention",
    "cogs.guild_bank",
    "cogs.suggestions",
)


class TPQuizBot(commands.Bot):
    """The bot, unsharded: a plain `commands.Bot` (one gateway connection that honours
    DISCORD_GATEWAY_URL, as before sharding existed). `build_bot` (bot/runtime/compose.py)
    builds a `ShardedTPQuizBot` instead when the settings name a shard count.
    """

    #: Daily posts and reveal edits, paced (`bot.ui.poster`). Both it and `count_edits`
    #: send through this client, so `build_bot` makes them right after the bot and hands
    #: them over before anything runs.
    poster: DailyPoster
    #: A post's "N answered" line, edited at most once per interval (answer clicks,
    #: and `/tpquiz-admin daily` when a post's closing time moved).
    count_edits: CoalescedEdits
    #: Quiz night (issue 26): the sessions' service and what shows them on Discord.
    live: LiveService
    live_announcer: DiscordAnnouncer
    #: Figures drawn off the event loop and cached (issue 29; `bot.ui.figures`).
    figures: FigureCache
    #: A server's own questions (issue 27), built by `build_bot` beside the other services.
    guild_bank: GuildBankService
    #: Members' suggested questions and their review (issue 27), built beside guild_bank.
    suggestions: SuggestionService

    def __init__(
        self,
        *,
        settings: Settings,
        storage: StorageContract,
        bank: Bank,
        clock: Clock,
        metrics: Metrics,
        ownership: Ownership,
        service: QuizService,
        reviews: ReviewService,
        reminders: ReminderService,
        daily: DailyService,
        reports: ReportService,
        items: ItemStatsService,
        privacy: PrivacyService,
        db_probe: DatabaseProbe,
        **options: Any,
    ) -> None:
        """Store what `build_bot` built; `options` go to discord.py's `commands.Bot`."""
        super().__init__(command_prefix=commands.when_mentioned, help_command=None, **options)
        self.settings = settings
        self.storage = storage
        self.bank = bank
        self.clock = clock
        self.metrics = metrics
        #: The servers this process acts for in the background (bot/infra/shards.py).
        self.ownership = ownership
        self.service = service
        self.reviews = reviews
        self.reminders = reminders
        self.daily = daily
        self.reports = reports
        self.items = items
        self.privacy = privacy
        #: The heartbeat's probe of the database (cogs/health.py).
        self.db_probe = db_probe
        self._finishing_before_http_close = False

    async def setup_hook(self) -> None:
        if self.ownership.shard_count is not None:
            log.info("this process runs %s", self.ownership.describe())
        await self.tree.set_translator(CommandTranslator())
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.sync_commands_if_changed()
        # Everything built so far (the bank, the templates, discord.py's and the stores'
        # objects) lives as long as the process: move it out of the garbage collector's
        # generations, so a full collection during a burst of clicks walks only what the
        # clicks made (docs/performance.md 1: the p99 at 200 clicks/s).
        gc.collect()
        gc.freeze()

    async def connect(self, *, reconnect: bool = True) -> None:
        """discord.py's connect, kept running after a gateway event discord.py's own
        parser cannot read (bot.ui.gateway_guard): one warning line, then connected again."""
        await keep_connected(self, lambda: super(TPQuizBot, self).connect(reconnect=reconnect))

    async def edit_count(self, post_id: int) -> None:
        """Re-render a post with its current answer count (called by `count_edits`)."""
        found = await self.service.post_for_render(post_id)
        if found is None:
            return
        post, question = found
        if post.message_id is None or post.closed_at is not None:
            return
        embed = render.post_embed(post, question)
        message = self.get_partial_messageable(post.channel_id).get_partial_message(post.message_id)
        # A channel edit counts against Discord's global limit, as the daily posts do:
        # it takes a slot of their pacer, right before it is sent (issue 30).
        await self.poster.pacer.wait()
        await message.edit(embed=embed)

    async def command_payload(self, guild: discord.abc.Snowflake | None) -> list[dict[str, object]]:
        """The exact body `tree.sync` would send for this scope."""
        translator = self.tree.translator
        commands_ = self.tree.get_commands(guild=guild)
        if translator is None:
            return [c.to_dict(self.tree) for c in commands_]
        return [await c.get_translated_payload(self.tree, translator) for c in commands_]

    async def sync_commands_if_changed(self) -> list[str]:
        """Sync commands only where their definition changed since the last sync.

        Discord rate-limits command syncs tightly; hashing the payload means a restart
        with the same commands sends nothing. With TPQUIZ_SYNC_GUILDS set, commands go
        to those guilds only (instant, for development) instead of globally.
        """
        if not self.ownership.syncs_commands:
            log.info(
                "commands not synced: this process runs %s, the owner of shard 0 syncs them",
                self.ownership.describe(),
            )
            return []
        scopes: list[discord.abc.Snowflake | None]
        if self.settings.sync_guilds:
            scopes = [discord.Object(id=g) for g in self.settings.sync_guilds]
            for guild in scopes:
                self.tree.copy_global_to(guild=guild)  # type: ignore[arg-type]
        else:
            scopes = [None]
        synced = []
        for guild in scopes:
            payload = await self.command_payload(guild)
            digest = hashlib.sha256(
                json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
            ).hexdigest()
            scope = str(guild.id) if guild else "global"
            key = f"commands:{self.application_id}:{scope}"
            if await self.storage.meta.get(key) == digest:
                log.info("commands for %s unchanged; not syncing", scope)
                continue
            if guild is None:
                await self.tree.sync()
            elif not await self._sync_guild(guild):
                continue
            await self.storage.meta.set(key, digest)
            log.info("synced %d commands to %s", len(payload), scope)
            synced.append(scope)
        return synced

    async def _sync_guild(self, guild: discord.abc.Snowflake) -> bool:
        """Sync to one TPQUIZ_SYNC_GUILDS guild; False (and a warning) if Discord refuses.

        A guild the bot is not in (or was removed from) answers 403 Missing Access or 404;
        the other guilds still get their commands, and the next start tries it again.
        """
        try:
            await self.tree.sync(guild=guild)
        except (discord.Forbidden, discord.NotFound) as exc:
            log.warning(
                "TPQUIZ_SYNC_GUILDS: skipped guild %s: Discord refused the command sync"
                " (%s %s, code %s): is the bot in that server, invited with the"
                " applications.commands scope? Remove the id or invite the bot",
                guild.id,
                exc.status,
                exc.text or exc.response.reason,
                exc.code,
            )
            return False
        return True

    async def close(self) -> None:
        """Stop reading the gateway, let the interactions in flight finish, then close.

        discord.py's own close shuts the gateway and then the HTTP session at once, so a
        click being answered at that moment (SIGTERM from systemd or Docker) had its
        answer committed but its reply cut off (tests/drills/test_shutdown.py). Here, in
        order: the handlers in flight get `SHUTDOWN_GRACE` seconds while the group commit
        keeps writing (under overload hundreds of clicks wait there, deferred); the clicks
        still queued then are given up, and their handlers `REPLY_GRACE` seconds to reply
        "not saved"; the pending count edits are sent; only then does the HTTP session
        close. Events arriving after the gateway closed are not started
        (Discord tells those members the interaction failed, and their click works again
        after the restart). docs/operations.md "Stopping" states the rule.
        """
        if not self._finishing_before_http_close:
            self._finishing_before_http_close = True
            close_http = self.http.close

            async def finish_then_close_http() -> None:
                await self.finish_interactions(SHUTDOWN_GRACE)
                await self.count_edits.flush(REPLY_GRACE)
                await close_http()

            # discord.py closes the gateway first, then calls http.close(): the hook.
            self.http.close = finish_then_close_http  # type: ignore[method-assign]
        await super().close()

    async def finish_interactions(self, timeout: float) -> None:  # noqa: ASYNC109
        await finish_interaction_tasks(timeout, give_up=self.storage.answers.give_up_queued)


async def finish_interaction_tasks(
    timeout: float,  # noqa: ASYNC109
    *,
    give_up: Callable[[], int] | None = None,
) -> int:
    """Wait up to `timeout` s for discord.py's tasks that run interaction handlers (named
    as `_INTERACTION_TASKS` says); cancel those still running then, and return how many.

    Meanwhile the group commit keeps writing, so the clicks queued are committed and
    answered. At the deadline `give_up` (the group commit's `close`) fails the clicks
    still queued, and their handlers get `REPLY_GRACE` more seconds to say "not saved".
    Why cancel then: the HTTP session closes next, and a handler that replies after that
    dies with "Session is closed" and a traceback, one per click (seen under overload).
    A cancelled handler sends nothing; only a click in the batch already on the database
    thread can be cut off so, and its answer is still written: recorded, never
    acknowledged (after the restart a click again shows it). One warning says how many.
    """
    current = asyncio.current_task()
    running = [
        task
        for task in asyncio.all_tasks()
        if task is not current
        and task.get_name().startswith(_INTERACTION_TASKS)
        and not task.get_name().startswith("discord-ui-view-timeout-")
    ]
    late: set[asyncio.Task[object]] = set()
    if running:
        log.info("finishing %d interaction(s) in flight before closing", len(running))
        _, late = await asyncio.wait(running, timeout=timeout)
    if give_up is not None and give_up() and late:
        _, late = await asyncio.wait(late, timeout=REPLY_GRACE)
    if not late:
        return 0
    log.warning(
        "%d interaction(s) still running after %.0f s; cancelled, their members get no reply",
        len(late),
        timeout,
    )
    for task in late:
        task.cancel()
    await asyncio.gather(*late, return_exceptions=True)
    return len(late)


class ShardedTPQuizBot(TPQuizBot, commands.AutoShardedBot):
    """The bot as discord.py's `AutoShardedBot`: TPQUIZ_SHARDS of TPQUIZ_SHARD_COUNT.

    Built by `build_bot` (bot/runtime/compose.py) when the settings name a shard count. With an explicit
    count discord.py connects to DISCORD_GATEWAY_URL (or Discord's default) directly,
    one connection per shard, and never asks `/gateway/bot` for a recommended count.
    """
