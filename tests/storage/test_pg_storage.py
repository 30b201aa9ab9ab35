"""`open_storage(settings)` and the PostgreSQL bundle (bot/storage/pg/storage.py).

The answers and daily stores on PostgreSQL come from another branch: while either module
is missing, opening PostgreSQL storage fails at once with one sentence naming it (and
never connects, never shows the password); with stand-ins for them the bundle opens on
a real server with the same store attributes as the SQLite `Storage`.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from bot.config import DatabaseUrl, Settings
from bot.storage import Storage, open_storage
from bot.storage.pg import storage as pgstorage
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.storage import LATER_STORES, PgStorage, missing_stores
from bot.storage.problems import DatabaseUnusable

#: The attributes both bundles must have (everything but the database itself).
STORES = {
    "posts", "answers", "standings", "test_runs", "guilds", "meta", "daily", "cards",
    "progress", "reminders", "privacy", "reports",
}  # fmt: skip


class StandIn:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db


@pytest.fixture
def later_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stand-ins for the stores not on this branch yet (the real ones where they exist)."""
    for module_name, class_name in LATER_STORES.values():
        if module_name in sys.modules or pgstorage._later_store_module_exists(module_name):
            continue
        module = types.ModuleType(module_name)
        setattr(module, class_name, StandIn)
        monkeypatch.setitem(sys.modules, module_name, module)


async def test_sqlite_settings_open_the_file(tmp_path: Path) -> None:
    storage = await open_storage(Settings(db_path=tmp_path / "quiz.sqlite3"))
    try:
        assert isinstance(storage, Storage)
        assert STORES <= set(vars(storage))
    finally:
        await storage.close()


async def test_a_missing_store_refuses_at_open_in_one_sentence_without_connecting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, LATER_STORES["daily"][0], None)  # as if not written
    assert missing_stores() == ["daily"]
    url = DatabaseUrl("postgresql://tpquiz:s3cret@127.0.0.1:1/tpquiz")
    with pytest.raises(DatabaseUnusable) as caught:
        await open_storage(Settings(database_url=url))
    text = str(caught.value)
    assert "s3cret" not in text and "\n" not in text
    assert text.startswith("PostgreSQL storage is not complete yet")
    assert "no PostgreSQL store for daily (bot.storage.pg.daily.PgDailyStore)" in text
    assert "cannot connect" not in text  # refused before connecting


async def test_postgresql_settings_open_the_bundle(pg_url: str, later_stores: None) -> None:
    assert missing_stores() == []
    storage = await open_storage(Settings(database_url=DatabaseUrl(pg_url)))
    try:
        assert isinstance(storage, PgStorage)
        assert STORES <= set(vars(storage))
        assert await storage.db.schema_version() > 0
        await storage.guilds.set_language(7, "en")
        assert await storage.guilds.language(7) == "en"
        assert await storage.reports.count_open() == 0
    finally:
        await storage.close()
