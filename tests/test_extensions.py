"""Every extension the bot lists loads and unloads cleanly on a real bot object."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.infra.config import Settings
from bot.runtime.bot import EXTENSIONS
from bot.runtime.compose import build_bot
from bot.storage.sqlite import Storage
from tests.factories import make_bank


@pytest.mark.parametrize("extension", EXTENSIONS)
async def test_extension_loads_and_unloads(extension: str, tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "ext.sqlite3")
    bot = build_bot(
        settings=Settings(db_path=tmp_path / "ext.sqlite3"),
        storage=storage,
        bank=make_bank(),
        rng=random.Random(0),
    )
    try:
        await bot.load_extension(extension)
        assert extension in bot.extensions
        await bot.unload_extension(extension)
        assert extension not in bot.extensions
    finally:
        await bot.close()
        await storage.close()
