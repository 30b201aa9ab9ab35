"""`within_deadline`: the work is awaited as it is; the interaction is deferred once, and
only when the work is still running after `defer_after` (Discord's 3-second window).

No sleeps: `defer_after=0` makes the timer due on the next loop iteration, and events
decide when the work finishes relative to it.
"""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import pytest

from bot.ui.responses import within_deadline


class _Response:
    def __init__(self, *, defer_fails: bool = False) -> None:
        self.deferred: list[dict[str, Any]] = []
        self.attempts = 0
        self.defer_fails = defer_fails

    def is_done(self) -> bool:
        return bool(self.deferred)

    async def defer(self, **kwargs: Any) -> None:
        self.attempts += 1
        if self.defer_fails:
            raise RuntimeError("404 Unknown interaction")
        self.deferred.append(kwargs)


def _interaction(**kwargs: Any) -> Any:
    return SimpleNamespace(id=5, response=_Response(**kwargs))


async def _after(event: asyncio.Event, value: str) -> str:
    await event.wait()
    return value


async def _slow(interaction: Any, value: str) -> str:
    """Work that finishes only once a defer has been tried (and has failed or succeeded)."""
    loop = asyncio.get_running_loop()
    done = asyncio.Event()

    def poll() -> None:
        if interaction.response.attempts:
            loop.call_soon(done.set)
        else:
            loop.call_soon(poll)

    loop.call_soon(poll)
    await done.wait()
    return value


async def test_work_done_in_time_is_not_deferred() -> None:
    interaction = _interaction()
    assert await within_deadline(interaction, asyncio.sleep(0, "ok"), ephemeral=True) == "ok"
    assert interaction.response.deferred == []


async def test_slow_work_defers_once_with_thinking() -> None:
    interaction = _interaction()
    result = await within_deadline(
        interaction, _slow(interaction, "late"), ephemeral=True, defer_after=0
    )
    assert result == "late"
    assert interaction.response.deferred == [{"ephemeral": True, "thinking": True}]


async def test_slow_button_work_defers_as_an_update() -> None:
    interaction = _interaction()
    await within_deadline(
        interaction, _slow(interaction, "x"), ephemeral=False, update=True, defer_after=0
    )
    assert interaction.response.deferred == [{}]


async def test_no_defer_when_already_answered() -> None:
    interaction = _interaction()
    interaction.response.deferred.append({"already": True})
    gate = asyncio.Event()
    asyncio.get_running_loop().call_later(0, gate.set)
    await within_deadline(interaction, _after(gate, "x"), ephemeral=True, defer_after=0)
    assert interaction.response.deferred == [{"already": True}]


async def test_an_error_after_the_defer_propagates() -> None:
    interaction = _interaction()

    async def fails() -> None:
        await _slow(interaction, "x")
        raise ValueError("bad row")

    with pytest.raises(ValueError, match="bad row"):
        await within_deadline(interaction, fails(), ephemeral=True, defer_after=0)
    assert interaction.response.deferred == [{"ephemeral": True, "thinking": True}]


async def test_a_failed_defer_is_logged_and_the_result_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    interaction = _interaction(defer_fails=True)
    caplog.set_level(logging.WARNING, logger="bot.ui.responses")
    result = await within_deadline(
        interaction, _slow(interaction, "kept"), ephemeral=True, defer_after=0
    )
    assert result == "kept"
    assert [r.getMessage() for r in caplog.records] == [
        "could not defer interaction 5: RuntimeError('404 Unknown interaction')"
    ]
