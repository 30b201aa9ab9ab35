"""The item statistics summary on real SQLite files (issue #13, migration 0009): the
periodic refresh writes exactly the figures the on-demand path computes, the view reads
them with the open reports of now, and the deletion paths keep it honest: forgetting a
member marks the server's summary stale (the view computes without them until the next
refresh), forgetting a server deletes its summary."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.quiz.itemstats import bank_stats
from bot.quiz.model import Bank, Question
from bot.services import items as item_service
from bot.services.items import ItemStatsService
from bot.services.quiz import QuizService
from bot.storage.records import Refresh
from bot.storage.sqlite import Storage
from bot.storage.sqlite import itemstats as store
from bot.storage.sqlite.reports import add_report
from tests.factories import make_bank
from tests.itemsim import simulate

GUILD, OTHER = 111, 222
NOW_MS = 1_796_000_000_000


def _chooser(seed: int):
    rng = random.Random(seed)

    def choose(m: int, ability: int, q: Question) -> int:
        if rng.random() < 0.2 + 0.13 * ability:
            return q.correct_index
        return rng.randrange(len(q.choices))

    return choose


async def _play(path: Path, bank: Bank, guild: int, members: range, seed: int) -> None:
    questions = list(bank)
    for k in range(3):  # members answer overlapping subsets of the questions
        await simulate(path, guild_id=guild, members=range(members.start + 5 * k, members.stop),
                       questions=questions[k : k + 4], choose=_chooser(seed + k),
                       now_ms=NOW_MS - 10**7 + k * 10_000 + seed)  # fmt: skip


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[tuple[Path, ItemStatsService]]:
    bank = make_bank()
    path = tmp_path / "quiz.sqlite3"
    await (await Storage.open(path)).close()  # creates the schema
    await _play(path, bank, GUILD, range(0, 40), 1)
    await _play(path, bank, OTHER, range(0, 12), 2)
    storage = await Storage.open(path)
    quiz = QuizService(bank, storage, lambda: datetime(2026, 12, 2, tzinfo=UTC), random.Random(1))
    yield path, ItemStatsService(quiz)
    await storage.close()


def _expected(path: Path, service: ItemStatsService, guild: int) -> list:
    with sqlite3.connect(path) as conn:
        answers = store.first_answers(conn, guild)
        reports = {
            q: n for q, n in conn.execute(
                "SELECT question_id, COUNT(*) FROM reports WHERE guild_id = ?"
                " AND resolved_at IS NULL GROUP BY 1", (guild,))
        }  # fmt: skip
    return bank_stats(service.items(), answers, reports)


def _state(path: Path, guild: int) -> Refresh:
    with sqlite3.connect(path) as conn:
        return store.refreshes(conn, guild)[guild]


def _rows(path: Path, table: str, guild: int) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT * FROM {table} WHERE guild_id = ?", (guild,)).fetchall()


async def test_the_refresh_writes_the_on_demand_figures_and_the_view_reads_them(world) -> None:
    path, service = world
    before = await service.server_stats(GUILD)
    assert before.as_of_ms is None  # no summary yet: computed now
    assert before.stats == _expected(path, service, GUILD)
    # Both servers are due, the bigger first; after the refresh none is.
    assert [g for g, _ in await service.due()] == [GUILD, OTHER]
    assert await service.refresh_due(NOW_MS) == [GUILD, OTHER]
    assert await service.due() == []
    for guild in (GUILD, OTHER):
        view = await service.server_stats(guild)
        assert view.as_of_ms == NOW_MS
        assert view.stats == _expected(path, service, guild)
        assert len(_rows(path, "item_stats", guild)) == len(service.items())
    # A new report shows at once (flags come from the figures and the reports of now).
    question = service.items()[0].question_id
    with sqlite3.connect(path, isolation_level=None) as conn:
        for user in (1, 2):
            add_report(conn, guild_id=GUILD, user_id=user, question_id=question, language="en",
                       reason="unclear", body="", now_ms=NOW_MS + user)  # fmt: skip
    view = await service.server_stats(GUILD)
    assert view.as_of_ms == NOW_MS and view.stats == _expected(path, service, GUILD)
    assert "reported" in [f.code for f in view.of(question).flags]  # type: ignore[union-attr]
    # New answers in one server: only it is due, and the refresh counts them.
    await _play(path, service.service.bank, GUILD, range(40, 55), 3)
    assert [g for g, _ in await service.due()] == [GUILD]
    assert await service.refresh_due(NOW_MS + 60_000) == [GUILD]
    view = await service.server_stats(GUILD)
    assert view.as_of_ms == NOW_MS + 60_000 and view.stats == _expected(path, service, GUILD)
    assert (await service.server_stats(OTHER)).as_of_ms == NOW_MS


async def test_chunks_of_whole_members_read_the_same_rows_in_the_same_order(world) -> None:
    path, _ = world
    with sqlite3.connect(path) as conn:
        whole = store.member_rows(conn, GUILD)
        for size in (1, 3, 7, 50, 10_000):
            rows, after = [], None
            while True:
                chunk, after = store.member_rows_chunk(conn, GUILD, after, size)
                rows += chunk
                if after is None:
                    break
            assert rows == whole, size
        assert store.member_rows_chunk(conn, 999, None, 10) == ([], None)


async def test_a_bounded_tick_refreshes_the_biggest_change_first(world, monkeypatch) -> None:
    _, service = world
    monkeypatch.setattr(item_service, "ANSWERS_PER_TICK", 1)
    assert await service.refresh_due(NOW_MS) == [GUILD]  # at least one server a tick
    # Split over processes, each refreshes only its own shards' servers.
    assert await service.refresh_due(NOW_MS, owns=lambda g: g == GUILD) == []
    assert await service.refresh_due(NOW_MS, owns=lambda g: g == OTHER) == [OTHER]
    assert await service.refresh_due(NOW_MS) == []


async def test_forgetting_a_member_makes_the_summary_stale_until_the_next_refresh(world) -> None:
    path, service = world
    await service.refresh_due(NOW_MS)
    generation = _state(path, GUILD).generation
    await service.service.storage.privacy.forget_member(GUILD, 3)
    state = _state(path, GUILD)
    assert state.stale and state.generation == generation + 1
    # The view does not read the summary that counted them: computed now, without them.
    view = await service.server_stats(GUILD)
    assert view.as_of_ms is None and view.stats == _expected(path, service, GUILD)

    # A refresh that read the answers before the deletion is not written.
    async def stale_write() -> bool:
        return await service.store.write_summary(GUILD, [], now_ms=NOW_MS + 1, first_answers=0,
                                                 pool_key=service.pool_key(),
                                                 generation=generation)  # fmt: skip

    assert await stale_write() is False
    assert _state(path, GUILD).stale
    # The next tick recomputes it, first.
    assert [g for g, _ in await service.due()] == [GUILD]
    assert await service.refresh_due(NOW_MS + 1) == [GUILD]
    view = await service.server_stats(GUILD)
    assert view.as_of_ms == NOW_MS + 1 and view.stats == _expected(path, service, GUILD)
    # The other server's summary was untouched.
    assert not _state(path, OTHER).stale


async def test_forgetting_a_server_deletes_its_summary_and_no_refresh_brings_it_back(world) -> None:
    path, service = world
    await service.refresh_due(NOW_MS)
    other = (_rows(path, "item_stats", OTHER), _rows(path, "item_stats_refreshes", OTHER))
    generation = _state(path, GUILD).generation
    deleted = await service.service.storage.privacy.forget_guild(GUILD)
    assert deleted["item_stats"] == len(service.items()) and deleted["item_stats_refreshes"] == 1
    assert _rows(path, "item_stats", GUILD) == [] == _rows(path, "item_stats_refreshes", GUILD)
    assert (_rows(path, "item_stats", OTHER), _rows(path, "item_stats_refreshes", OTHER)) == other
    # A refresh under way when the server went writes nothing, and none is due.
    written = await service.store.write_summary(GUILD, [], now_ms=NOW_MS, first_answers=0,
                                                pool_key=service.pool_key(),
                                                generation=generation)  # fmt: skip
    assert written is False and _rows(path, "item_stats_refreshes", GUILD) == []
    assert await service.due() == []
    assert (await service.server_stats(GUILD)).stats == _expected(path, service, GUILD)


async def test_a_summary_of_another_pool_is_not_read(world) -> None:
    path, service = world
    await service.refresh_due(NOW_MS)
    smaller = Bank([q for q in service.service.bank if q.id != "mlp-split-01"])
    other = ItemStatsService(QuizService(smaller, service.service.storage, service.service.clock,
                                         random.Random(2)))  # fmt: skip
    assert (await other.server_stats(GUILD)).as_of_ms is None
    assert [g for g, _ in await other.due()] == [GUILD, OTHER]
