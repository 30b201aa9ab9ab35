"""Pauses of the event loop longer than a threshold, and what the loop was running then.

Why: a member feels any pause of the event loop as a slow button, because every click
waits behind whatever holds the loop (issue 30: the p95 and p99 at a steady 200 clicks/s
were several times a bare bot's). A latency histogram says that pauses happen, not what
caused them. This watcher says what: a callback on the loop stamps the time every
`TICK_SECONDS`; a daemon thread checks the stamp every `poll` seconds, and while the
stamp is older than the threshold it samples the main thread's stack
(`sys._current_frames`, documented in the `sys` module). When the loop ticks again the
pause is logged (WARNING, `%s` arguments) with its length and the frames seen most often
during it, so one log line names the function that held the loop, and counted in
`Stalls`, which the benches read from the log.

Off unless TPQUIZ_LOOP_STALL_MS is set (a diagnostic for benches and for a production
incident): the ticker costs one callback every 2 ms and the thread one wake-up per poll.
A pause while the main thread holds the GIL in C code (a long regex, a big JSON dump)
cannot be sampled until it ends; its length is still exact, its frames are then the
ones the thread saw first after it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import sys
import threading
import time
import traceback
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

__all__ = ["TICK_SECONDS", "LoopStallWatcher", "Stall", "watch_stalls"]

log = logging.getLogger(__name__)

#: How often the loop stamps the time; a pause shorter than this is not seen.
TICK_SECONDS = 0.002
#: Frames of the main thread's stack kept per sample (innermost last).
FRAMES_KEPT = 6


@dataclass(frozen=True)
class Stall:
    """One pause: when it began (monotonic seconds), how long it lasted, where it was."""

    started: float
    seconds: float
    #: The stack seen most often during the pause, innermost frame last ("file:line fn").
    where: tuple[str, ...]
    samples: int


@dataclass
class _Pause:
    started: float
    stacks: collections.Counter[tuple[str, ...]] = field(default_factory=collections.Counter)


def _stack(frame: object) -> tuple[str, ...]:
    summary = traceback.extract_stack(frame)[-FRAMES_KEPT:]  # type: ignore[arg-type]
    return tuple(f"{fs.filename.rsplit('/', 2)[-1]}:{fs.lineno} {fs.name}" for fs in summary)


class LoopStallWatcher:
    """Watch one running loop; `start()` from inside it, `stop()` before it closes."""

    def __init__(self, threshold_ms: float, *, poll_seconds: float = 0.001) -> None:
        self.threshold = threshold_ms / 1000
        self.poll = poll_seconds
        self.stalls: list[Stall] = []
        self._stamp = time.monotonic()
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._main_id = threading.main_thread().ident

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._main_id = threading.get_ident()
        self._stamp = time.monotonic()
        self._tick()
        self._thread = threading.Thread(target=self._watch, name="loop-stalls", daemon=True)
        self._thread.start()
        log.info("watching event loop pauses over %.1f ms", self.threshold * 1000)

    def stop(self) -> None:
        self._stop.set()
        if self._handle is not None:
            self._handle.cancel()
        if self._thread is not None:
            self._thread.join(timeout=1)

    def _tick(self) -> None:
        self._stamp = time.monotonic()
        assert self._loop is not None
        self._handle = self._loop.call_later(TICK_SECONDS, self._tick)

    def _watch(self) -> None:
        pause: _Pause | None = None
        # A pause is measured from the tick that should have come: the last stamp plus
        # one tick interval (a tick itself is not a pause).
        while not self._stop.wait(self.poll):
            stamp = self._stamp
            now = time.monotonic()
            late = now - stamp - TICK_SECONDS
            if late > self.threshold:
                if pause is None or pause.started != stamp:
                    if pause is not None:
                        self._ended(pause, stamp)
                    pause = _Pause(stamp)
                frame = sys._current_frames().get(self._main_id or 0)
                if frame is not None:
                    pause.stacks[_stack(frame)] += 1
            elif pause is not None:
                self._ended(pause, stamp)
                pause = None

    def _ended(self, pause: _Pause, ticked_at: float) -> None:
        seconds = max(0.0, ticked_at - pause.started - TICK_SECONDS)
        where = pause.stacks.most_common(1)[0][0] if pause.stacks else ()
        stall = Stall(pause.started, seconds, where, sum(pause.stacks.values()))
        self.stalls.append(stall)
        log.warning(
            "event loop paused %.1f ms (%s samples); most seen: %s",
            seconds * 1000,
            stall.samples,
            " > ".join(where) or "(no sample)",
        )


@contextlib.asynccontextmanager
async def watch_stalls(threshold_ms: float | None) -> AsyncIterator[LoopStallWatcher | None]:
    """Watch the running loop's pauses over `threshold_ms` while inside; None: no watching."""
    if threshold_ms is None:
        yield None
        return
    watcher = LoopStallWatcher(threshold_ms)
    watcher.start()
    try:
        yield watcher
    finally:
        watcher.stop()
