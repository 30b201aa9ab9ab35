"""The part of a storage bundle both backends build alike: the shared stores over one executor.

Why a base class: SQLite's `Storage` (bot/storage/sqlite/__init__.py) and PostgreSQL's
`PgStorage` (bot/storage/pg/storage.py) differ in their own stores (the click, the
standings, privacy, item statistics) and hooks, but build these the same way over
their executor; written once here, a store added to bot/storage/stores/ is added to
both bundles at once (mypy's `_conforms` in bot/storage/factory.py checks both against
the contract's `StorageContract`).
"""

from __future__ import annotations

from bot.storage.sql import Executor
from bot.storage.stores.daily import DailyStore
from bot.storage.stores.guild_bank import GuildBankStore
from bot.storage.stores.guilds import GuildSettingsStore, MetaStore
from bot.storage.stores.posts import PostStore
from bot.storage.stores.reads import CardStore, ProgressStore
from bot.storage.stores.reminders import ReminderStore
from bot.storage.stores.reports import ReportStore
from bot.storage.stores.suggestions import SuggestionStore
from bot.storage.stores.test_runs import TestRunStore

__all__ = ["SharedStores"]


class SharedStores:
    """The stores of bot/storage/stores/, over one executor."""

    def __init__(self, executor: Executor) -> None:
        self.posts = PostStore(executor)
        self.test_runs = TestRunStore(executor)
        self.guilds = GuildSettingsStore(executor)
        self.meta = MetaStore(executor)
        self.daily = DailyStore(executor)
        self.cards = CardStore(executor)
        self.progress = ProgressStore(executor)
        self.reminders = ReminderStore(executor)
        self.reports = ReportStore(executor)
        self.guild_bank = GuildBankStore(executor)
        self.suggestions = SuggestionStore(executor)
