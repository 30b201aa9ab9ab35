"""Writes that cannot be saved (issue 10, items 2 and 6), on real SQLite files.

Each fault is a real one: the file deleted or replaced under the open connection, a
database grown to `max_page_count` (SQLite's own SQLITE_FULL), another connection
holding the write lock past the busy timeout, and a full file system at COMMIT (a tiny
tmpfs, skipped without root). Every time: `WriteFailed` with one line, nothing of the
transaction saved, the connection usable again once the fault is gone.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

import pytest

from bot.storage.errors import WriteFailed
from bot.storage.sqlite import Storage
from bot.storage.sqlite.db import Database
from tests.factories import make_bank
from tests.mounts import fill, tmpfs

GUILD = 111
Q = make_bank()["mlp-split-01"]


@pytest.fixture
async def storage(tmp_path: Path):
    s = await Storage.open(tmp_path / "quiz.sqlite3")
    yield s
    await s.close()


async def _answer(storage: Storage, post_id: int, user: int) -> None:
    await storage.answers.record(
        guild_id=GUILD, user_id=user, name=f"u{user}", question=Q, choice_index=1,
        now_ms=2_000, post_id=post_id,
    )  # fmt: skip


async def _post(storage: Storage) -> int:
    post = await storage.posts.create(
        guild_id=GUILD, channel_id=5, question_id=Q.id, order=(0, 1, 2, 3), language="en",
        now_ms=1_000,
    )  # fmt: skip
    return post.id


def _answers(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        count = int(conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0])
    conn.close()
    return count


# -- item 2: the file deleted or replaced while the bot runs ------------------------------


@pytest.mark.parametrize("how", ["deleted", "replaced by another file"])
async def test_a_lost_database_file_refuses_every_write_and_says_so_once(
    storage: Storage, tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = storage.db.path
    post = await _post(storage)
    await _answer(storage, post, 1)
    assert storage.db.last_write_at is not None and storage.db.fault is None
    if how == "deleted":
        path.unlink()
    else:  # e.g. a restore that did not stop the bot: a new file renamed over the path
        other = tmp_path / "other.sqlite3"
        fresh = await Storage.open(other)
        await fresh.close()
        os.replace(other, path)
    sentence = (
        f"the database file {path} was {how} while the bot was running: answers are no "
        "longer saved; stop the bot, put the database back (tpquiz restore BACKUP) and "
        "start it again"
    )
    caplog.set_level(logging.WARNING)
    for user in (2, 3):  # the answer path (one trip) and a plain transaction
        with pytest.raises(WriteFailed) as raised:
            await _answer(storage, post, user)
        assert raised.value.reason == sentence
        with pytest.raises(WriteFailed):
            await storage.meta.set("k", "v")
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in errors] == [sentence]
    assert storage.db.fault == sentence
    # The heartbeat reads this: no write survives in the file at the path.
    assert storage.db.last_write_at is None


async def test_the_same_file_renamed_back_is_still_the_same_file(
    storage: Storage, tmp_path: Path
) -> None:
    """A hard link or a rename and back keeps the inode: nothing was lost."""
    path = storage.db.path
    aside = tmp_path / "aside.sqlite3"
    os.rename(path, aside)
    os.rename(aside, path)
    await storage.meta.set("k", "v")
    assert storage.db.fault is None


# -- item 6: a write that cannot commit ---------------------------------------------------


async def test_a_database_at_its_size_limit_fails_the_answer_and_keeps_working(
    storage: Storage,
) -> None:
    post = await _post(storage)
    await _answer(storage, post, 1)
    conn = storage.db.conn
    pages = (await (await conn.execute("PRAGMA page_count")).fetchone())[0]
    await conn.execute(f"PRAGMA max_page_count = {pages}")
    big = "x" * 100_000  # needs new pages: SQLITE_FULL inside the transaction
    with pytest.raises(WriteFailed) as raised:
        await storage.meta.set("big", big)
    assert raised.value.reason == "database or disk is full (SQLITE_FULL)"
    assert not conn.in_transaction
    await conn.execute(f"PRAGMA max_page_count = {pages * 100}")
    await storage.meta.set("big", big)  # the connection is fine once there is room
    assert await storage.meta.get("big") == big


async def test_a_lock_held_past_the_busy_timeout_fails_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "quiz.sqlite3"
    storage = Storage(await Database.open(path, busy_timeout_ms=50))
    try:
        post = await _post(storage)
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # as `tpquiz backup` or another program would
        try:
            with pytest.raises(WriteFailed) as raised:
                await _answer(storage, post, 1)
            assert raised.value.reason == "database is locked (SQLITE_BUSY)"
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert _answers(path) == 0
        await _answer(storage, post, 1)  # the same click, once the lock is gone
        assert _answers(path) == 1
    finally:
        await storage.close()


async def test_a_full_disk_at_commit_saves_nothing_and_recovers(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "small", size_kib=1024) as mount:
        path = mount / "quiz.sqlite3"
        storage = await Storage.open(path)
        try:
            post = await _post(storage)
            await _answer(storage, post, 1)
            filler = fill(mount)
            reasons = set()
            for user in range(2, 6):  # the WAL grows at COMMIT, into no room
                with pytest.raises(WriteFailed) as raised:
                    await _answer(storage, post, user)
                reasons.add(raised.value.reason.split(" (")[1])
                assert not storage.db.conn.in_transaction
            assert reasons <= {"SQLITE_FULL)", "SQLITE_IOERR_WRITE)"}, reasons
            filler.unlink()
            await _answer(storage, post, 6)
            assert _answers(path) == 2  # the first answer and the one after the fault
        finally:
            await storage.close()


async def test_a_failed_commit_never_leaves_a_transaction_open(storage: Storage) -> None:
    """COMMIT refused (here by an authorizer, a programming error rather than a storage
    fault, so it is raised as it is): the transaction is rolled back, not left open, on
    the aiosqlite connection and on the database's own (`run_transaction`)."""

    def deny_commit(action: int, arg1: str | None, *_: object) -> int:
        if action == sqlite3.SQLITE_TRANSACTION and arg1 == "COMMIT":
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    await storage.db.conn.set_authorizer(deny_commit)
    with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
        await storage.meta.set("k", "v")
    assert not storage.db.conn.in_transaction
    await storage.db.conn.set_authorizer(None)
    await storage.meta.set("k2", "v2")
    assert await storage.meta.get("k") is None and await storage.meta.get("k2") == "v2"

    await storage.db.call(lambda conn: conn.set_authorizer(deny_commit))
    with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
        await storage.db.run_transaction(
            lambda conn: conn.execute("INSERT INTO meta (key, value) VALUES ('k3', 'v')")
        )
    assert not await storage.db.call(lambda conn: conn.in_transaction)
    await storage.db.call(lambda conn: conn.set_authorizer(None))
    await storage.db.run_transaction(
        lambda conn: conn.execute("INSERT INTO meta (key, value) VALUES ('k4', 'v')")
    )
    assert await storage.meta.get("k3") is None and await storage.meta.get("k4") == "v"
