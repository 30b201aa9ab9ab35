"""`tpquiz doctor` on working and broken set-ups, Discord faked on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.cli.doctor import Check, run_doctor
from bot.infra.config import Settings
from bot.infra.runlock import hold_run_lock
from bot.storage.sqlite import Storage
from bot.storage.sqlite.migrate import migrations
from tests.ops.fake_discord import TOKEN, FakeDiscord

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
async def discord_fake() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    await fake.start()
    yield fake
    await fake.close()


def _settings(tmp_path: Path, fake: FakeDiscord | None, **changes: object) -> Settings:
    values: dict[str, object] = {
        "token": TOKEN,
        "db_path": tmp_path / "data" / "tpquiz.sqlite3",
        "api_base": fake.api_base if fake else None,
    }
    values.update(changes)
    return Settings(**values)  # type: ignore[arg-type]


def _lines(results: list[Check]) -> str:
    return "\n".join(str(c) for c in results)


def _failed(results: list[Check]) -> dict[str, list[str]]:
    failed: dict[str, list[str]] = {}
    for check in results:
        if check.failed:
            failed.setdefault(check.name, []).append(check.message)
    return failed


def _closed_port() -> int:
    """A 127.0.0.1 port nothing listens on (bound and released by us just now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_working_setup_passes_every_check(
    tmp_path: Path, discord_fake: FakeDiscord
) -> None:
    results = await run_doctor(_settings(tmp_path, discord_fake))
    assert _failed(results) == {}, _lines(results)
    names = [c.name for c in results if c.status == "ok"]
    assert names[:2] == ["token", "database"]
    assert {"bank", "discord", "servers"} <= set(names)
    assert ("GET", "/api/v10/users/@me/guilds") in discord_fake.requests
    assert TOKEN not in _lines(results)
    # A check creates nothing: doctor says `tpquiz run` will create the database.
    assert not (tmp_path / "data" / "tpquiz.sqlite3").exists()
    (database,) = [c for c in results if c.name == "database"]
    assert database.message.endswith("tpquiz.sqlite3 yet: tpquiz run creates it there")


async def test_a_malformed_token_fails_without_being_shown(
    tmp_path: Path, discord_fake: FakeDiscord
) -> None:
    secret = "not-a-token-but-secret-" + "x" * 30
    results = await run_doctor(_settings(tmp_path, discord_fake, token=secret))
    failed = _failed(results)
    assert list(failed) == ["token"]
    assert "does not look like a bot token" in failed["token"][0]
    assert any(c.name == "discord" and c.status == "skip" for c in results)
    assert discord_fake.requests == []  # a malformed token is never sent
    assert secret not in _lines(results)


async def test_a_missing_token_says_where_to_get_one(tmp_path: Path) -> None:
    results = await run_doctor(_settings(tmp_path, None, token=None), offline=True)
    assert "Developer Portal" in _failed(results)["token"][0]


async def test_discord_rejecting_the_token_is_one_line_with_what_to_do(
    tmp_path: Path, discord_fake: FakeDiscord
) -> None:
    discord_fake.token = TOKEN.replace("fake", "real")  # Discord knows another token
    results = await run_doctor(_settings(tmp_path, discord_fake))
    assert list(_failed(results)) == ["discord"]
    (message,) = _failed(results)["discord"]
    assert "401" in message and "Reset Token" in message
    assert TOKEN not in _lines(results)


async def test_discord_unreachable_fails_and_suggests_offline(tmp_path: Path) -> None:
    settings = _settings(tmp_path, None, api_base=f"http://127.0.0.1:{_closed_port()}/api/v10")
    results = await run_doctor(settings)
    (message,) = _failed(results)["discord"]
    assert "cannot reach" in message and "--offline" in message


async def test_offline_skips_discord(tmp_path: Path) -> None:
    results = await run_doctor(_settings(tmp_path, None), offline=True)
    assert _failed(results) == {}
    assert any(c.name == "discord" and c.status == "skip" for c in results)


async def test_a_bot_in_no_server_gets_an_invite_link(
    tmp_path: Path, discord_fake: FakeDiscord
) -> None:
    discord_fake.guilds = []
    results = await run_doctor(_settings(tmp_path, discord_fake))
    (message,) = _failed(results)["servers"]
    assert "oauth2/authorize?client_id=100000000000000001" in message


async def test_sync_guilds_the_bot_is_not_in_are_reported(
    tmp_path: Path, discord_fake: FakeDiscord
) -> None:
    results = await run_doctor(
        _settings(tmp_path, discord_fake, sync_guilds=(555000000000000001, 42))
    )
    (message,) = _failed(results)["servers"]
    assert "TPQUIZ_SYNC_GUILDS lists 42" in message


async def test_an_unusable_database_directory_fails(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the database directory should be\n")
    results = await run_doctor(
        _settings(tmp_path, None, db_path=blocker / "tpquiz.sqlite3"), offline=True
    )
    (message,) = _failed(results)["database"]
    assert "cannot open" in message and "writable" in message


@pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() == 0,
    reason="root ignores directory permissions, so a read-only directory cannot be simulated",
)
async def test_a_read_only_database_directory_fails(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        results = await run_doctor(
            _settings(tmp_path, None, db_path=ro / "tpquiz.sqlite3"), offline=True
        )
    finally:
        ro.chmod(0o700)
    assert "database" in _failed(results)


async def test_a_broken_bank_lists_each_problem(tmp_path: Path) -> None:
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "broken.yaml").write_text("- id: Not Valid\n  topic: nowhere\n", encoding="utf-8")
    results = await run_doctor(_settings(tmp_path, None, question_paths=(bank,)), offline=True)
    problems = _failed(results)["bank"]
    assert len(problems) >= 2
    assert all("broken.yaml:" in p for p in problems)


async def test_an_empty_bank_directory_fails(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    results = await run_doctor(_settings(tmp_path, None, question_paths=(empty,)), offline=True)
    assert "no question files" in _failed(results)["bank"][0]


async def _run_cli(*args: str, env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def _env(tmp_path: Path, **values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TPQUIZ_", "DISCORD_"))}
    env["PYTHONPATH"] = str(REPO)
    env["TPQUIZ_DB"] = str(tmp_path / "data" / "tpquiz.sqlite3")
    env.update(values)
    return env


async def test_the_command_exits_0_only_when_all_pass(
    tmp_path: Path, discord_fake: FakeDiscord
) -> None:
    good = _env(tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=discord_fake.api_base)
    code, out, _ = await _run_cli("doctor", env=good, cwd=tmp_path)
    assert code == 0, out
    assert out.splitlines()[-1].startswith("doctor: all ")

    discord_fake.token = "someone-else"
    code, out, err = await _run_cli("doctor", env=good, cwd=tmp_path)
    assert code == 1
    assert "FAIL discord: Discord rejected the token (401)" in out
    assert TOKEN not in out + err


async def test_the_command_reads_an_env_file(tmp_path: Path) -> None:
    env_file = tmp_path / "tpquiz.env"
    env_file.write_text("TPQUIZ_LOG_LEVEL=LOUD\n", encoding="utf-8")
    code, out, _ = await _run_cli(
        "doctor", "--env-file", str(env_file), env=_env(tmp_path), cwd=tmp_path
    )
    assert code == 2
    build, failure = out.splitlines()
    assert build.startswith("doctor: tpquiz ")
    assert failure.startswith("FAIL settings: TPQUIZ_LOG_LEVEL must be one of")


async def _migrated_db(tmp_path: Path) -> Path:
    db = tmp_path / "data" / "tpquiz.sqlite3"
    storage = await Storage.open(db)
    await storage.close()
    return db


async def test_a_running_older_bot_is_not_migrated_under_its_feet(tmp_path: Path) -> None:
    db = await _migrated_db(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 0")  # as an older tpquiz left it
    with hold_run_lock(db):
        results = await run_doctor(_settings(tmp_path, None), offline=True)
    (database,) = [c for c in results if c.name == "database"]
    assert database.status == "warn" and "restart it to apply the migrations" in database.message
    assert any(c.name == "bot" and f"pid {os.getpid()}" in c.message for c in results)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 0


async def test_a_database_from_a_newer_tpquiz_fails(tmp_path: Path) -> None:
    db = await _migrated_db(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {len(migrations()) + 1}")
    results = await run_doctor(_settings(tmp_path, None), offline=True)
    (message,) = _failed(results)["database"]
    assert "newer tpquiz" in message and "downgrades are not supported" in message


async def test_a_file_that_is_not_a_database_fails(tmp_path: Path) -> None:
    db = tmp_path / "data" / "tpquiz.sqlite3"
    db.parent.mkdir()
    db.write_bytes(b"definitely not SQLite" * 200)
    results = await run_doctor(_settings(tmp_path, None), offline=True)
    (message,) = _failed(results)["database"]
    assert message == (
        f"{db} is not an SQLite database (it does not start with the SQLite header): point "
        "TPQUIZ_DB at the bot's database file, or restore the latest backup (tpquiz restore)"
    )


async def test_doctor_lists_servers_pending_deletion(tmp_path: Path) -> None:
    settings = _settings(tmp_path, None)
    storage = await Storage.open(settings.db_path)
    try:
        day = 86_400_000
        for guild in range(1, 8):
            await storage.privacy.mark_removed(guild, 20_000 * day, (20_030 + guild) * day)
    finally:
        await storage.close()
    results = await run_doctor(settings, offline=True)
    retention = [c.message for c in results if c.name == "retention"]
    assert retention[0] == (
        "server 1 removed the bot on 2024-10-04 00:00 UTC: its data will be deleted on"
        " 2024-11-04 00:00 UTC (tpquiz forget-guild --guild 1 does it now)"
    )
    assert len(retention) == 6 and retention[-1] == "... and 2 more servers pending deletion"
    assert not _failed(results).get("retention")


async def test_doctor_says_when_nothing_is_pending_deletion(tmp_path: Path) -> None:
    settings = _settings(tmp_path, None)
    await (await Storage.open(settings.db_path)).close()
    results = await run_doctor(settings, offline=True)
    assert [c.message for c in results if c.name == "retention"] == [
        "no server's data is pending deletion"
    ]
