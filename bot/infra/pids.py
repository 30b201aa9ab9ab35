"""Whether a pid written by another process still names a live process here.

`tpquiz health` reads the pid the bot wrote into its heartbeat. A pid means something only
on the host and in the pid namespace where it was written (the bot in a container is a
small pid there and another number, or nothing, on the host), so the heartbeat carries
both (`process_origin`) and the pid is checked (`pid_alive`) only where they match.
"""

from __future__ import annotations

import os
import socket

__all__ = ["pid_alive", "process_origin"]


def process_origin() -> tuple[str, str | None]:
    """This process's host name and pid namespace (Linux), written beside its pid.

    A pid names a process only on one host and in one pid namespace: the bot in a
    container is pid 7 there and some other number (or nothing) on the host. `tpquiz
    health` checks the pid only when it runs where the heartbeat was written.
    """
    try:
        namespace: str | None = os.readlink("/proc/self/ns/pid")
    except OSError:  # not Linux, or /proc not mounted
        namespace = None
    return socket.gethostname(), namespace


def pid_alive(pid: int) -> bool:
    """Whether a process `pid` exists here (signal 0 checks without sending anything).

    EPERM means it exists but belongs to another user (the bot's service user, when an
    admin runs health as themselves): alive. A pid that is not a valid one counts as
    alive too, so that only a certain "no such process" makes the bot unhealthy.
    """
    if pid <= 0:  # 0 and negatives address process groups, not a process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # PermissionError among them
        return True
    return True
