"""`CoalescedEdits.flush` at shutdown: pending edits go out at once, and an edit that
cannot finish (its count read waits behind a held database lock) is given up at the
deadline instead of holding the exit."""

from __future__ import annotations

import asyncio

import pytest

from bot.ui.post_updates import CoalescedEdits


async def test_flush_sends_the_pending_edits_now() -> None:
    edited: list[int] = []

    async def edit(post_id: int) -> None:
        edited.append(post_id)

    edits = CoalescedEdits(edit, interval=3600)  # would never fire by itself here
    edits.touch(1)
    edits.touch(2)
    assert await edits.flush(timeout=10) == 0
    assert sorted(edited) == [1, 2]
    assert edits.pending() == set()


async def test_flush_gives_up_an_edit_that_cannot_finish(caplog: pytest.LogCaptureFixture) -> None:
    never = asyncio.Event()
    cancelled: list[int] = []

    async def edit(post_id: int) -> None:
        try:
            await never.wait()
        except asyncio.CancelledError:
            cancelled.append(post_id)
            raise

    edits = CoalescedEdits(edit, interval=3600)
    edits.touch(7)
    assert await edits.flush(timeout=0.05) == 1
    assert cancelled == [7]
    assert "shutdown: 1 answer count edit(s) not sent" in caplog.text
