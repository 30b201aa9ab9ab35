"""Per-server settings and bot-wide key/value metadata."""

from __future__ import annotations

from bot.storage.sqlite.db import Database


class GuildSettingsStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def language(self, guild_id: int) -> str | None:
        async with self.db.conn.execute(
            "SELECT language FROM guild_settings WHERE guild_id = ?", (guild_id,)
        ) as cur:
            row = await cur.fetchone()
        return row[0] if row else None

    async def set_language(self, guild_id: int, language: str) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO guild_settings (guild_id, language) VALUES (?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET language = excluded.language",
                (guild_id, language),
            )


class MetaStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, key: str) -> str | None:
        async with self.db.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)) as cur:
            row = await cur.fetchone()
        return row[0] if row else None

    async def set(self, key: str, value: str) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
