"""The test PostgreSQL server (tests/pg_server.py): it runs, and CI never skips it."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest

from tests.pg_server import PgServer, availability


async def test_the_session_server_answers_over_tcp_with_its_password(pg_url: str) -> None:
    conn = await asyncpg.connect(pg_url)
    try:
        assert await conn.fetchval("SELECT 1 + 1") == 2
        assert await conn.fetchval("SHOW fsync") == "off"
        assert (
            await conn.fetchval("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == 0
        )
    finally:
        await conn.close()


async def test_a_wrong_password_is_refused(pg_server: PgServer) -> None:
    url = pg_server.url().replace(pg_server.password, "wrong")
    with pytest.raises(asyncpg.InvalidPasswordError):
        await asyncpg.connect(url)


def test_the_server_has_its_own_socket_directory(pg_server: PgServer) -> None:
    sockets = [p.name for p in pg_server.socket_dir.iterdir()]
    assert f".s.PGSQL.{pg_server.port}" in sockets


def test_ci_fails_without_postgresql(tmp_path: Path) -> None:
    verdict = availability(None, {"CI": "true"})
    assert verdict.action == "fail"
    assert "PostgreSQL is required in CI (CI=true)" in verdict.reason
    assert availability(tmp_path, {"CI": "true"}).action == "fail"  # a dir without initdb


def test_elsewhere_a_missing_server_skips_with_the_reason() -> None:
    verdict = availability(None, {})
    assert verdict.action == "skip"
    assert verdict.reason.startswith("PostgreSQL tests skipped: no initdb in ")


def test_binaries_present_run(tmp_path: Path) -> None:
    (tmp_path / "initdb").write_text("")
    assert availability(tmp_path, {"CI": "true"}).action == "run"
