"""ItemStatsService on a backend without item statistics (PostgreSQL, so far)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from bot.item_service import ItemStatsService
from bot.service import QuizError, QuizService


async def test_without_sqlite_the_refresh_does_nothing_and_the_view_says_why() -> None:
    service = cast(QuizService, SimpleNamespace(storage=SimpleNamespace(db=object())))
    items = ItemStatsService(service)
    assert not items.available
    assert await items.refresh_due(0) == []
    with pytest.raises(QuizError) as raised:
        await items.server_stats(1)
    assert raised.value.key == "item_stats_unavailable"
    assert cast(Any, items).service is service
