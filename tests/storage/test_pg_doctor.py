"""`tpquiz doctor`'s PostgreSQL check (bot/storage/pg/doctor.py, run by bot/cli/doctor.py)
against the session's server."""

from __future__ import annotations

import re
from pathlib import Path

from bot.cli.doctor import run_doctor
from bot.infra.config import DatabaseUrl, Settings
from bot.storage.pg.db import PgDatabase, pg_migrations
from bot.storage.pg.doctor import check_postgres
from bot.storage.pg.shard_locks import PgShardLocks, application_name
from tests.pg_server import PgServer


def _settings(url: str) -> Settings:
    return Settings(database_url=DatabaseUrl(url), db_path=Path(":memory:"))


async def test_no_url_no_check() -> None:
    assert await check_postgres(Settings()) == []


async def test_an_empty_database_answers_and_run_is_not_ready(
    pg_url: str, pg_server: PgServer
) -> None:
    checks = await check_postgres(_settings(pg_url))
    lines = [str(c) for c in checks]
    assert re.fullmatch(
        r"ok   postgres: postgresql://tpquiz:\*\*\*@127\.0\.0\.1:\d+/t_\w+ answers"
        r" \(PostgreSQL \d+\.\d+\), empty \(no tpquiz schema yet\)",
        lines[0],
    ), lines[0]
    assert lines[-1] == ("ok   shards: no tpquiz process holds a shard lock (none is running)")
    assert all(pg_server.password not in line for line in lines)
    db = await PgDatabase.open(pg_url)
    await db.close()
    checks = await check_postgres(_settings(pg_url))
    newest = len(pg_migrations())
    assert str(checks[0]).endswith(f", at schema {newest}/{newest}")


async def test_a_refused_login_fails_without_the_password(pg_server: PgServer) -> None:
    url = pg_server.url().replace(pg_server.password, "hunter2-wrong")
    checks = await run_doctor(_settings(url), offline=True)
    postgres = [str(c) for c in checks if c.name == "postgres"]
    assert len(postgres) == 1
    assert postgres[0].startswith(
        "FAIL postgres: cannot connect to PostgreSQL at postgresql://tpquiz:***@127.0.0.1:"
    )
    assert all("hunter2-wrong" not in str(c) and pg_server.password not in str(c) for c in checks)


async def test_an_unreachable_server_is_one_line() -> None:
    checks = await check_postgres(_settings("postgresql://u:pw-9@127.0.0.1:1/d"))
    assert [c.status for c in checks] == ["FAIL"]
    assert str(checks[0]).startswith(
        "FAIL postgres: cannot connect to PostgreSQL at postgresql://u:***@127.0.0.1:1/d ("
    )
    assert "pw-9" not in str(checks[0])


async def test_each_held_shard_lock_is_shown_with_its_holder(pg_url: str) -> None:
    settings = _settings(pg_url)
    first, second = PgShardLocks(DatabaseUrl(pg_url)), PgShardLocks(DatabaseUrl(pg_url))
    await first.claim((0, 1), 4, "first")
    await second.claim((3,), 4, "second")
    try:
        checks = [str(c) for c in await check_postgres(settings) if c.name == "shards"]
    finally:
        await first.release()
        await second.release()
    assert len(checks) == 3
    for line, shard in zip(checks, (0, 1, 3), strict=True):
        assert line.startswith(f"ok   shards: shard {shard} of 4 is run by {application_name()}")
        assert "(server pid " in line
    after = [str(c) for c in await check_postgres(settings) if c.name == "shards"]
    assert after == ["ok   shards: no tpquiz process holds a shard lock (none is running)"]
