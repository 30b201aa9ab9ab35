"""Review reminders on a real SQLite file: claimed once a day, refusal said once, and
the functions member deletion and export call."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.storage.sqlite import Storage
from bot.storage.sqlite.reminders import delete_guild, delete_member, export_member

GUILD, OTHER = 111, 222
ALICE, BOB = 1001, 1002


@pytest.fixture
async def storage(tmp_path: Path):
    s = await Storage.open(tmp_path / "quiz.sqlite3")
    yield s
    await s.close()


async def test_a_day_is_claimed_once_even_by_racing_claims(storage: Storage) -> None:
    r = storage.reminders
    await r.set(GUILD, ALICE, enabled=True, remind_time="19:00", language="tr", now_ms=5)
    claims = await asyncio.gather(*(r.claim(GUILD, ALICE, "2026-12-03") for _ in range(5)))
    assert claims.count(True) == 1
    assert not await r.claim(GUILD, ALICE, "2026-12-02")  # an earlier day: never again
    assert await r.claim(GUILD, ALICE, "2026-12-04")
    (row,) = await r.enabled()
    assert (row.remind_time, row.language, row.last_date) == ("19:00", "tr", "2026-12-04")
    assert (row.timezone, row.post_time) == ("UTC", "09:00")  # the server set nothing


async def test_off_is_not_claimed_and_on_again_keeps_the_chosen_time(storage: Storage) -> None:
    r = storage.reminders
    await r.set(GUILD, ALICE, enabled=True, remind_time="07:30", language="en", now_ms=5)
    await r.set(GUILD, ALICE, enabled=False, remind_time=None, language="en", now_ms=6)
    assert await r.enabled() == [] and not await r.claim(GUILD, ALICE, "2026-12-03")
    await r.set(GUILD, ALICE, enabled=True, remind_time=None, language="en", now_ms=7)
    assert await r.get(GUILD, ALICE) == (True, "07:30")


async def test_a_refused_dm_turns_it_off_and_is_taken_once(storage: Storage) -> None:
    r = storage.reminders
    await r.set(GUILD, BOB, enabled=True, remind_time=None, language="en", now_ms=5)
    assert not await r.take_refusal(GUILD, BOB)
    await r.refused(GUILD, BOB, now_ms=9)
    assert await r.get(GUILD, BOB) == (False, None)
    assert await r.take_refusal(GUILD, BOB)
    assert not await r.take_refusal(GUILD, BOB)


async def test_delete_and_export_touch_only_their_member_and_server(storage: Storage) -> None:
    r = storage.reminders
    for guild, user in ((GUILD, ALICE), (GUILD, BOB), (OTHER, ALICE)):
        await r.set(guild, user, enabled=True, remind_time="19:00", language="en", now_ms=5)

    def work(conn: sqlite3.Connection) -> tuple[list[dict[str, object]], int, int]:
        return (
            export_member(conn, GUILD, ALICE),
            delete_member(conn, GUILD, ALICE),
            delete_guild(conn, OTHER),
        )

    exported, deleted, other = await storage.db.run_transaction(work)
    assert exported == [
        {
            "enabled": 1,
            "remind_time": "19:00",
            "language": "en",
            "set_at": 5,
            "last_date": None,
            "refused_at": None,
        }
    ]
    assert (deleted, other) == (1, 1)
    assert [(row.guild_id, row.user_id) for row in await r.enabled()] == [(GUILD, BOB)]
