"""The bot process is killed (SIGKILL) in the middle of a burst of clicks.

Nothing runs at a SIGKILL: no handler, no flush, no close. What must hold is what the
design promises: an answer is committed before the member is told, so every click that
received a reply is in the database (once), every transaction is whole, and the old
posts' buttons work for the bot started again (their custom_ids carry all they need).
"""

from __future__ import annotations

import asyncio

from tests.drills.conftest import CALLBACK_ROUTE, Drill, answer_rows, click_key

BURST = 80
KILL_AFTER = 25  # replies seen before the kill: the burst is well under way


async def test_sigkill_mid_burst_loses_no_answered_click(drill: Drill) -> None:
    bot = await drill.start_bot()
    posts = [await drill.post_question(), await drill.post_question()]
    payloads = drill.clicks(posts, BURST)
    since = len(drill.loopback.requests)
    # Replies beyond the first KILL_AFTER wait at the loopback while the bot goes on
    # committing clicks: the kill lands mid-burst however fast the bot is.
    gate = drill.loopback.hold_after("POST", CALLBACK_ROUTE, KILL_AFTER)
    await asyncio.gather(
        *(drill.loopback.dispatch("INTERACTION_CREATE", payload) for payload in payloads)
    )
    await drill.wait_callbacks(KILL_AFTER, since)
    assert await bot.kill() == -9
    gate.drop()
    answered = drill.answered(since)
    assert KILL_AFTER <= len(answered) < BURST, "the kill must land mid-burst"

    # Every click that got its reply is recorded, once; nothing is half written.
    recorded = answer_rows(drill)
    by_id = {payload["id"]: payload for payload in payloads}
    for interaction in answered:
        assert recorded.get(click_key(drill, by_id[interaction])) == 1
    assert all(n == 1 for n in recorded.values())
    drill.assert_consistent()
    unanswered = [p for p in payloads if p["id"] not in answered]
    committed_unreplied = [p for p in unanswered if click_key(drill, p) in recorded]

    # Started again: the old posts' buttons work, for everyone who clicks again.
    await drill.start_bot()
    since = len(drill.loopback.requests)
    retries = [
        drill.loopback.button_click(int(p["message"]["id"]), p["data"]["custom_id"], p["member"])
        for p in unanswered
    ]
    replies = await asyncio.gather(*(drill.loopback.interact(r, timeout=10) for r in retries))
    for retry, reply in zip(retries, replies, strict=True):
        assert reply.status == 200 and reply.body["type"] == 4
        embed = reply.body["data"]["embeds"][0]
        # A click committed just before the kill is the member's answer: the retry says so.
        already = "already answered" in embed.get("description", "")
        assert already == (click_key(drill, retry) in recorded), embed
    fresh = drill.clicks(posts, 4, first=BURST)
    for reply in await asyncio.gather(*(drill.loopback.interact(p, timeout=10) for p in fresh)):
        assert reply.body["type"] == 4
        assert reply.body["data"]["embeds"][0]["title"] in ("✅ Correct!", "❌ Wrong.")

    # In the end every member who clicked has exactly one answer per post.
    final = answer_rows(drill)
    assert set(final) == {click_key(drill, p) for p in payloads + fresh}
    assert all(n == 1 for n in final.values())
    drill.assert_consistent()
    # The held replies' clicks went on committing: those members were never told, and
    # their retries above said "already answered" rather than scoring twice.
    assert len(committed_unreplied) <= BURST - KILL_AFTER
