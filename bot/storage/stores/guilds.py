"""Per-server settings and bot-wide key/value metadata (GuildsContract, MetaContract).

One store each for both backends over `Executor` (bot/storage/sql.py). Each write is one
upsert (`INSERT ... ON CONFLICT DO UPDATE`), atomic on its own: on SQLite under the
single writer, on PostgreSQL at READ COMMITTED, so two processes setting the same key at
once leave one row with the last value.
"""

from __future__ import annotations

from bot.storage.sql import Executor, Query

__all__ = ["GuildSettingsStore", "MetaStore"]

_LANGUAGE = Query("SELECT language FROM guild_settings WHERE guild_id = :guild")
_SET_LANGUAGE = Query(
    "INSERT INTO guild_settings (guild_id, language) VALUES (:guild, :language)"
    " ON CONFLICT (guild_id) DO UPDATE SET language = excluded.language"
)
_META = Query("SELECT value FROM meta WHERE key = :key")
_SET_META = Query(
    "INSERT INTO meta (key, value) VALUES (:key, :value)"
    " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


class GuildSettingsStore:
    def __init__(self, db: Executor) -> None:
        self.db = db

    async def language(self, guild_id: int) -> str | None:
        row = await self.db.fetch_one(_LANGUAGE, guild=guild_id)
        return None if row is None else row[0]

    async def set_language(self, guild_id: int, language: str) -> None:
        await self.db.execute(_SET_LANGUAGE, guild=guild_id, language=language)


class MetaStore:
    def __init__(self, db: Executor) -> None:
        self.db = db

    async def get(self, key: str) -> str | None:
        row = await self.db.fetch_one(_META, key=key)
        return None if row is None else row[0]

    async def set(self, key: str, value: str) -> None:
        await self.db.execute(_SET_META, key=key, value=value)
