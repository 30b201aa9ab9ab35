"""The reminder tick and the item-statistics refresh on a full disk (issue 31, defect 10).

The real bot on the loopback Discord, its SQLite file on a small tmpfs the test fills
(tests/mounts.py, skipped without root). Every claim of a due reminder and every refresh
then fails to commit. Expected: one warning for each loop when its writes start failing
and one line when they work again, never an ERROR traceback per tick or per member; and
nothing lost: once there is room, the reminder is sent and the summary written. The ticks
are the cogs' own methods, called by the test with the bot's clock moved.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, cast

import pytest

from cogs.item_refresh import ItemRefreshCog
from tests.e2e.conftest import GUILD_ID, QuizHarness
from tests.e2e.test_reminders import miss_the_test, remind, reminders, utc
from tests.mounts import fill, tmpfs

ALICE = 1_300_000_000_000_031_101


def item_refresh(bot: Any) -> ItemRefreshCog:
    cog = bot.get_cog("ItemRefreshCog")
    assert cog is not None and type(cog).__name__ == "ItemRefreshCog"
    return cast(ItemRefreshCog, cog)


def lines(caplog: pytest.LogCaptureFixture, logger: str) -> list[tuple[int, str, bool]]:
    return [
        (r.levelno, r.getMessage(), r.exc_info is not None)
        for r in caplog.records
        if r.name == logger and r.levelno >= logging.INFO and "reminder tick:" not in r.msg
    ]


async def test_full_disk_ticks_warn_once_and_recover_losing_nothing(
    quiz: QuizHarness, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with tmpfs(tmp_path / "small", size_kib=4096) as mount:
        quiz.db_path = mount / "quiz.sqlite3"
        alice = quiz.member(ALICE, "alice")
        quiz.clock.now = utc(2026, 12, 2, 9)
        async with quiz.bot() as bot:
            assert await miss_the_test(quiz, alice) >= 5
            await remind(quiz, alice, remind="on", time="19:00")
            ticks, refresh = reminders(bot), item_refresh(bot)
            quiz.clock.now = utc(2026, 12, 3, 19)  # eight cards due, at the time

            filler = fill(mount)
            caplog.clear()
            caplog.set_level(logging.INFO)
            for minute in range(3):
                run = await ticks.run_due(utc(2026, 12, 3, 19, minute))
                assert run.sent == [] and len(run.unsaved) == 1
                await refresh.refresh()
            reminder_lines = lines(caplog, "cogs.reminders")
            refresh_lines = lines(caplog, "cogs.item_refresh")
            assert [(level, tb) for level, _, tb in reminder_lines] == [(logging.WARNING, False)]
            assert reminder_lines[0][1].startswith("review reminders: the database write failed (")
            assert [(level, tb) for level, _, tb in refresh_lines] == [(logging.WARNING, False)]
            assert refresh_lines[0][1].startswith(
                "item statistics refresh: the database write failed ("
            )
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

            filler.unlink()
            caplog.clear()
            assert len((await ticks.run_due(utc(2026, 12, 3, 19, 5))).sent) == 1
            await refresh.refresh()
            assert lines(caplog, "cogs.reminders") == [
                (logging.INFO, "review reminders: the database write works again", False)
            ]
            assert lines(caplog, "cogs.item_refresh") == [
                (logging.INFO, "item statistics refresh: the database write works again", False)
            ]
            # Nothing lost: the summary is there, and the day's reminder went once.
            assert GUILD_ID in await bot.storage.items.refreshes()
            assert (await ticks.run_due(utc(2026, 12, 3, 19, 6))).sent == []
