"""`tpquiz health` and `tpquiz doctor` on PostgreSQL judge PostgreSQL (issue 31, defect 1).

With TPQUIZ_DATABASE_URL set there is no SQLite file, so neither command may look for
one: the replicas of deploy/docker-compose.postgres.yml were "unhealthy: the database
file data/tpquiz.sqlite3 was deleted" however well they ran. The heartbeat here is
written by the health cog itself over a real PostgreSQL storage (its probe commits to
the session's server), then judged by the real command in a subprocess.
"""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.infra.config import DatabaseUrl, Settings
from bot.runtime.bot import TPQuizBot
from bot.runtime.compose import build_bot
from bot.storage.pg.storage import PgStorage
from cogs import health as health_cog
from tests.factories import make_bank
from tests.test_cli import FAKE_TOKEN, tpquiz


@pytest.fixture
async def pg_bot(tmp_path: Path, pg_url: str) -> AsyncIterator[TPQuizBot]:
    """A bot on PostgreSQL whose TPQUIZ_DB is the default, data/tpquiz.sqlite3 under
    tmp_path (where `tpquiz health` run in tmp_path looks), and no such file exists."""
    storage = await PgStorage.open(pg_url)
    settings = Settings(
        database_url=DatabaseUrl(pg_url), db_path=tmp_path / "data" / "tpquiz.sqlite3"
    )
    bot = build_bot(
        settings=settings,
        storage=storage,  # type: ignore[arg-type]
        bank=make_bank(),
        rng=random.Random(0),
    )
    try:
        yield bot
    finally:
        await bot.close()
        await storage.close()


def _health(tmp_path: Path, pg_url: str, **env: str) -> tuple[int, str]:
    result = tpquiz("health", cwd=tmp_path, TPQUIZ_DATABASE_URL=pg_url, **env)
    assert result.stderr == "" and result.stdout.count("\n") == 1, result
    return result.returncode, result.stdout


async def test_a_fresh_heartbeat_on_postgresql_is_healthy_and_a_stale_one_is_not(
    pg_bot: TPQuizBot, tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(health_cog, "gateway_connected", lambda bot: True)
    cog = health_cog.HealthCog(pg_bot)  # not loaded: no background loop racing the test
    assert cog.path == tmp_path / "data" / "tpquiz.sqlite3.heartbeat.json"
    beat = await cog.tick()
    assert beat.db_write_at is not None  # the probe committed on the PostgreSQL server
    assert beat.db_write_at == pg_bot.storage.db.last_write_at
    assert not (tmp_path / "data" / "tpquiz.sqlite3").exists()
    code, line = _health(tmp_path, pg_url)
    assert code == 0, line
    assert line.startswith("healthy: gateway ") and ", database write " in line
    assert "tpquiz.sqlite3" not in line

    await cog.tick(now=time.time() - 3600)  # the bot stopped writing an hour ago
    code, line = _health(tmp_path, pg_url)
    assert code == 1
    assert line.startswith("unhealthy: heartbeat is 1.0 h old (limit 120 s)"), line


async def test_health_reads_tpquiz_heartbeat_as_the_compose_file_sets_it(
    pg_bot: TPQuizBot, tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """deploy/docker-compose.postgres.yml: a read-only container, the heartbeat in /tmp."""
    heartbeat = tmp_path / "tmp" / "tpquiz.heartbeat.json"
    monkeypatch.setattr(health_cog, "gateway_connected", lambda bot: True)
    pg_bot.settings = Settings(database_url=DatabaseUrl(pg_url), heartbeat_path=heartbeat)
    cog = health_cog.HealthCog(pg_bot)
    assert cog.path == heartbeat
    await cog.tick()
    code, line = _health(tmp_path, pg_url, TPQUIZ_HEARTBEAT=str(heartbeat))
    assert code == 0 and line.startswith("healthy: "), line
    await cog.tick(now=time.time() - 600)
    code, line = _health(tmp_path, pg_url, TPQUIZ_HEARTBEAT=str(heartbeat))
    assert code == 1 and line.startswith("unhealthy: heartbeat is 10 min old"), line


async def test_doctor_on_postgresql_checks_postgresql_not_the_sqlite_path(
    tmp_path: Path, pg_url: str
) -> None:
    """Where TPQUIZ_DB could not even be created (here `data` is a file; in the compose
    file the root file system is read-only), doctor on PostgreSQL still passes."""
    db = await PgStorage.open(pg_url)  # migrated, as after the first `tpquiz run`
    await db.close()
    (tmp_path / "data").write_text("not a directory\n")
    heartbeat = tmp_path / "tmp" / "tpquiz.heartbeat.json"
    result = tpquiz(
        "doctor",
        "--offline",
        cwd=tmp_path,
        DISCORD_TOKEN=FAKE_TOKEN,
        TPQUIZ_DATABASE_URL=pg_url,
        TPQUIZ_HEARTBEAT=str(heartbeat),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert not [line for line in lines if "tpquiz.sqlite3" in line or " database:" in line]
    (postgres,) = [line for line in lines if line.startswith("ok   postgres: ")]
    assert postgres.startswith("ok   postgres: postgresql://tpquiz:***@127.0.0.1:")
    assert lines[-1].startswith("doctor: all ") and lines[-1].endswith(" checks passed")
    assert DatabaseUrl(pg_url).password not in result.stdout + result.stderr
