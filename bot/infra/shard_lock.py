"""The seam for "one process per shard": a lock per Discord shard a process runs.

On SQLite only one process can run at all: the database's run lock (bot/infra/runlock.py)
already refuses a second one, so `NoShardLocks` claims nothing more. On PostgreSQL
(TPQUIZ_DATABASE_URL, a separate backend) several processes share the database, and
two of them running the same shard would both post each of its servers' daily
question; there each shard is a session-level advisory lock, claimed at start-up
before the gateway connects, and a second claimant refuses to start with one line
naming the shard and the holder (`ShardHeld.refusal`). That backend implements
`ShardLocks` with `advisory_key`; start-up calls `claim` with `shards_to_claim`.
"""

from __future__ import annotations

import os
import socket
from typing import Protocol

from bot.infra.shards import Ownership

#: First half of every shard's advisory-lock key (PostgreSQL's two-int4 form), so the
#: keys cannot collide with another application's locks on a shared server: "tpqs".
LOCK_NAMESPACE = 0x74707173


class ShardHeld(Exception):
    """Another process holds the lock of a shard this process was told to run."""

    def __init__(self, shard_id: int, shard_count: int, holder: str | None) -> None:
        self.shard_id = shard_id
        self.shard_count = shard_count
        self.holder = holder
        who = holder or "another process"
        super().__init__(f"shard {shard_id} of {shard_count} is already run by {who}")

    @property
    def refusal(self) -> str:
        """The one line `tpquiz run` prints before exiting."""
        return f"{self}: stop that process, or give this one other TPQUIZ_SHARDS"


class ShardCountMismatch(ShardHeld):
    """Another process runs with another TPQUIZ_SHARD_COUNT: the servers would be split
    two ways and overlap without any shard lock being asked for twice."""

    def __init__(self, shard_count: int, other_count: int, holder: str | None) -> None:
        Exception.__init__(
            self,
            f"another tpquiz process ({holder or 'unknown'}) runs with"
            f" TPQUIZ_SHARD_COUNT={other_count}, not {shard_count}",
        )
        self.shard_id = -1
        self.shard_count = shard_count
        self.holder = holder

    @property
    def refusal(self) -> str:
        return f"{self}: every process sharing the database must use the same count"


class ShardsLost(ShardHeld):
    """The locks were lost with their connection (a database restart), and by the time
    the database answered again another process had claimed what this one ran (`cause`
    says what): this one stops, since the other runs those shards now."""

    def __init__(self, cause: ShardHeld) -> None:
        Exception.__init__(
            self, f"lost the shard locks while PostgreSQL was unreachable, and {cause}"
        )
        self.shard_id = cause.shard_id
        self.shard_count = cause.shard_count
        self.holder = cause.holder

    @property
    def refusal(self) -> str:
        return f"{self}: this process stops and leaves its shards to that one"


class ShardLocks(Protocol):
    """Per-shard locks held for the life of the process (released when it dies)."""

    async def claim(self, shard_ids: tuple[int, ...], shard_count: int, holder: str) -> None:
        """Take every lock or none; `ShardHeld` names the first shard already held."""

    async def release(self) -> None:
        """Give the locks back (on a clean stop; a dead process loses them anyway)."""


class NoShardLocks:
    """SQLite: the run lock keeps the process alone; there is nothing more to claim."""

    async def claim(self, shard_ids: tuple[int, ...], shard_count: int, holder: str) -> None:
        return None

    async def release(self) -> None:
        return None


def shards_to_claim(ownership: Ownership) -> tuple[tuple[int, ...], int]:
    """(shard ids, shard count) this process must hold; an unsharded one holds 0 of 1."""
    if ownership.shard_count is None:
        return (0,), 1
    if ownership.shard_ids is None:
        return tuple(range(ownership.shard_count)), ownership.shard_count
    return tuple(sorted(ownership.shard_ids)), ownership.shard_count


def advisory_key(shard_id: int) -> tuple[int, int]:
    """The `pg_try_advisory_lock(int4, int4)` arguments of a shard's lock."""
    return LOCK_NAMESPACE, shard_id


def holder_name() -> str:
    """Who holds a lock, for the refusal: host and pid (stored beside the lock)."""
    return f"{socket.gethostname()} pid {os.getpid()}"
