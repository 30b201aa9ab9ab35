"""SIGTERM (systemd stop, docker stop) in the middle of a burst of clicks.

The bot must finish the answers it has started (each one both recorded and replied to),
close the database cleanly and exit 0 within a few seconds, well inside systemd's and
Docker's grace period before their SIGKILL.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import time
from pathlib import Path

from tests.drills.conftest import Drill, answer_rows, click_key

BURST = 60
TERM_AFTER = 10
#: The exit must come well within Docker's default 10 s grace period.
EXIT_WITHIN = 5.0


def closed_cleanly(db_path: Path) -> bool:
    """No WAL left behind (SQLite removes it when the last connection closes) and an
    intact database."""
    wal = Path(f"{db_path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return False
    with sqlite3.connect(db_path) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


async def test_sigterm_finishes_answers_in_flight_and_exits_cleanly(drill: Drill) -> None:
    bot = await drill.start_bot()
    posts = [await drill.post_question(), await drill.post_question()]
    payloads = drill.clicks(posts, BURST)
    since = len(drill.loopback.requests)
    await asyncio.gather(*(drill.loopback.dispatch("INTERACTION_CREATE", p) for p in payloads))
    await drill.wait_callbacks(TERM_AFTER, since)
    bot.send(signal.SIGTERM)
    started = time.monotonic()
    status = await bot.wait(EXIT_WITHIN + 5)
    took = time.monotonic() - started
    log = bot.log_text()
    assert status == 0, log
    assert took < EXIT_WITHIN, f"exit took {took:.1f}s"

    # Every click the bot started is both recorded and replied to; no reply without its
    # answer and no answer without its reply.
    replied = {
        interaction
        for interaction, requests in drill.callbacks(since).items()
        if any(r.status == 200 and r.body["type"] in (4, 5) for r in requests)
    }
    recorded = answer_rows(drill)
    by_id = {p["id"]: p for p in payloads}
    assert {click_key(drill, by_id[i]) for i in replied} == set(recorded), log
    assert all(n == 1 for n in recorded.values())
    assert len(replied) >= TERM_AFTER
    drill.assert_consistent()

    # Closed cleanly: the last connection's close checkpoints and removes the WAL.
    assert closed_cleanly(drill.db_path)
    assert "stopped" in log and "Traceback" not in log, log
