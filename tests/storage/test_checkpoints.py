"""The WAL's checkpoints run off the click path (bot/storage/sqlite/checkpoints.py): the
writers' own automatic checkpoint is only a safety net, a passive checkpoint on the
checkpointer's connection copies what was committed, the loop checkpoints only after a
commit, and a failing checkpoint is logged once and takes nothing down."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest

from bot.storage.sqlite import checkpoints
from bot.storage.sqlite.checkpoints import SAFETY_NET_PAGES
from bot.storage.sqlite.db import Database


async def _write(db: Database, rows: int) -> None:
    def work(conn: sqlite3.Connection) -> None:
        for i in range(rows):
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (f"k{i}", "v" * 200)
            )

    await db.run_transaction(work)


async def test_the_writers_checkpoint_only_as_a_safety_net(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "t.sqlite3")
    try:
        assert db.checkpointer is not None
        async with db.conn.execute("PRAGMA wal_autocheckpoint") as cur:
            assert (await cur.fetchone())[0] == SAFETY_NET_PAGES
        pages = await db.call(lambda conn: conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
        assert pages == SAFETY_NET_PAGES
    finally:
        await db.close()


async def test_a_passive_checkpoint_copies_what_was_committed(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "t.sqlite3")
    try:
        assert db.checkpointer is not None
        await _write(db, 200)
        done = await db.checkpointer.checkpoint()
        assert done is not None
        in_log, copied = done
        assert in_log > 0 and copied == in_log
    finally:
        await db.close()
    # Everything is in the file once closed: it reads back without its -wal.
    with sqlite3.connect(tmp_path / "t.sqlite3") as conn:
        assert conn.execute("SELECT COUNT(*) FROM meta WHERE key LIKE 'k%'").fetchone()[0] == 200


async def test_the_loop_checkpoints_after_a_commit_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "INTERVAL_SECONDS", 0.01)
    db = await Database.open(tmp_path / "t.sqlite3")
    try:
        checkpointer = db.checkpointer
        assert checkpointer is not None
        ran = asyncio.Event()
        real = checkpointer.checkpoint

        async def seen() -> tuple[int, int] | None:
            done = await real()
            ran.set()
            return done

        checkpointer.checkpoint = seen  # type: ignore[method-assign]
        await _write(db, 50)
        async with asyncio.timeout(10):
            await ran.wait()
        ran.clear()
        # Idle: twenty intervals pass and no checkpoint runs.
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await ran.wait()
    finally:
        await db.close()


async def test_a_failing_checkpoint_is_logged_once_and_writes_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = await Database.open(tmp_path / "t.sqlite3")
    try:
        checkpointer = db.checkpointer
        assert checkpointer is not None

        def full() -> tuple[int, int, int]:
            raise sqlite3.OperationalError("database or disk is full")

        real = checkpointer._passive
        checkpointer._passive = full  # type: ignore[method-assign]
        caplog.set_level(logging.INFO, logger="bot.storage.sqlite.checkpoints")
        assert await checkpointer.checkpoint() is None
        assert await checkpointer.checkpoint() is None
        await _write(db, 10)  # the clicks' commits are not affected
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1 and "disk is full" in warnings[0].getMessage()
        checkpointer._passive = real  # type: ignore[method-assign]
        assert await checkpointer.checkpoint() is not None
        assert any("work again" in r.getMessage() for r in caplog.records)
    finally:
        await db.close()


async def test_no_checkpointer_for_memory_or_read_only(tmp_path: Path) -> None:
    memory = await Database.open(":memory:")
    try:
        assert memory.checkpointer is None
    finally:
        await memory.close()
    path = tmp_path / "t.sqlite3"
    await (await Database.open(path)).close()
    readonly = await Database.open(path, readonly=True)
    try:
        assert readonly.checkpointer is None
    finally:
        await readonly.close()
