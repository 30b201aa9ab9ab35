"""Item statistics through the storage contract on SQLite and on PostgreSQL (issue 15).

The same simulated answers (tests/itemsim.py, written through the bot's recording code
into a SQLite file) are served from that file or from a real PostgreSQL database they
were copied into (`copy_from_sqlite`); `ItemStatsService` over either bundle must give
the figures `bot.quiz.itemstats.bank_stats` gives over the file's first answers, keep
them in its summary, read them back, and keep the summary honest when a member or a
server is forgotten.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.quiz.itemstats import FirstAnswer, ItemStats, bank_stats
from bot.quiz.itemstats_fast import bank_stats_member_rows, member_rows
from bot.services.items import ItemStatsService
from bot.services.quiz import QuizService
from bot.storage.copy import copy_from_sqlite
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.storage import PgStorage
from bot.storage.sqlite import Storage
from bot.storage.sqlite import itemstats as store
from tests.factories import make_bank
from tests.storage.test_item_summary import GUILD, NOW_MS, OTHER, _play


@dataclass
class World:
    name: str
    source: Path  # the SQLite file the answers were written to (and copied from)
    service: ItemStatsService
    storage: Any

    def answers(self, guild: int, *, without: int | None = None) -> list[FirstAnswer]:
        with sqlite3.connect(self.source) as conn:
            found = store.first_answers(conn, guild)
        return [a for a in found if a.user_id != without]

    def expected(self, guild: int, *, without: int | None = None) -> list[ItemStats]:
        return bank_stats(self.service.items(), self.answers(guild, without=without), {})


@pytest.fixture
async def world(backend_target: tuple[str, str], tmp_path: Path) -> AsyncIterator[World]:
    name, target = backend_target
    bank = make_bank()
    source = tmp_path / "source.sqlite3"
    await (await Storage.open(source)).close()  # creates the schema
    await _play(source, bank, GUILD, range(0, 40), 1)
    await _play(source, bank, OTHER, range(0, 12), 2)
    storage: Any
    if name == "sqlite":
        storage = await Storage.open(source)
    else:
        db = await PgDatabase.open(target)
        await copy_from_sqlite(source, db)
        storage = PgStorage(db)
    clock = lambda: datetime(2026, 12, 2, tzinfo=UTC)  # noqa: E731
    service = ItemStatsService(QuizService(bank, storage, clock, random.Random(1)))
    try:
        yield World(name, source, service, storage)
    finally:
        await storage.close()


async def test_first_answers_are_read_alike(world: World) -> None:
    items = world.storage.items
    for guild in (GUILD, OTHER):
        rows = await items.member_rows(guild)  # a member's rows in any order, same floats
        assert sorted(rows) == sorted(member_rows(world.answers(guild)))
        figures = bank_stats_member_rows(world.service.items(), rows)
        assert figures == world.expected(guild)
    everyone = await items.member_rows()
    assert sorted(everyone) == sorted(member_rows(world.answers(GUILD) + world.answers(OTHER)))
    assert await items.first_answer_counts() == {
        GUILD: len(world.answers(GUILD)), OTHER: len(world.answers(OTHER))
    }  # fmt: skip
    for size in (1, 7, 10_000):
        chunked: list[Any] = []
        after = None
        while True:
            chunk, after = await items.member_rows_chunk(GUILD, after, size)
            chunked += chunk
            if after is None:
                break
        assert chunked == await items.member_rows(GUILD), size
    assert await items.member_rows_chunk(999, None, 10) == ([], None)


async def test_the_summary_is_written_and_read_back(world: World) -> None:
    service = world.service
    before = await service.server_stats(GUILD)
    assert before.as_of_ms is None and before.stats == world.expected(GUILD)
    assert [g for g, _ in await service.due()] == [GUILD, OTHER]
    assert await service.refresh_due(NOW_MS) == [GUILD, OTHER]
    assert await service.due() == []
    for guild in (GUILD, OTHER):
        view = await service.server_stats(guild)
        assert view.as_of_ms == NOW_MS and view.stats == world.expected(guild)
    state = (await world.storage.items.refreshes(GUILD))[GUILD]
    assert (state.refreshed_at, state.first_answers, state.stale) == (
        NOW_MS, len(world.answers(GUILD)), False)  # fmt: skip
    question = service.items()[0].question_id
    for user in (1, 2):
        await world.storage.reports.add(guild_id=GUILD, user_id=user, question_id=question,
                                        language="en", reason="unclear", body="",
                                        now_ms=NOW_MS + user)  # fmt: skip
    view = await service.server_stats(GUILD)
    assert view.as_of_ms == NOW_MS  # still the summary, with the reports of now
    assert view.of(question).open_reports == 2  # type: ignore[union-attr]
    assert "reported" in [f.code for f in view.of(question).flags]  # type: ignore[union-attr]


async def test_forgetting_a_member_makes_the_summary_stale(world: World) -> None:
    service, items = world.service, world.storage.items
    await service.refresh_due(NOW_MS)
    generation = (await items.refreshes(GUILD))[GUILD].generation
    await world.storage.privacy.forget_member(GUILD, 3)
    state = (await items.refreshes(GUILD))[GUILD]
    assert state.stale and state.generation == generation + 1
    assert not (await items.refreshes(OTHER))[OTHER].stale
    view = await service.server_stats(GUILD)
    assert view.as_of_ms is None and view.stats == world.expected(GUILD, without=3)
    assert [g for g, _ in await service.due()] == [GUILD]
    assert await service.refresh_due(NOW_MS + 1) == [GUILD]
    view = await service.server_stats(GUILD)
    assert view.as_of_ms == NOW_MS + 1 and view.stats == world.expected(GUILD, without=3)


async def test_a_write_from_before_a_deletion_is_refused(world: World) -> None:
    service, items = world.service, world.storage.items
    await service.refresh_due(NOW_MS)
    generation = (await items.refreshes(GUILD))[GUILD].generation
    assert await items.mark_stale(GUILD) == 1
    assert await items.mark_stale(999) == 0
    key = service.pool_key()
    written = await items.write_summary(GUILD, [], now_ms=NOW_MS + 1, first_answers=0,
                                        pool_key=key, generation=generation)  # fmt: skip
    assert written is False and (await items.refreshes(GUILD))[GUILD].stale
    assert (await service.server_stats(GUILD)).as_of_ms is None
    written = await items.write_summary(GUILD, [], now_ms=NOW_MS + 2, first_answers=0,
                                        pool_key=key, generation=generation + 1)  # fmt: skip
    assert written is True and (await service.server_stats(GUILD)).as_of_ms == NOW_MS + 2
    # A forgotten server: its rows go, and a refresh under way writes nothing.
    deleted = await world.storage.privacy.forget_guild(GUILD)
    assert deleted["item_stats_refreshes"] == 1
    assert await items.refreshes(GUILD) == {}
    written = await items.write_summary(GUILD, [], now_ms=NOW_MS + 3, first_answers=0,
                                        pool_key=key, generation=generation + 1)  # fmt: skip
    assert written is False and await items.refreshes(GUILD) == {}
    assert await service.due() == []
