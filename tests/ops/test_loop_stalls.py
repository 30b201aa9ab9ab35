"""The loop-stall watcher names what held the event loop, and stays quiet when nothing did.

A callback that blocks the loop (time.sleep in it: the thing to be detected, not a wait for
another task) must come out as one stall of about its length whose frames name it.
"""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from bot.infra.config import ConfigError, Settings
from bot.ops.loop_stalls import watch_stalls


def hold_the_loop(seconds: float) -> None:
    time.sleep(seconds)


async def _settle() -> None:
    """Let the loop tick (and the watcher see it tick) after a pause: a few ticks' time."""
    for _ in range(10):
        await asyncio.sleep(0.003)


async def test_a_blocking_callback_is_one_stall_named_by_its_frames(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="bot.ops.loop_stalls")
    async with watch_stalls(20) as watcher:
        assert watcher is not None
        await _settle()
        hold_the_loop(0.15)
        await _settle()
    stalls = [s for s in watcher.stalls if s.seconds >= 0.1]
    assert len(stalls) == 1, watcher.stalls
    assert stalls[0].seconds < 0.5
    assert stalls[0].samples >= 1
    assert any("hold_the_loop" in frame for frame in stalls[0].where), stalls[0].where
    assert any("hold_the_loop" in r.getMessage() for r in caplog.records)


async def test_no_pause_no_stall() -> None:
    async with watch_stalls(500) as watcher:
        assert watcher is not None
        await _settle()
    assert watcher.stalls == []


async def test_off_without_a_threshold() -> None:
    async with watch_stalls(None) as watcher:
        assert watcher is None


def test_setting_is_read_and_checked() -> None:
    assert Settings.from_env({}, env_file=None).loop_stall_ms is None
    assert Settings.from_env({"TPQUIZ_LOOP_STALL_MS": "5"}, env_file=None).loop_stall_ms == 5.0
    with pytest.raises(ConfigError, match="TPQUIZ_LOOP_STALL_MS"):
        Settings.from_env({"TPQUIZ_LOOP_STALL_MS": "0"}, env_file=None)
