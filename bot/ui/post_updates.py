"""Keeps a post's "N answered" line current without an edit per click.

The first click on a post schedules one edit `interval` seconds later; clicks in between
ride along with it, so a busy post is edited at most once per interval, far below
Discord's per-channel edit limit. The count is read from the database when the edit
goes out, so nothing is kept in memory but the set of posts waiting for an edit.

A post whose message was deleted, or whose channel the bot can no longer see or edit in,
answers every edit the same error: its edits stop at the first such answer (one warning
line), instead of a traceback per click and a retry for every click after.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import discord

log = logging.getLogger(__name__)

#: Discord's error codes after which no edit of the same message can succeed: Unknown
#: Message, Unknown Channel, Missing Access, Missing Permissions.
GONE = {
    10008: "the message was deleted",
    10003: "the channel was deleted",
    50001: "the bot can no longer see the channel",
    50013: "the bot lost its permissions in the channel",
}
#: At most this many stopped posts are remembered (the oldest forgotten first); a post
#: forgotten so gets one more refused edit and is stopped again.
STOPPED_KEPT = 10_000


class CoalescedEdits:
    def __init__(self, edit: Callable[[int], Awaitable[None]], interval: float) -> None:
        self._edit = edit
        self.interval = interval
        self._pending: dict[int, asyncio.Task[None]] = {}
        #: Every edit task not finished yet: waiting (also in `_pending`) or sending.
        self._tasks: set[asyncio.Task[None]] = set()
        #: Posts Discord said can no longer be edited (`GONE`), in the order stopped.
        self._stopped: dict[int, None] = {}

    def touch(self, post_id: int) -> None:
        """Note that a post changed; its edit goes out within `interval` seconds."""
        if post_id not in self._pending and post_id not in self._stopped:
            task = asyncio.create_task(self._run(post_id))
            self._pending[post_id] = task
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, post_id: int) -> None:
        try:
            await asyncio.sleep(self.interval)
        finally:
            # Clicks from here on schedule the next edit; this one reads the count after.
            self._pending.pop(post_id, None)
        await self._send(post_id)

    async def _send(self, post_id: int) -> None:
        """One edit; a failure is logged, and one that will never pass stops the post."""
        try:
            await self._edit(post_id)
        except discord.HTTPException as exc:
            if exc.code not in GONE:
                log.warning("could not update the answer count of post %s", post_id, exc_info=True)
                return
            self._stop(post_id)
            log.warning(
                "post %s: answer count edits stopped: %s (Discord %s, code %s)",
                post_id,
                GONE[exc.code],
                exc.status,
                exc.code,
            )
        except Exception:
            log.warning("could not update the answer count of post %s", post_id, exc_info=True)

    def _stop(self, post_id: int) -> None:
        self._stopped[post_id] = None
        while len(self._stopped) > STOPPED_KEPT:
            del self._stopped[next(iter(self._stopped))]

    def stopped(self) -> set[int]:
        """The posts whose edits stopped (Discord refuses every edit of them)."""
        return set(self._stopped)

    async def flush(self, timeout: float) -> int:  # noqa: ASYNC109
        """Send every pending edit now instead of waiting (at shutdown); at most `timeout`
        s, then cancel what is left and return how many posts kept a stale count.

        Edits already being sent are awaited too: the HTTP session closes after this
        returns, and an edit cut off by that logged "Session is closed" with a traceback.
        Bounded because an edit reads the count from the database, and a batch waiting
        for a lock another process holds keeps the database thread for its busy timeout.
        """
        pending = dict(self._pending)
        being_sent = [task for task in self._tasks if task not in pending.values()]
        for post_id, task in pending.items():
            task.cancel()
            # A task cancelled before its first step never runs its `finally`.
            self._pending.pop(post_id, None)

        async def send_pending() -> None:
            await asyncio.gather(*self._tasks, return_exceptions=True)
            for post_id in pending:
                await self._send(post_id)

        sending = asyncio.ensure_future(send_pending())
        done, _ = await asyncio.wait({sending}, timeout=timeout)
        if done:
            return 0
        stale = len(pending) + len(being_sent)
        sending.cancel()  # and with it the gather of the edits being sent
        await asyncio.gather(sending, return_exceptions=True)
        log.warning("shutdown: %d answer count edit(s) not sent within %.0f s", stale, timeout)
        return stale

    def pending(self) -> set[int]:
        return set(self._pending)
