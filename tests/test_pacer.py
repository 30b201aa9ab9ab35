"""The pacer of bot/ui/poster.py on a fake clock: its rate stays under Discord's global
limit in every one-second window, and count edits draw from the same budget as the daily
posts (issue 30: the pacer runs close to the limit because nothing it shares Discord's
global limit with goes around it; interaction responses are not counted by Discord)."""

from __future__ import annotations

import asyncio

import pytest

from bot.ui.poster import DISCORD_GLOBAL_PER_SECOND, SENDS_PER_SECOND, Pacer, paced


class FakeClock:
    """A monotonic clock that moves only when the pacer sleeps."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def _most_in_one_second(starts: list[float]) -> int:
    return max(sum(1 for t in starts if s <= t < s + 1.0) for s in starts)


async def test_the_pacer_stays_under_discords_global_limit_in_every_window() -> None:
    clock = FakeClock()
    pacer = Pacer(SENDS_PER_SECOND, clock=clock, sleep=clock.sleep)
    starts = []
    for _ in range(500):
        await pacer.wait()
        starts.append(clock.now)
    assert _most_in_one_second(starts) <= DISCORD_GLOBAL_PER_SECOND
    # ... and uses the budget it has: 500 starts in 500 / SENDS_PER_SECOND seconds.
    assert starts[-1] - starts[0] == pytest.approx(499 / SENDS_PER_SECOND)


async def test_count_edits_and_daily_posts_share_one_budget() -> None:
    clock = FakeClock()
    pacer = Pacer(SENDS_PER_SECOND, clock=clock, sleep=clock.sleep)
    sent: list[tuple[str, float]] = []

    async def edit(post_id: int) -> None:
        sent.append(("edit", clock.now))

    edit_count = paced(pacer, edit)

    async def daily_post() -> None:
        await pacer.wait()
        sent.append(("post", clock.now))

    for i in range(300):
        await (edit_count(i) if i % 3 == 0 else daily_post())
    assert {kind for kind, _ in sent} == {"edit", "post"}
    assert _most_in_one_second([t for _, t in sent]) <= DISCORD_GLOBAL_PER_SECOND


async def test_a_lone_request_is_not_delayed() -> None:
    clock = FakeClock()
    pacer = Pacer(SENDS_PER_SECOND, clock=clock, sleep=clock.sleep)
    await pacer.wait()
    assert clock.now == 100.0
    clock.now += 5.0  # long after: the budget is back
    await asyncio.create_task(pacer.wait())
    assert clock.now == 105.0
