"""`finish_interaction_tasks`: at shutdown, interaction handlers get a grace period; the
ones still running after it are cancelled (one warning), so none of them replies on the
HTTP session that closes next ("Session is closed" tracebacks, one per click)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.runtime.bot import finish_interaction_tasks


async def test_handlers_that_finish_in_time_are_left_alone() -> None:
    gate = asyncio.Event()

    async def handler() -> str:
        await gate.wait()
        return "replied"

    task = asyncio.get_running_loop().create_task(handler(), name="discord-ui-dynamic-1")
    asyncio.get_running_loop().call_soon(gate.set)
    assert await finish_interaction_tasks(5.0) == 0
    assert task.result() == "replied"


async def test_handlers_still_running_after_the_grace_are_cancelled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="bot.runtime.bot")
    forever = asyncio.Event()
    replied: list[str] = []

    async def handler(name: str) -> None:
        await forever.wait()
        replied.append(name)  # pragma: no cover - never reached: the wait never ends

    loop = asyncio.get_running_loop()
    stuck = [loop.create_task(handler(n), name=f"discord-ui-dynamic-{n}") for n in "ab"]
    other = loop.create_task(forever.wait(), name="tpquiz-group-commit")
    assert await finish_interaction_tasks(0.0) == 2
    assert all(t.cancelled() for t in stuck) and replied == []
    assert not other.done()  # only interaction handlers are touched
    assert [r.getMessage() for r in caplog.records] == [
        "2 interaction(s) still running after 0 s; cancelled, their members get no reply"
    ]
    other.cancel()
