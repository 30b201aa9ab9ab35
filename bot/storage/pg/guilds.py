"""Per-server settings and bot-wide key/value metadata on PostgreSQL.

The PostgreSQL side of bot/storage/sqlite/guilds.py, under the same contract
(bot/storage/contract.py GuildsContract, MetaContract). Each write is one upsert
(`INSERT ... ON CONFLICT DO UPDATE`), atomic on its own at READ COMMITTED, so two
processes setting the same key at once leave one row with the last value.
"""

from __future__ import annotations

from bot.storage.pg.db import PgDatabase


class PgGuildSettingsStore:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    async def language(self, guild_id: int) -> str | None:
        row = await self.db.fetchrow(
            "SELECT language FROM guild_settings WHERE guild_id = $1", guild_id
        )
        return None if row is None else row["language"]

    async def set_language(self, guild_id: int, language: str) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO guild_settings (guild_id, language) VALUES ($1, $2)"
                " ON CONFLICT (guild_id) DO UPDATE SET language = excluded.language",
                guild_id,
                language,
            )


class PgMetaStore:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    async def get(self, key: str) -> str | None:
        row = await self.db.fetchrow("SELECT value FROM meta WHERE key = $1", key)
        return None if row is None else row["value"]

    async def set(self, key: str, value: str) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                key,
                value,
            )
