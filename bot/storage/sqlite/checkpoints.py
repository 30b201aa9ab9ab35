"""WAL checkpoints off the click path: a connection and a thread of their own, once a second.

Why: in WAL mode SQLite copies the log back into the database file (a checkpoint) when a
COMMIT finds the log past `wal_autocheckpoint` pages (1,000 by default), inside that
COMMIT. With synchronous = NORMAL the checkpoint is also where the disk is synced, so
every few hundred clicks one click's commit waited for a copy of ~4 MB and two fsyncs,
and every click queued behind it too: the tail of the click latency at a steady 200
clicks/s (docs/performance.md §15: p99 5.0 ms with the automatic checkpoint, 3.2 ms
without).

So here a passive checkpoint runs once a second when something was committed, on a
third connection on its own thread: SQLite lets it run beside the writers (it takes no
write lock and never waits: `busy_timeout` 0, and a PASSIVE checkpoint skips what a reader
still needs), so the clicks' commits only append to the log. The writers' own automatic
checkpoint stays as a safety net at `SAFETY_NET_PAGES` (~40 MiB of log): it only fires when
this one falls behind (a reader holding an old snapshot for minutes, or this thread
failing). A failure (disk full, I/O error) is logged once until a checkpoint succeeds
again; the click path's own errors are what tell members their answer was not saved.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path

__all__ = ["INTERVAL_SECONDS", "SAFETY_NET_PAGES", "Checkpointer"]

log = logging.getLogger(__name__)

#: Seconds between two checkpoints while something is committed.
INTERVAL_SECONDS = 1.0
#: The writers' `wal_autocheckpoint`: past this many pages of log a COMMIT checkpoints
#: itself, as SQLite does by default at 1,000.
SAFETY_NET_PAGES = 10_000


class Checkpointer:
    """Checkpoints the WAL of the file at `path` while `start()`ed; `stop()` to end."""

    def __init__(self, path: Path | str, last_write: Callable[[], float | None]) -> None:
        self.path = path
        self.last_write = last_write
        #: Checkpoints run (each: frames in the log, frames copied), for tests and benches.
        self.done: list[tuple[int, int]] = []
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tpquiz-checkpoint")
        self._conn: sqlite3.Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self._failing = False

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._conn = await loop.run_in_executor(self._thread, self._connect)
        self._task = loop.create_task(self._run(), name="tpquiz-wal-checkpoint")

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 0")
        return conn

    async def _run(self) -> None:
        checkpointed_at: float | None = None
        while True:
            await asyncio.sleep(INTERVAL_SECONDS)
            written = self.last_write()
            if written is None or written == checkpointed_at:
                continue  # nothing committed since the last one
            checkpointed_at = written
            await self.checkpoint()

    async def checkpoint(self) -> tuple[int, int] | None:
        """One passive checkpoint now: (frames in the log, frames copied), or None when it
        failed (logged)."""
        loop = asyncio.get_running_loop()
        try:
            busy, log_frames, copied = await loop.run_in_executor(self._thread, self._passive)
        except sqlite3.Error as exc:
            if not self._failing:
                log.warning("WAL checkpoint failed (the clicks' commits will retry it): %s", exc)
            self._failing = True
            return None
        if self._failing:
            log.info("WAL checkpoints work again")
        self._failing = False
        self.done.append((log_frames, copied))
        return log_frames, copied

    def _passive(self) -> tuple[int, int, int]:
        assert self._conn is not None
        row = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        conn, self._conn = self._conn, None
        if conn is not None:
            loop = asyncio.get_running_loop()
            with suppress(sqlite3.Error):
                await loop.run_in_executor(self._thread, conn.close)
        self._thread.shutdown(wait=True)
