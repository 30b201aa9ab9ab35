"""SIGKILL in the middle of a burst of clicks on a daily post.

A click on a daily post writes the answer and the member's daily streak. They are one
transaction (bot/storage/sqlite/clicks.py), shared with the clicks beside it (group commit), and
the member is told only after it committed: so every click that got its reply has both
its answer and its streak, and no answer is in the file without its streak.
"""

from __future__ import annotations

import asyncio

from tests.drills.conftest import (
    DAILY_CHANNEL,
    GUILD_ID,
    Drill,
    answer_rows,
    click_key,
)
from tests.loopback.server import CALLBACK_ROUTE, CHANNEL_MESSAGES_ROUTE

BURST = 80
KILL_AFTER = 25


async def _daily_post(drill: Drill) -> tuple[int, list[str]]:
    """Post today's daily question by `/tpquiz-admin daily now`; (message id, buttons)."""
    await drill.run_admin("daily channel", {"channel": DAILY_CHANNEL})
    since = len(drill.loopback.requests)
    await drill.run_admin("daily now")
    (posted,) = [
        r
        for r in drill.loopback.requests[since:]
        if r.method == "POST" and r.route == CHANNEL_MESSAGES_ROUTE and r.status == 200
    ]
    ids = [c["custom_id"] for row in posted.body["components"] for c in row["components"]]
    return int(posted.response["id"]), ids


async def test_sigkill_mid_burst_on_a_daily_post_keeps_every_answer_with_its_streak(
    drill: Drill,
) -> None:
    bot = await drill.start_bot()
    post = await _daily_post(drill)
    payloads = drill.clicks([post], BURST)
    since = len(drill.loopback.requests)
    gate = drill.loopback.hold_after("POST", CALLBACK_ROUTE, KILL_AFTER)
    await asyncio.gather(
        *(drill.loopback.dispatch("INTERACTION_CREATE", payload) for payload in payloads)
    )
    await drill.wait_callbacks(KILL_AFTER, since)
    assert await bot.kill() == -9
    gate.drop()
    answered = drill.answered(since)
    assert KILL_AFTER <= len(answered) < BURST, "the kill must land mid-burst"

    recorded = answer_rows(drill)
    by_id = {payload["id"]: payload for payload in payloads}
    for interaction in answered:
        assert recorded.get(click_key(drill, by_id[interaction])) == 1
    assert all(n == 1 for n in recorded.values())
    drill.assert_consistent()
    # Every recorded answer (acknowledged or committed just before the kill) has its
    # daily streak, and no streak exists without its answer.
    ((day,),) = drill.rows("SELECT local_date FROM daily_slots WHERE status = 'sent'")
    streaks = {
        int(user): (last, streak)
        for user, last, streak in drill.rows(
            "SELECT user_id, last_date, streak FROM daily_streaks WHERE guild_id = ?",
            (GUILD_ID,),
        )
    }
    members = {user for _, user in recorded}
    assert set(streaks) == members
    assert all(value == (day, 1) for value in streaks.values())
