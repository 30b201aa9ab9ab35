"""The one place that builds the bot: its services, its daily poster, its count edits.

discord.py's `examples/advanced_startup.py` opens the resources (a database pool, an HTTP
session) outside the bot and passes them in, so the bot class only holds them. This
carries that one level further: what is built from those resources, the services and
the two senders that go through the bot's own connection (the paced daily poster and
the coalesced "N answered" edits), is built here too, and `TPQuizBot` only stores what
it is given. `tpquiz run` (bot/cli/main.py), the tests and the benches all build their
bot with `build_bot`, so none of them can build it differently.

It is also where the bot meets the UI's view of it: `bot.ui.types.QuizBot` is what the
buttons use of the bot, and the assignment at the end of `build_bot` has mypy check that
the bot built here is one, without the UI importing the bot class.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import discord

from bot.infra.config import Settings
from bot.infra.shards import Ownership
from bot.ops.database_probe import DatabaseProbe
from bot.ops.metrics import Metrics
from bot.quiz.model import Bank
from bot.quiz.templates import TemplateSet
from bot.runtime.bot import ShardedTPQuizBot, TPQuizBot
from bot.services.daily import DailyService
from bot.services.guild_bank import GuildBankService
from bot.services.items import ItemStatsService
from bot.services.live import LiveService
from bot.services.privacy import PrivacyService
from bot.services.quiz import Clock, QuizService
from bot.services.reminders import ReminderService
from bot.services.reports import ReportService
from bot.services.review import ReviewService
from bot.storage.contract import StorageContract
from bot.ui.figures import FigureCache
from bot.ui.live_announcer import DiscordAnnouncer
from bot.ui.post_updates import CoalescedEdits
from bot.ui.poster import DailyPoster, process_rate
from bot.ui.tree import CommandTree
from bot.ui.types import QuizBot


def utcnow() -> datetime:
    return datetime.now(UTC)


def build_bot(
    settings: Settings,
    storage: StorageContract,
    bank: Bank,
    templates: TemplateSet | None = None,
    *,
    clock: Clock = utcnow,
    rng: random.Random | None = None,
    metrics: Metrics | None = None,
    **options: Any,
) -> TPQuizBot:
    """The bot on opened `storage`, not yet connected; `options` go to discord.py's client
    (a test's `guild_ready_timeout`, say).

    With TPQUIZ_SHARD_COUNT set it is a `ShardedTPQuizBot` (discord.py's
    `AutoShardedBot`, running TPQUIZ_SHARDS of that count); otherwise a plain
    `TPQuizBot`, one gateway connection that honours DISCORD_GATEWAY_URL.
    """
    metrics = metrics or Metrics()
    # Time every committed write, and size the click batches (SQLite's group commit).
    storage.observe(on_commit=metrics.observe_db_write, on_click_batch=metrics.observe_click_batch)
    service = QuizService(bank, storage, clock, rng or random.Random(), templates)
    options.setdefault("intents", discord.Intents(guilds=True))
    options.setdefault("allowed_mentions", discord.AllowedMentions.none())
    options.setdefault("tree_cls", CommandTree)
    cls = TPQuizBot
    if settings.shard_count is not None:
        cls = ShardedTPQuizBot
        options.setdefault("shard_count", settings.shard_count)
        if settings.shard_ids is not None:
            options.setdefault("shard_ids", list(settings.shard_ids))
    daily = DailyService(service)
    bot = cls(
        settings=settings,
        storage=storage,
        bank=bank,
        clock=clock,
        metrics=metrics,
        ownership=Ownership.of(settings.shard_count, settings.shard_ids),
        service=service,
        reviews=ReviewService(service),
        reminders=ReminderService(service),
        daily=daily,
        reports=ReportService(service),
        items=ItemStatsService(service),
        privacy=PrivacyService(storage, settings.guild_retention_days),
        db_probe=DatabaseProbe(storage),
        **options,
    )
    bot.guild_bank = GuildBankService(service)
    # These two send through the bot's connection, so they come right after it.
    bot.figures = FigureCache()
    bot.poster = DailyPoster(
        bot, metrics, daily, rate=process_rate(settings.process_count), figures=bot.figures
    )
    bot.count_edits = CoalescedEdits(bot.edit_count, settings.count_edit_interval)
    # Quiz night: group-weakest reads the item statistics; only the process that owns a
    # server's shard runs its sessions' timers (bot/infra/shards.py).
    items = bot.items

    async def facility(guild_id: int) -> dict[str, float]:
        stats = await items.server_stats(guild_id)
        return {s.question_id: s.facility for s in stats.stats if s.facility is not None}

    bot.live = LiveService(service, facility)
    bot.live.owns = bot.ownership.owns
    bot.live_announcer = DiscordAnnouncer(bot, bot.live, bot.poster.pacer, bot.figures)
    bot.live.announcer = bot.live_announcer
    _: QuizBot = bot  # mypy: the bot is what the UI's handlers take it to be (bot/ui/types.py)
    return bot
