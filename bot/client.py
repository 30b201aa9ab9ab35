"""The bot: a typed `commands.Bot` that owns the quiz service and its resources.

Resources (storage, bank, clock, random source) are opened in `main()` and passed in,
as in discord.py's `advanced_startup.py`, so tests build the same bot on a temporary
database and a fixed clock.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from datetime import UTC, datetime

import discord
from discord.ext import commands

from bot.config import Settings
from bot.i18n import CommandTranslator
from bot.metrics import Metrics
from bot.post_updates import CoalescedEdits
from bot.quiz.model import Bank
from bot.service import Clock, QuizService
from bot.storage import Storage

log = logging.getLogger(__name__)

#: Every extension the bot loads, in order; a test loads each one.
EXTENSIONS: tuple[str, ...] = ("cogs.quiz", "cogs.health", "cogs.daily", "cogs.admin")


def utcnow() -> datetime:
    return datetime.now(UTC)


class TPQuizBot(commands.Bot):
    def __init__(
        self,
        *,
        settings: Settings,
        storage: Storage,
        bank: Bank,
        clock: Clock = utcnow,
        rng: random.Random | None = None,
        metrics: Metrics | None = None,
        **options: object,
    ) -> None:
        options.setdefault("intents", discord.Intents(guilds=True))
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        super().__init__(
            command_prefix=commands.when_mentioned,
            help_command=None,
            **options,  # type: ignore[arg-type]
        )
        self.settings = settings
        self.storage = storage
        self.bank = bank
        self.clock = clock
        self.service = QuizService(bank, storage, clock, rng or random.Random())
        self.metrics = metrics or Metrics()
        storage.db.on_commit = self.metrics.observe_db_write
        # Set by the quiz cog, which knows how to render a post.
        self.count_edits: CoalescedEdits | None = None

    async def setup_hook(self) -> None:
        await self.tree.set_translator(CommandTranslator())
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.sync_commands_if_changed()

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
            await self.tree.sync(guild=guild)
            await self.storage.meta.set(key, digest)
            log.info("synced %d commands to %s", len(payload), scope)
            synced.append(scope)
        return synced

    async def close(self) -> None:
        if self.count_edits is not None:
            await self.count_edits.flush()
        await super().close()
