"""`Database.run_transaction`: one trip to the database thread per transaction.

The work runs on the database's own plain sqlite3 connection and thread, beside the
aiosqlite connection the stores use; one write lock serialises both.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.storage.sqlite import Storage


@pytest.fixture
async def storage(tmp_path: Path):
    s = await Storage.open(tmp_path / "db.sqlite3")
    yield s
    await s.close()


def _count(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM meta").fetchone()[0])


async def test_commits_and_returns_what_the_work_returns(storage: Storage) -> None:
    durations: list[float] = []
    storage.db.on_commit = durations.append

    def work(conn: sqlite3.Connection) -> str:
        conn.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
        return "done"

    assert await storage.db.run_transaction(work) == "done"
    assert _count(storage.db.path) == 1  # visible to another connection: committed
    assert len(durations) == 1 and storage.db.last_write_at is not None


async def test_an_exception_rolls_back_and_is_raised(storage: Storage) -> None:
    def work(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
        raise LookupError("boom")

    with pytest.raises(LookupError, match="boom"):
        await storage.db.run_transaction(work)
    assert _count(storage.db.path) == 0
    # The connection is usable afterwards (no transaction left open).
    await storage.meta.set("b", "2")
    assert await storage.meta.get("b") == "2"


async def test_it_never_interleaves_with_a_multi_statement_transaction(storage: Storage) -> None:
    """A `transaction()` awaiting between statements holds the write lock; a concurrent
    `run_transaction` waits for it instead of failing with 'transaction within a transaction'."""
    inside = asyncio.Event()
    release = asyncio.Event()

    async def slow() -> None:
        async with storage.db.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('slow', '1')")
            inside.set()
            await release.wait()

    def fast(conn: sqlite3.Connection) -> int:
        conn.execute("INSERT INTO meta (key, value) VALUES ('fast', '1')")
        return int(conn.execute("SELECT COUNT(*) FROM meta").fetchone()[0])

    slow_task = asyncio.create_task(slow())
    await inside.wait()
    fast_task = asyncio.create_task(storage.db.run_transaction(fast))
    await asyncio.sleep(0)  # let it reach the lock (no timing involved: it must wait)
    assert not fast_task.done()
    release.set()
    await slow_task
    assert await fast_task == 2
