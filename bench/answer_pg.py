"""PostgreSQL for `bench.answer_path --backends postgresql`: a throwaway local server, one
database per bot, and the server's processes (their CPU is the bot's database's, not other
load on the machine)."""

from __future__ import annotations

import os
from pathlib import Path

import asyncpg

from bench.common import proc_cpu_seconds
from tests.pg_server import PgServer, find_bin_dir

__all__ = [
    "PgServer",
    "pg_answers",
    "pg_cpu_seconds",
    "pg_database",
    "pg_pids",
    "start_pg_server",
]

#: Over the test server's settings: a bot's server vacuums (every click updates its post's
#: row and the score counts; without autovacuum the dead rows pile up over a run) and has
#: more than the tests' 16 MB of shared buffers. fsync stays off, as SQLite's WAL with
#: synchronous=NORMAL does not sync a commit either. Autovacuum looks every second, not
#: every minute (issue 30): the bench's tables start empty and grow by a thousand rows a
#: second, and with the default naptime the planner worked from statistics of nearly
#: empty tables for most of a round, which cost a click 3-4x the server CPU it costs on a
#: database whose statistics are current, as a long-running one's are (docs/performance.md
#: section 14).
BENCH_SETTINGS = {"autovacuum": "on", "autovacuum_naptime": "1s", "shared_buffers": "128MB"}


def pg_pids(server: PgServer) -> list[int]:
    """The PostgreSQL server's processes: the postmaster and its children (a backend per
    connection, the writer, the WAL writer...), from /proc."""
    try:
        postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    found = [postmaster]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended
        if int(fields[1]) == postmaster:  # the field after the state is the parent's pid
            found.append(int(stat.parent.name))
    return found


def pg_cpu_seconds(server: PgServer) -> float:
    """CPU seconds the server has used so far: its running processes' own, plus what the
    postmaster's children that have already exited used (its cutime and cstime: an
    autovacuum worker lives a few seconds, and between two readings it would otherwise
    count as other load on the machine, not as the bot's database)."""
    pids = pg_pids(server)
    if not pids:
        return 0.0
    try:
        fields = Path(f"/proc/{pids[0]}/stat").read_text().rsplit(")", 1)[1].split()
        reaped = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        reaped = 0.0
    return reaped + sum(proc_cpu_seconds(pid) for pid in pids)


def start_pg_server() -> PgServer:
    """A throwaway PostgreSQL server for `--backends postgresql`."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("--backends postgresql: no PostgreSQL (initdb, pg_ctl) found")
    server = PgServer(bin_dir, settings=BENCH_SETTINGS)
    server.start()
    return server


def pg_database_name(name: str) -> str:
    return "bench_" + "".join(c if c.isalnum() else "_" for c in name)


async def pg_database(server: PgServer, name: str) -> str:
    """The URL of this bot's database on the server, created on first use (the bot
    applies the migrations itself when it starts)."""
    database = pg_database_name(name)
    conn = await asyncpg.connect(server.url())
    try:
        if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", database):
            await conn.execute(f'CREATE DATABASE "{database}"')
    finally:
        await conn.close()
    return server.url(database)


async def pg_answers(server: PgServer, name: str) -> int:
    conn = await asyncpg.connect(server.url(pg_database_name(name)))
    try:
        return int(await conn.fetchval("SELECT COUNT(*) FROM answers"))
    finally:
        await conn.close()
