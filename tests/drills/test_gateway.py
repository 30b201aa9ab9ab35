"""The gateway connection drops in the middle of a burst of clicks.

The loopback keeps the session and buffers what it dispatches while the bot is away;
discord.py reconnects with RESUME and gets those events replayed (as Discord does). Every
click must then be answered exactly once: none lost in the gap, none handled twice.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.drills.conftest import Drill, answer_rows, click_key

BURST = 60
DROP_AFTER = 15


@pytest.mark.parametrize("abort", [False, True], ids=["close-4000", "tcp-reset"])
async def test_gateway_drop_mid_burst_answers_every_click_once(drill: Drill, abort: bool) -> None:
    await drill.start_bot()
    posts = [await drill.post_question()]
    payloads = drill.clicks(posts, BURST)
    first, second = payloads[: BURST // 2], payloads[BURST // 2 :]
    since = len(drill.loopback.requests)
    await asyncio.gather(*(drill.loopback.dispatch("INTERACTION_CREATE", p) for p in first))
    await drill.wait_callbacks(DROP_AFTER, since)
    await drill.loopback.drop_connections(abort=abort)
    # The rest of the burst arrives while the bot is away: buffered, replayed on RESUME.
    assert all(s.conn is None for s in drill.loopback.sessions.values())
    await asyncio.gather(*(drill.loopback.dispatch("INTERACTION_CREATE", p) for p in second))
    await drill.loopback.wait_connected(10, resumes=1)
    await drill.wait_callbacks(BURST, since)

    callbacks = drill.callbacks(since)
    assert set(callbacks) == {p["id"] for p in payloads}
    for interaction, requests in callbacks.items():
        assert [(r.status, r.body["type"]) for r in requests] == [(200, 4)], interaction
    assert drill.loopback.identify_count == 1 and drill.loopback.resume_count == 1
    recorded = answer_rows(drill)
    assert recorded == {click_key(drill, p): 1 for p in payloads}
    drill.assert_consistent()
