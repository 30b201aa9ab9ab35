"""Run the real tpquiz bot against the loopback Discord.

`quiz` gives a test a loopback with one guild and a way to start (and restart) the bot
on one SQLite file with an injected clock and a seeded random source.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.bank.loader import load_bank
from bot.infra.config import Settings
from bot.quiz.model import Bank
from bot.quiz.templates import TemplateSet
from bot.runtime.bot import TPQuizBot
from bot.runtime.compose import build_bot
from bot.storage.sqlite import Storage
from tests.loopback.fixtures import loopback  # noqa: F401  (fixture)
from tests.loopback.harness import running
from tests.loopback.server import CALLBACK_ROUTE, LoopbackDiscord, RecordedRequest

GUILD_ID = 1_300_000_000_000_000_001
CHANNEL_ID = GUILD_ID + 1


class FakeClock:
    """The bot's clock: stands still until a test moves it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture(scope="session")
def bundled_bank() -> Bank:
    return load_bank()


@dataclass
class QuizHarness:
    loopback: LoopbackDiscord
    db_path: Path
    bank: Bank
    clock: FakeClock
    seed: int = 1234
    settings_overrides: dict[str, Any] = field(default_factory=dict)
    starts: int = 0
    #: Computed questions in the pool (none unless a test sets them).
    templates: TemplateSet | None = None

    @asynccontextmanager
    async def bot(self, **overrides: Any) -> AsyncIterator[TPQuizBot]:
        """Start the bot on this harness's database; each call is a fresh process-like start."""
        settings = Settings(
            db_path=self.db_path,
            count_edit_interval=0.01,
            **{**self.settings_overrides, **overrides},
        )
        storage = await Storage.open(self.db_path)
        self.starts += 1
        bot = build_bot(
            settings=settings,
            storage=storage,
            bank=self.bank,
            clock=self.clock,
            rng=random.Random(self.seed + self.starts),
            guild_ready_timeout=0.05,
            templates=self.templates,
        )
        try:
            async with running(bot, self.loopback):
                yield bot
        finally:
            await storage.close()

    def member(self, user_id: int, name: str, **kwargs: Any) -> dict[str, Any]:
        return self.loopback.member(user_id, name, **kwargs)

    def command(
        self,
        member: dict[str, Any],
        sub: str,
        options: dict[str, Any] | list[dict[str, Any]] | None = None,
        *,
        locale: str = "en-US",
        guild_locale: str = "en-US",
        command: str = "tpquiz",
        guild_id: int = GUILD_ID,
        channel_id: int = CHANNEL_ID,
    ) -> dict[str, Any]:
        return self.loopback.slash_command(
            guild_id,
            channel_id,
            member,
            command,
            sub,
            options,
            locale=locale,
            guild_locale=guild_locale,
        )

    async def click(
        self, message_id: int, custom_id: str, member: dict[str, Any], *, locale: str = "en-US"
    ) -> RecordedRequest:
        return await self.loopback.interact(
            self.loopback.button_click(message_id, custom_id, member, locale=locale)
        )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))


@pytest.fixture
async def quiz(
    loopback: LoopbackDiscord,  # noqa: F811
    tmp_path: Path,
    bundled_bank: Bank,
    clock: FakeClock,
) -> QuizHarness:
    loopback.add_guild(GUILD_ID, name="TP study group", channel_ids=[CHANNEL_ID])
    return QuizHarness(loopback, tmp_path / "tpquiz.sqlite3", bundled_bank, clock)


# -- reading what the bot sent ---------------------------------------------------------


def callback_message(request: RecordedRequest) -> dict[str, Any]:
    """The message a type-4 or type-7 callback carried (its `data`)."""
    assert request.route == CALLBACK_ROUTE
    return request.body["data"]


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for row in message.get("components", []) for c in row["components"]]


def created_message_id(request: RecordedRequest) -> int:
    """The id of the message a type-4 callback created, as the loopback answered it."""
    return int(request.response["resource"]["message"]["id"])
