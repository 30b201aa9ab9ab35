"""Which process runs which Discord shards, on a PostgreSQL shared by several processes.

On SQLite one process owns the file (bot/infra/runlock.py). On PostgreSQL any number of bot
processes share the database, each running a range of shards (issue 15); two processes
running the same shard would post every daily question twice and send every reminder
twice. So a process holds one PostgreSQL advisory lock per shard it runs, for as long as
it runs: session-level locks on one connection of its own, which PostgreSQL releases
when that connection ends, a crash or SIGKILL included, so a lock never outlives its
process. A second process claiming a shard already held refuses to start with one line
naming the shard and the holder (from pg_stat_activity: the holder sets its
application_name to "tpquiz <host> pid <pid>").

Processes with different shard counts would split the servers differently and overlap
without ever asking for the same shard. Each process therefore also holds a *shared*
lock on its shard count and refuses to start beside a process holding another count.

The locks live as long as their connection, so a PostgreSQL restart (or a failover, or
an administrator's pg_terminate_backend) drops them while the process runs on: its pool
reconnects by itself, and nothing would stop a second process from claiming the same
shards. So `PgShardLocks.watch` checks the lock connection every `WATCH_INTERVAL` s and,
once it is gone, claims the same locks again on a new connection every
`RECLAIM_INTERVAL` s until the server answers; if another process claimed one
meanwhile, it raises `ShardsLost` and `tpquiz run` stops with that one line.

Keys: advisory locks in the two-int form (class, object): class SHARD_CLASS with the
shard id as object (`bot.infra.shard_lock.advisory_key`), class COUNT_CLASS with the shard
count as object. `PgShardLocks` is the PostgreSQL side of the seam in bot/infra/shard_lock.py
(`NoShardLocks` is SQLite's); refusals are its `ShardHeld` / `ShardCountMismatch`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

import asyncpg

from bot.infra.config import DatabaseUrl
from bot.infra.fault_log import FaultLog
from bot.infra.shard_lock import LOCK_NAMESPACE, ShardCountMismatch, ShardHeld, ShardsLost

__all__ = ["COUNT_CLASS", "SHARD_CLASS", "PgShardLocks", "ShardLocks", "holders"]

log = logging.getLogger(__name__)

#: Seconds between two checks that the lock connection still answers.
WATCH_INTERVAL = 5.0
#: Seconds between two claims of the same locks while PostgreSQL does not answer.
RECLAIM_INTERVAL = 1.0
#: Seconds the check may wait for an answer before the connection counts as lost.
CHECK_TIMEOUT = 10.0
#: What a connection failing, or the server refusing it for now, raises.
CONNECTION_FAULTS: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.OperatorInterventionError,  # 57P01 shutting down, 57P03 starting up
    asyncpg.InsufficientResourcesError,  # 53300 too many connections
)

#: 'tpqs' and 'tpqc' as 31-bit integers: advisory lock classes no other program uses.
SHARD_CLASS = LOCK_NAMESPACE
COUNT_CLASS = 0x74707163


@dataclass(frozen=True)
class Holder:
    """A process holding one of tpquiz's advisory locks, as PostgreSQL reports it."""

    pid: int
    application: str
    client: str | None
    since: str

    def describe(self) -> str:
        where = f" from {self.client}" if self.client else ""
        name = self.application or "an unnamed client"
        return f"{name}{where} (server pid {self.pid}, connected since {self.since})"


def application_name() -> str:
    """How this process names itself to PostgreSQL (shown by a refused second process)."""
    return f"tpquiz {socket.gethostname()} pid {os.getpid()}"[:63]


_HOLDERS = (
    "SELECT l.objid::bigint AS object, a.pid, COALESCE(a.application_name, '') AS app,"
    " host(a.client_addr) AS client, to_char(a.backend_start, 'YYYY-MM-DD HH24:MI:SS TZ') AS since"
    " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
    " WHERE l.locktype = 'advisory' AND l.classid = $1::oid AND l.objsubid = 2 AND l.granted"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND a.pid <> pg_backend_pid()"
)


async def _holders(conn: asyncpg.Connection, lock_class: int) -> dict[int, Holder]:
    rows = await conn.fetch(_HOLDERS, lock_class)
    return {
        int(r["object"]): Holder(int(r["pid"]), str(r["app"]), r["client"], str(r["since"]))
        for r in rows
    }


async def holders(url: DatabaseUrl) -> tuple[dict[int, Holder], dict[int, Holder]]:
    """(shard id -> holder, shard count -> a holder) of the processes running now; for
    `tpquiz doctor`."""
    conn = await asyncpg.connect(url.dsn)
    try:
        return await _holders(conn, SHARD_CLASS), await _holders(conn, COUNT_CLASS)
    finally:
        await conn.close()


class ShardLocks:
    """The advisory locks of this process's shards, on a connection of their own."""

    def __init__(self, conn: asyncpg.Connection, shard_ids: tuple[int, ...], shard_count: int):
        self._conn = conn
        self._server_pid = conn.get_server_pid()
        self.shard_ids = shard_ids
        self.shard_count = shard_count

    @classmethod
    async def claim(
        cls, url: DatabaseUrl, shard_ids: Iterable[int], shard_count: int
    ) -> ShardLocks:
        """Take the locks of `shard_ids` (of `shard_count`), or raise ShardHeld naming
        the first shard held elsewhere and its holder (ShardCountMismatch for another
        count); nothing stays held then."""
        ids = tuple(sorted(set(shard_ids)))
        if shard_count < 1 or not ids or ids[0] < 0 or ids[-1] >= shard_count:
            raise ValueError(f"shards {ids} do not fit a shard count of {shard_count}")
        conn = await cls._connect_and_take(url, ids, shard_count)
        log.info("holding shards %s of %s on %s", _ranges(ids), shard_count, url.redacted)
        return cls(conn, ids, shard_count)

    @classmethod
    async def _connect_and_take(
        cls, url: DatabaseUrl, ids: tuple[int, ...], shard_count: int, stale: int | None = None
    ) -> asyncpg.Connection:
        conn = await asyncpg.connect(
            url.dsn, server_settings={"application_name": application_name()}
        )
        try:
            await cls._take(conn, ids, shard_count, stale)
        except BaseException:
            await conn.close()  # releases whatever was taken
            raise
        return conn

    async def check(self, timeout: float = CHECK_TIMEOUT) -> str | None:  # noqa: ASYNC109
        """None while the locks' connection answers; else why it does not (it is then
        closed here, so that `reclaim` starts afresh)."""
        if self._conn.is_closed():
            return "the connection closed"
        try:
            await asyncio.wait_for(self._conn.fetchval("SELECT 1"), timeout)
        except CONNECTION_FAULTS as exc:
            self._conn.terminate()
            return str(exc) or type(exc).__name__
        return None

    async def reclaim(self, url: DatabaseUrl) -> None:
        """Take the same locks again on a new connection, the old one being lost.

        Raises ShardHeld when another process holds one now (nothing stays held), and a
        connection fault while the server does not answer. A session of the old
        connection that the server still keeps (a network cut rather than a restart)
        holds the locks too: it is recognised by its server pid and our application
        name, and ended (`_take`).
        """
        stale = self._server_pid
        self._conn.terminate()
        self._conn = await self._connect_and_take(url, self.shard_ids, self.shard_count, stale)
        self._server_pid = self._conn.get_server_pid()

    @staticmethod
    async def _take(
        conn: asyncpg.Connection, ids: tuple[int, ...], shard_count: int, stale: int | None = None
    ) -> None:
        # The count first, then the check: of two processes with different counts
        # starting together, at least one sees the other (both refusing is safe).
        await conn.execute(
            "SELECT pg_advisory_lock_shared($1::int, $2::int)", COUNT_CLASS, shard_count
        )
        counts = await _holders(conn, COUNT_CLASS)
        other = {count: h for count, h in counts.items() if count != shard_count}
        if other:
            count, holder = min(other.items())
            raise ShardCountMismatch(shard_count, count, holder.describe())
        for shard in ids:
            got = await conn.fetchval(
                "SELECT pg_try_advisory_lock($1::int, $2::int)", SHARD_CLASS, shard
            )
            if not got:
                taken = (await _holders(conn, SHARD_CLASS)).get(shard)
                if taken is not None and stale == taken.pid and _ours(taken):
                    # Our own lost session: end it (waiting up to 5 s), then try again.
                    await conn.execute("SELECT pg_terminate_backend($1, 5000)", stale)
                    got = await conn.fetchval(
                        "SELECT pg_try_advisory_lock($1::int, $2::int)", SHARD_CLASS, shard
                    )
                    if got:
                        continue
                    taken = (await _holders(conn, SHARD_CLASS)).get(shard)
                raise ShardHeld(shard, shard_count, taken.describe() if taken else None)

    @property
    def alive(self) -> bool:
        """Whether the locks are still held (their connection is open)."""
        return not self._conn.is_closed()

    async def release(self) -> None:
        if not self._conn.is_closed():
            await self._conn.close()


class PgShardLocks:
    """`bot.infra.shard_lock.ShardLocks` on PostgreSQL: what `tpquiz run` claims at start-up."""

    def __init__(self, url: DatabaseUrl) -> None:
        self.url = url
        self._held: ShardLocks | None = None

    async def claim(self, shard_ids: tuple[int, ...], shard_count: int, holder: str) -> None:
        # `holder` is how the seam names this process; PostgreSQL shows it as the lock
        # connection's application_name (`application_name()` carries the same host and pid).
        self._held = await ShardLocks.claim(self.url, shard_ids, shard_count)

    async def release(self) -> None:
        if self._held is not None:
            await self._held.release()
            self._held = None

    async def watch(
        self,
        *,
        interval: float | None = None,
        retry: float | None = None,
        pause: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        """Keep the claimed locks held while the process runs (see the module docstring).

        Runs until cancelled; raises `ShardsLost` when the locks were lost and another
        process holds one of them by the time PostgreSQL answers again. `interval` and
        `retry` default to `WATCH_INTERVAL` and `RECLAIM_INTERVAL`; every wait goes
        through `pause`, so a test decides when the next check runs.
        """
        held = self._held
        if held is None:
            raise RuntimeError("watch() before claim()")
        faults = FaultLog(
            log,
            "shards %s of %s: the PostgreSQL connection holding their locks is lost (%s);"
            " claiming them again once the server answers",
            "shards %s of %s: their locks are held again",
            _ranges(held.shard_ids),
            held.shard_count,
        )
        while True:
            await pause(WATCH_INTERVAL if interval is None else interval)
            lost = await held.check()
            if lost is None:
                continue
            faults.failed(self.url.scrub(lost))
            while True:
                try:
                    await held.reclaim(self.url)
                except ShardHeld as exc:
                    raise ShardsLost(exc) from None
                except (*CONNECTION_FAULTS, asyncpg.PostgresError) as exc:
                    # Anything else the server says now (a database being recreated, a
                    # login refused during a failover) is retried as well: dying would
                    # leave the shards to whoever asks next.
                    faults.failed(self.url.scrub(str(exc) or type(exc).__name__))
                    await pause(RECLAIM_INTERVAL if retry is None else retry)
                    continue
                faults.worked()
                break


def _ours(holder: Holder) -> bool:
    """Whether a lock's holder is a session of this very process (named by it)."""
    return holder.application == application_name()


def _ranges(ids: tuple[int, ...]) -> str:
    """0,1,2,5 -> '0-2,5' for the log."""
    parts: list[str] = []
    start = prev = ids[0]
    for shard in (*ids[1:], None):
        if shard is not None and shard == prev + 1:
            prev = shard
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if shard is not None:
            start = prev = shard
    return ",".join(parts)
