"""`tpquiz run` with TPQUIZ_DATABASE_URL: the shard locks are claimed before anything else.

A real `python -m bot run` process against the session's PostgreSQL, while the test holds
the lock of shard 0 of 1 (what a running unsharded process holds, bot/infra/shard_lock.py
`shards_to_claim`): the second process must refuse in one line naming the holder and
exit 2, having created nothing.
"""

from __future__ import annotations

import asyncio
from functools import partialmethod
from pathlib import Path

import pytest

from bot.infra.config import DatabaseUrl
from bot.infra.shard_lock import ShardsLost
from bot.storage.pg.db import PgDatabase, pg_migrations
from bot.storage.pg.shard_locks import PgShardLocks, application_name
from tests.pg_server import PgServer
from tests.test_cli import FAKE_TOKEN, ROOT, tpquiz


def _run(tmp_path: Path, url: str, **env: str):
    return tpquiz(
        "run",
        cwd=tmp_path,
        DISCORD_TOKEN=FAKE_TOKEN,
        TPQUIZ_DATABASE_URL=url,
        TPQUIZ_DB=str(tmp_path / "data" / "quiz.sqlite3"),
        PYTHONPATH=str(ROOT),
        **env,
    )


async def test_a_second_process_on_the_same_shard_is_refused_in_one_line(
    tmp_path: Path, pg_url: str
) -> None:
    running = PgShardLocks(DatabaseUrl(pg_url))
    await running.claim((0,), 1, "the first process")
    try:
        result = _run(tmp_path, pg_url)
    finally:
        await running.release()
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[-1].startswith(f"tpquiz: shard 0 of 1 is already run by {application_name()}")
    assert lines[-1].endswith(": stop that process, or give this one other TPQUIZ_SHARDS")
    assert DatabaseUrl(pg_url).password not in result.stderr + result.stdout
    # Refused before migrating: the database is still empty.
    db = await PgDatabase.open(pg_url, migrate=False)
    try:
        assert await db.schema_version() == 0
    finally:
        await db.close()


async def test_another_shard_count_is_refused_too(tmp_path: Path, pg_url: str) -> None:
    running = PgShardLocks(DatabaseUrl(pg_url))
    await running.claim((0, 1), 4, "the first process")
    try:
        result = _run(tmp_path, pg_url, TPQUIZ_SHARD_COUNT="2", TPQUIZ_SHARDS="1")
    finally:
        await running.release()
    assert result.returncode == 2, result.stderr
    last = result.stderr.splitlines()[-1]
    assert "runs with TPQUIZ_SHARD_COUNT=4, not 2" in last
    assert last.endswith("every process sharing the database must use the same count")


async def test_the_locks_are_held_while_serving_and_given_back_after(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_run_on_storage` on PostgreSQL (`open_for_run`'s shard claims) with `_serve`
    (Discord) replaced: shards 1 and 3 of 4 are held while it serves, on a migrated
    database, and free again once it returns, also when serving fails."""
    from bot.cli import main as cli
    from bot.infra.config import Settings
    from bot.storage.pg.shard_locks import holders

    url = DatabaseUrl(pg_url)
    seen: list[tuple[list[int], int]] = []

    async def serve(settings, token, bank, templates, storage, **_) -> None:  # type: ignore[no-untyped-def]
        shards, _ = await holders(url)
        seen.append((sorted(shards), await storage.db.schema_version()))
        await storage.close()
        if len(seen) == 2:
            raise RuntimeError("Discord went away")

    monkeypatch.setattr(cli, "_serve", serve)
    settings = Settings(database_url=url, shard_count=4, shard_ids=(1, 3))
    await cli._run_on_storage(settings, "token", None, None, None)  # type: ignore[arg-type]
    assert await holders(url) == ({}, {})
    with pytest.raises(RuntimeError):
        await cli._run_on_storage(settings, "token", None, None, None)  # type: ignore[arg-type]
    assert await holders(url) == ({}, {})
    newest = len(pg_migrations())
    assert seen == [([1, 3], newest), ([1, 3], newest)]


async def test_shards_taken_during_a_database_restart_stop_the_running_bot(
    own_pg_server: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31, defect 2, as `tpquiz run` wires it: the shard locks' watch runs beside
    the bot, and when another process claimed the shard while PostgreSQL restarted, the
    bot is closed (as by SIGTERM) and `_run_on_storage` raises `ShardsLost`, whose one
    line `tpquiz run` prints (exit 2, as for any `ShardHeld`)."""
    from bot.cli import main as cli
    from bot.infra.config import Settings
    from bot.storage.pg.shard_locks import ShardLocks, holders

    url = DatabaseUrl(own_pg_server.url())
    gate, serving, closed = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def gated(_: float) -> None:
        await gate.wait()

    monkeypatch.setattr(PgShardLocks, "watch", partialmethod(PgShardLocks.watch, pause=gated))

    async def serve(settings, token, bank, templates, storage, *, stop_on) -> None:  # type: ignore[no-untyped-def]
        serving.set()
        await asyncio.wait({stop_on})  # the bot runs until closed (cli._serve closes it)
        closed.set()
        await storage.close()

    monkeypatch.setattr(cli, "_serve", serve)
    settings = Settings(database_url=url)
    run = asyncio.create_task(cli._run_on_storage(settings, "token", None, None, None))  # type: ignore[arg-type]
    other = None
    try:
        await asyncio.wait_for(serving.wait(), 60)
        own_pg_server.restart()
        other = await ShardLocks.claim(url, [0], 1)
        gate.set()
        with pytest.raises(ShardsLost, match="^lost the shard locks while PostgreSQL"):
            await asyncio.wait_for(run, 60)
        assert closed.is_set()
        shards, _ = await holders(url)
        assert shards[0].pid == other._conn.get_server_pid()
    finally:
        run.cancel()
        await asyncio.gather(run, return_exceptions=True)
        if other is not None:
            await other.release()
