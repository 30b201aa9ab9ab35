"""Wait for a quiet machine before a bench round, and tell when other load disturbed one.

The benches run on a 2-core machine shared with other work. A CPU-bound bot loses more
to a neighbour than a lock-bound one, so a round run next to someone's test suite moves
the tpquiz/bare ratio by itself. Instead of hoping, the bench measures: the machine's
busy CPU time (/proc/stat) minus the CPU time of the bench's own processes is "other
load". Before a round, `wait_quiet` waits (bounded) until that stays low; during a load,
`OtherLoad` says how many cores something else used, and the round is marked disturbed
when that exceeds `DISTURBED_CORES`. Nothing is hidden: disturbed rounds are counted in
the table, and used when no clean round exists.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

#: Other load (in cores) above which a load is counted as disturbed.
DISTURBED_CORES = 0.15
#: Other load (in cores) below which the machine counts as quiet before a round.
QUIET_CORES = 0.10


def machine_busy_seconds(stat_text: str | None = None) -> float:
    """Busy CPU seconds of all cores since boot (user+nice+system+irq+softirq+steal)."""
    if stat_text is None:
        stat_text = Path("/proc/stat").read_text()
    first = stat_text.split("\n", 1)[0].split()
    if first[0] != "cpu":
        raise ValueError("/proc/stat does not start with the cpu line")
    values = [int(v) for v in first[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = values
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def other_cores(machine_busy_s: float, ours_s: float, wall_s: float) -> float:
    """Cores used by everything else over a window: (machine busy - ours) / wall."""
    if wall_s <= 0:
        return 0.0
    return max(0.0, machine_busy_s - ours_s) / wall_s


@dataclass
class OtherLoad:
    """A window over which other load is measured; `ours` gives our processes' CPU s."""

    ours: Callable[[], float]
    machine0: float = 0.0
    ours0: float = 0.0
    wall0: float = 0.0

    def start(self) -> OtherLoad:
        self.machine0, self.ours0, self.wall0 = (
            machine_busy_seconds(),
            self.ours(),
            time.perf_counter(),
        )
        return self

    def cores(self) -> float:
        """Other load in cores since `start()`."""
        return other_cores(
            machine_busy_seconds() - self.machine0,
            self.ours() - self.ours0,
            time.perf_counter() - self.wall0,
        )


def cpu_of(pids: Iterable[int]) -> float:
    """User+system CPU seconds of these processes (all threads), 0 for a gone one, plus
    this process's own."""
    from bench.common import proc_cpu_seconds

    return sum(proc_cpu_seconds(pid) for pid in pids) + time.process_time()


async def wait_quiet(
    ours: Callable[[], float],
    *,
    max_wait: float = 60.0,
    sample: float = 1.0,
    quiet_samples: int = 2,
    threshold: float = QUIET_CORES,
) -> tuple[float, float]:
    """Wait until other load stays under `threshold` cores for `quiet_samples` samples
    in a row, at most `max_wait` seconds; returns (seconds waited, last other load)."""
    started = time.perf_counter()
    in_a_row = 0
    last = 0.0
    while True:
        window = OtherLoad(ours).start()
        await asyncio.sleep(sample)
        last = window.cores()
        in_a_row = in_a_row + 1 if last < threshold else 0
        waited = time.perf_counter() - started
        if in_a_row >= quiet_samples or waited >= max_wait:
            return waited, last
