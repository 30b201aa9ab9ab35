"""Server settings and metadata stores, the same tests on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio

from tests.storage.conftest import Backend

#: The largest snowflake (bot/infra/config.py MAX_SNOWFLAKE): both backends keep 64-bit ids.
BIG_ID = 2**63 - 1


async def test_a_server_without_settings_has_no_language(backend: Backend) -> None:
    assert await backend.guilds.language(1) is None


async def test_the_language_is_set_replaced_and_kept_per_server(backend: Backend) -> None:
    await backend.guilds.set_language(1, "tr")
    await backend.guilds.set_language(BIG_ID, "en")
    assert await backend.guilds.language(1) == "tr"
    await backend.guilds.set_language(1, "en")
    assert await backend.guilds.language(1) == "en"
    assert await backend.guilds.language(BIG_ID) == "en"
    assert await backend.guilds.language(2) is None


async def test_meta_values_are_set_and_replaced(backend: Backend) -> None:
    assert await backend.meta.get("doctor:checked_at") is None
    await backend.meta.set("doctor:checked_at", "2026-01-01T00:00:00+00:00")
    await backend.meta.set("név", "değer ✓")
    await backend.meta.set("doctor:checked_at", "later")
    assert await backend.meta.get("doctor:checked_at") == "later"
    assert await backend.meta.get("név") == "değer ✓"


async def test_concurrent_writes_of_one_key_leave_one_of_the_values(backend: Backend) -> None:
    values = [f"v{i}" for i in range(20)]
    await asyncio.gather(*(backend.meta.set("k", v) for v in values))
    assert await backend.meta.get("k") in values
