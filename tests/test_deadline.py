"""Discord's 3-second window counted from the interaction's creation (`bot.ui.deadline`),
and what `within_deadline` does with a click that waited: deferred at once when its
defer moment passed before it ran, not run at all once expired, given up (its work
cancelled, so nothing not yet written is written) when the window closes while it waits.

No sleeps: ages are built into the ids, and the clock `within_deadline` reads is
replaced where a test needs the loop to have been late.
"""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.ui import deadline, responses
from bot.ui.deadline import InteractionExpired
from bot.ui.responses import within_deadline

NOW = 1_800_000_000.0


def snowflake_aged(seconds: float, now: float) -> int:
    return (int((now - seconds) * 1000) - deadline.DISCORD_EPOCH_MS) << 22


def test_created_at_is_the_snowflake_timestamp() -> None:
    # Discord's documented example: 175928847299117063 was created 2016-04-30 11:18:25.796 UTC.
    assert deadline.created_at(175928847299117063) == pytest.approx(1462015105.796)


def test_defer_moment_counts_from_creation() -> None:
    assert deadline.defer_delay(snowflake_aged(0.0, NOW), NOW) == pytest.approx(2.0, abs=1e-3)
    assert deadline.defer_delay(snowflake_aged(1.5, NOW), NOW) == pytest.approx(0.5, abs=1e-3)
    assert deadline.defer_delay(snowflake_aged(2.5, NOW), NOW) == 0.0  # at once


def test_expired_from_three_seconds() -> None:
    assert not deadline.expired(snowflake_aged(2.9, NOW), NOW)
    assert deadline.expired(snowflake_aged(3.0, NOW), NOW)
    assert deadline.expired(snowflake_aged(30.0, NOW), NOW)


def test_clocks_that_disagree_leave_the_click_fresh() -> None:
    """An id from the future, or older than any wait, is a clock skew: never dropped."""
    for skewed in (snowflake_aged(-5.0, NOW), snowflake_aged(3600.0, NOW)):
        assert deadline.age(skewed, NOW) is None
        assert not deadline.expired(skewed, NOW)
        assert deadline.defer_delay(skewed, NOW) == 2.0


# -- within_deadline ------------------------------------------------------------------


def _unknown_interaction() -> discord.NotFound:
    response = SimpleNamespace(status=404, reason="Not Found")
    return discord.NotFound(response, {"code": 10062, "message": "Unknown interaction"})  # type: ignore[arg-type]


class _Response:
    def __init__(self, refuse: bool) -> None:
        self.refuse = refuse
        self.deferred: list[dict[str, Any]] = []

    def is_done(self) -> bool:
        return bool(self.deferred)

    async def defer(self, **kwargs: Any) -> None:
        if self.refuse:
            raise _unknown_interaction()
        self.deferred.append(kwargs)


def _interaction(age: float, *, refuse: bool = False) -> Any:
    return SimpleNamespace(id=snowflake_aged(age, time.time()), response=_Response(refuse))


async def test_an_expired_click_does_not_run_its_work() -> None:
    ran: list[str] = []

    async def work() -> str:
        ran.append("recorded")
        return "recorded"

    interaction = _interaction(3.5)
    with pytest.raises(InteractionExpired):
        await within_deadline(interaction, work(), ephemeral=True)
    assert ran == []
    assert interaction.response.deferred == []


async def test_a_click_past_its_defer_moment_is_deferred_before_its_work_ends() -> None:
    interaction = _interaction(2.2)
    deferred = asyncio.Event()
    original = interaction.response.defer

    async def defer(**kwargs: Any) -> None:
        await original(**kwargs)
        deferred.set()

    interaction.response.defer = defer

    async def work() -> str:
        await deferred.wait()  # done only once deferred: the defer did not wait 2 s more
        return "answered"

    assert await within_deadline(interaction, work(), ephemeral=True) == "answered"
    assert interaction.response.deferred == [{"ephemeral": True, "thinking": True}]


async def test_a_refused_defer_gives_up_the_waiting_work() -> None:
    """Discord says the interaction is unknown (its window closed while the click
    queued): the wait is given up and the queued work cancelled, never written."""
    interaction = _interaction(2.2, refuse=True)
    queued: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    with pytest.raises(InteractionExpired):
        async with asyncio.timeout(10):  # a wait not given up would last forever
            await within_deadline(interaction, queued, ephemeral=True)
    assert queued.cancelled()


async def test_a_timer_run_after_the_window_gives_up_without_deferring(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loop was so busy that the defer timer ran after 3 s: no defer is sent (Discord
    would refuse it) and the waiting work is cancelled."""
    interaction = _interaction(2.2)
    arrived = time.time()
    readings = iter([arrived])  # the arrival; every later reading is 1 s on

    def clock() -> float:
        return next(readings, arrived + 1.0)

    monkeypatch.setattr(responses, "time", SimpleNamespace(time=clock))
    queued: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    with pytest.raises(InteractionExpired):
        async with asyncio.timeout(10):  # a wait not given up would last forever
            await within_deadline(interaction, queued, ephemeral=True)
    assert queued.cancelled()
    assert interaction.response.deferred == []


async def test_a_handler_cancelled_for_another_reason_stays_cancelled() -> None:
    interaction = _interaction(0.0)
    started = asyncio.Event()

    async def work() -> None:
        started.set()
        await asyncio.get_running_loop().create_future()

    handler = asyncio.create_task(within_deadline(interaction, work(), ephemeral=True))
    await started.wait()
    handler.cancel()
    with pytest.raises(asyncio.CancelledError):
        await handler
