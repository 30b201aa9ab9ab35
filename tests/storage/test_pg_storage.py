"""`open_storage(settings)` and the PostgreSQL bundle (bot/storage/pg/storage.py).

The PostgreSQL bundle opens on a real server with the same store attributes as the
SQLite `Storage`.
"""

from __future__ import annotations

from pathlib import Path

from bot.infra.config import DatabaseUrl, Settings
from bot.storage.factory import open_storage
from bot.storage.pg.storage import PgStorage
from bot.storage.sqlite import Storage

#: The attributes both bundles must have (everything but the database itself).
STORES = {
    "posts", "answers", "standings", "test_runs", "guilds", "meta", "daily", "cards",
    "progress", "reminders", "privacy", "reports", "items",
}  # fmt: skip


async def test_sqlite_settings_open_the_file(tmp_path: Path) -> None:
    storage = await open_storage(Settings(db_path=tmp_path / "quiz.sqlite3"))
    try:
        assert isinstance(storage, Storage)
        assert STORES <= set(vars(storage))
    finally:
        await storage.close()


async def test_postgresql_settings_open_the_bundle(pg_url: str) -> None:
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
