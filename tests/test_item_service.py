"""ItemStatsService sees only the storage contract's `items` store (issue 15): a bundle
with no database attribute at all (here a stand-in store) serves the admin view and
the refresh, on whichever backend the store runs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from bot.services.items import ItemStatsService
from bot.services.quiz import QuizService
from bot.storage.records import Refresh, SummaryRead
from tests.factories import make_bank


class FakeItems:
    """The `ItemStatsContract` methods the service calls, over one server of no answers."""

    def __init__(self) -> None:
        self.written: list[tuple[int, int]] = []
        self.state: Refresh | None = None

    async def summary(self, guild_id: int, pool_key: str) -> SummaryRead:
        if self.state is None or self.state.pool_key != pool_key:
            return SummaryRead(None, 0, {"q": 1})
        return SummaryRead({}, self.state.refreshed_at, {})

    async def first_answer_counts(self) -> dict[int, int]:
        return {7: 0}

    async def refreshes(self, guild_id: int | None = None) -> dict[int, Refresh]:
        return {} if self.state is None else {7: self.state}

    async def refresh_start(self, guild_id: int) -> tuple[int, int | None]:
        return 0, 0

    async def claim(self, guild_id: int) -> None:
        pass

    async def member_rows_chunk(self, guild_id: int, after: int | None, rows: int) -> Any:
        return [], None

    async def write_summary(self, guild_id: int, stats: list, **kw: Any) -> bool:
        self.written.append((guild_id, kw["now_ms"]))
        self.state = Refresh(guild_id, kw["now_ms"], 0, kw["pool_key"], False, 0)
        return True


class NoOwnQuestions:
    """The `guild_bank` store of a server without questions of its own (issue 27)."""

    async def current(self, guild_id: int, *, retired: bool = False) -> list[Any]:
        return []

    async def versions(self, guild_id: int) -> list[Any]:
        return []


async def test_the_service_runs_on_the_contract_store_alone() -> None:
    fake = FakeItems()
    # No `db`: nothing but the contract (and a server without questions of its own).
    storage = SimpleNamespace(items=fake, guild_bank=NoOwnQuestions())
    service = cast(
        QuizService,
        SimpleNamespace(
            storage=storage, pool=make_bank(), templates=[], own=SimpleNamespace(withheld=None)
        ),
    )
    items = ItemStatsService(service)
    view = await items.server_stats(7)
    assert view.as_of_ms is None and len(view.stats) == len(items.items())
    assert await items.refresh_due(5) == [7] and fake.written == [(7, 5)]
    assert (await items.server_stats(7)).as_of_ms == 5
    assert await items.refresh_due(6) == []  # nothing changed since
