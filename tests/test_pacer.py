"""The pacer of bot/ui/poster.py on a fake clock: its starts stay under Discord's global
limit in every one-second window, even when the event loop wakes its callers late
(issue 30: the pacer runs close to the limit, because everything that shares Discord's
global limit with the daily posts goes through it, the count edits too; interaction
responses are not counted by Discord). That a count edit takes a slot of it is checked
end to end in tests/e2e/test_quiz.py."""

from __future__ import annotations

import asyncio

import pytest

from bot.ui.poster import DISCORD_GLOBAL_PER_SECOND, SENDS_PER_SECOND, Pacer


class FakeClock:
    """A monotonic clock that moves only when a caller sleeps; every `stall_every`-th
    sleep oversleeps by `stall` seconds (an event loop busy elsewhere)."""

    def __init__(self, stall_every: int = 0, stall: float = 0.0) -> None:
        self.now = 100.0
        self.sleeps = 0
        self.stall_every = stall_every
        self.stall = stall

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        late = self.stall if self.stall_every and self.sleeps % self.stall_every == 0 else 0.0
        self.now = max(self.now, self.now + seconds + late)
        await asyncio.sleep(0)


def _most_in_one_second(starts: list[float]) -> int:
    return max(sum(1 for t in starts if s <= t < s + 1.0) for s in starts)


async def test_the_pacer_stays_under_discords_global_limit_and_uses_its_budget() -> None:
    clock = FakeClock()
    pacer = Pacer(SENDS_PER_SECOND, clock=clock, sleep=clock.sleep)
    starts = []
    for _ in range(500):
        await pacer.wait()
        starts.append(clock.now)
    assert _most_in_one_second(starts) <= int(SENDS_PER_SECOND) < DISCORD_GLOBAL_PER_SECOND
    assert starts[-1] - starts[0] == pytest.approx(499 / SENDS_PER_SECOND, rel=1e-3)


async def test_callers_woken_late_never_exceed_one_seconds_budget() -> None:
    """Eight senders at once (the poster's semaphore), the loop oversleeping every third
    sleep by 70 ms: the late ones catch up, but no second ever holds more than the rate."""
    clock = FakeClock(stall_every=3, stall=0.07)
    pacer = Pacer(SENDS_PER_SECOND, clock=clock, sleep=clock.sleep)
    starts: list[float] = []

    async def sender(n: int) -> None:
        for _ in range(n):
            await pacer.wait()
            starts.append(clock.now)

    await asyncio.gather(*(sender(40) for _ in range(8)))
    assert len(starts) == 320
    assert _most_in_one_second(starts) <= int(SENDS_PER_SECOND) < DISCORD_GLOBAL_PER_SECOND


async def test_a_lone_request_is_not_delayed() -> None:
    clock = FakeClock()
    pacer = Pacer(SENDS_PER_SECOND, clock=clock, sleep=clock.sleep)
    await pacer.wait()
    assert clock.now == 100.0
    clock.now += 5.0  # long after: the budget is back
    await pacer.wait()
    assert clock.now == 105.0
