"""Discord answers 429 with retry_after on interaction callbacks and on channel posts.

discord.py retries after the time Discord names; the bot must not lose the reply, the
answer or the daily post, and must not retry early (a bot that ignores retry_after is
eventually banned by Cloudflare). Times are taken as the loopback records each request.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.drills.conftest import (
    DAILY_CHANNEL,
    Drill,
    answer_rows,
    click_key,
)
from tests.loopback.server import (
    CALLBACK_ROUTE,
    CHANNEL_MESSAGES_ROUTE,
    RecordedRequest,
)

RETRY_AFTER = 0.4


def rate_limited(retry_after: float = RETRY_AFTER) -> dict[str, Any]:
    return {"message": "You are being rate limited.", "retry_after": retry_after, "global": False}


def retries(requests: list[RecordedRequest]) -> list[tuple[RecordedRequest, RecordedRequest]]:
    """(429, the same request's next try) pairs, in order."""
    return [(a, b) for a, b in zip(requests, requests[1:], strict=False) if a.status == 429]


async def test_429_on_callbacks_waits_as_told_and_loses_nothing(drill: Drill) -> None:
    await drill.start_bot()
    posts = [await drill.post_question()]
    payloads = drill.clicks(posts, 10)
    drill.loopback.fail_next("POST", CALLBACK_ROUTE, 429, rate_limited(), count=5)
    since = len(drill.loopback.requests)
    # interact() returns at the first callback, a 429 for some: wait for the retries.
    await asyncio.gather(*(drill.loopback.interact(p, timeout=10) for p in payloads))
    await drill.wait_callbacks(len(payloads), since, ok_only=True)
    by_interaction = drill.callbacks(since)
    # Arrival times stamped by the loopback itself: the retry cannot arrive before
    # the bot has read the 429, so b.arrived - a.arrived is at least the wait it slept.
    waited = [
        b.arrived - a.arrived for requests in by_interaction.values() for a, b in retries(requests)
    ]
    assert len(waited) == 5
    assert min(waited) >= RETRY_AFTER * 0.95, waited
    for requests in by_interaction.values():
        assert requests[-1].status == 200 and requests[-1].body["type"] == 4
    assert answer_rows(drill) == {click_key(drill, p): 1 for p in payloads}
    drill.assert_consistent()


async def test_429_on_a_channel_post_waits_as_told_and_the_post_goes_out(drill: Drill) -> None:
    await drill.start_bot()
    await drill.run_admin("daily channel", {"channel": DAILY_CHANNEL})
    drill.loopback.fail_next("POST", CHANNEL_MESSAGES_ROUTE, 429, rate_limited(), count=2)
    since = len(drill.loopback.requests)
    reply = await drill.run_admin("daily now")
    posts = [
        r
        for r in drill.loopback.requests[since:]
        if r.method == "POST" and r.route == CHANNEL_MESSAGES_ROUTE
    ]
    waited = [b.arrived - a.arrived for a, b in retries(posts)]
    assert [r.status for r in posts] == [429, 429, 200]
    assert min(waited) >= RETRY_AFTER * 0.95, waited
    assert reply.body["data"]["content"] == f"Today's question is posted in <#{DAILY_CHANNEL}>."
    message_id = int(posts[-1].response["id"])
    assert drill.rows(
        "SELECT s.status, p.message_id FROM daily_slots s JOIN posts p ON p.id = s.post_id"
    ) == [("sent", message_id)]
