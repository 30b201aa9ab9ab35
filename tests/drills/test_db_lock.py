"""Another process holds the database's write lock for seconds, as a backup would.

Discord fails an interaction not answered within 3 s. `bot.ui.responses.within_deadline`
defers a reply whose work is not done after 2 s (a type-5 callback: "thinking..."), and
the answer follows as a followup message once the lock is free; the click is recorded
then, not lost. The lock is held by this test process's own sqlite3 connection; the
bot is a separate process, as a backup job would be.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time

from tests.drills.conftest import Drill, answer_rows, click_key
from tests.loopback.server import FOLLOWUP_ROUTE, RecordedRequest

CLICKS = 6
#: How long the lock is held: the fault itself, longer than Discord's 3 s.
HOLD_SECONDS = 4.0
DISCORD_DEADLINE = 3.0
EPHEMERAL = 64


async def test_a_held_write_lock_defers_then_answers_and_records(drill: Drill) -> None:
    await drill.start_bot()
    posts = [await drill.post_question()]
    payloads = drill.clicks(posts, CLICKS)

    holder = sqlite3.connect(drill.db_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # the write lock, as `tpquiz backup` takes it
        locked_at = time.monotonic()
        since = len(drill.loopback.requests)
        sent = time.monotonic()
        first = await asyncio.gather(
            *(drill.loopback.interact(p, timeout=DISCORD_DEADLINE) for p in payloads)
        )
        deferred_within = time.monotonic() - sent
        # Nothing can be recorded while the lock is held.
        assert answer_rows(drill) == {}
        await asyncio.sleep(max(0.0, HOLD_SECONDS - (time.monotonic() - locked_at)))
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    assert deferred_within < DISCORD_DEADLINE
    for callback in first:
        assert callback.status == 200
        assert callback.body["type"] == 5  # deferred, "thinking"
        assert callback.body["data"]["flags"] & EPHEMERAL
    # The answers follow as followups once the lock is released.
    tokens = {p["token"]: p for p in payloads}

    def answered(_: RecordedRequest) -> bool:
        followups = [
            r
            for r in drill.loopback.requests[since:]
            if r.method == "POST" and r.route == FOLLOWUP_ROUTE and r.status == 200
        ]
        return len({r.params["webhook_token"] for r in followups}) == CLICKS

    await drill.loopback.wait_for(answered, since=since, timeout=10)
    followups = [
        r
        for r in drill.loopback.requests[since:]
        if r.method == "POST" and r.route == FOLLOWUP_ROUTE
    ]
    assert {r.params["webhook_token"] for r in followups} == set(tokens)
    for followup in followups:
        assert followup.body["flags"] & EPHEMERAL
        assert followup.body["embeds"][0]["title"] in ("✅ Correct!", "❌ Wrong.")
    assert answer_rows(drill) == {click_key(drill, p): 1 for p in payloads}
    drill.assert_consistent()
