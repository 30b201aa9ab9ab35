"""The heartbeat file, `tpquiz health`, the health cog and systemd's notify protocol."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import random
import socket
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from discord.ext import commands

from bot.infra.config import Settings
from bot.infra.pids import process_origin
from bot.ops.health import (
    Heartbeat,
    check_heartbeat,
    evaluate,
    heartbeat_path_for,
    read_heartbeat,
    sd_notify,
    watchdog_enabled,
    write_heartbeat,
)
from bot.runtime.bot import TPQuizBot
from bot.runtime.compose import build_bot
from bot.storage.sqlite import Storage
from cogs import health as health_cog
from tests.factories import make_bank
from tests.loopback.fixtures import loopback  # noqa: F401  (pytest fixture)
from tests.loopback.harness import running
from tests.loopback.server import LoopbackDiscord
from tests.ops.conftest import CliRunner

NOW = 1_750_000_000.0
LIMIT = 120.0


def _beat(**changes: object) -> Heartbeat:
    values: dict[str, object] = {
        "pid": 4242,
        "started_at": NOW - 3600,
        "written_at": NOW - 5,
        "gateway_at": NOW - 5,
        "db_write_at": NOW - 5,
        "guilds": 3,
        "latency": 0.045,
    }
    values.update(changes)
    return Heartbeat(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "state", "words"),
    [
        (
            {},
            "healthy",
            "healthy: gateway 5 s ago, latency 45 ms, database write 5 s ago, 3 servers",
        ),
        ({"written_at": NOW - 600}, "stale", "heartbeat is 10 min old (limit 120 s)"),
        ({"written_at": NOW - 121}, "stale", "heartbeat is 121 s old"),
        ({"gateway_at": None, "started_at": NOW - 30}, "starting", "not connected to Discord yet"),
        ({"gateway_at": None}, "never-connected", "never connected to Discord in 1.0 h"),
        ({"gateway_at": NOW - 121}, "gateway-silent", "gateway silent for 121 s"),
        ({"db_write_at": NOW - 500}, "db-stale", "no successful database write (last: 500 s ago)"),
        ({"db_write_at": None}, "db-stale", "(last: never)"),
    ],
)
def test_each_state_is_one_line_saying_why(
    changes: dict[str, object], state: str, words: str
) -> None:
    verdict = evaluate(_beat(**changes), NOW, LIMIT)
    assert verdict.state == state
    assert verdict.healthy == (state == "healthy")
    assert words in verdict.line
    assert "\n" not in verdict.line
    assert verdict.line.startswith("healthy: " if verdict.healthy else "unhealthy: ")


def test_the_heartbeat_round_trips_through_its_file(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "hb.json"
    write_heartbeat(path, _beat())
    assert read_heartbeat(path) == _beat()
    assert json.loads(path.read_text())["pid"] == 4242
    assert [p.name for p in path.parent.iterdir()] == ["hb.json"]  # no temp files left


def test_missing_and_garbled_heartbeats_are_unhealthy(tmp_path: Path) -> None:
    path = tmp_path / "hb.json"
    missing = check_heartbeat(path, LIMIT, NOW)
    assert missing.state == "no-heartbeat" and str(path) in missing.line
    path.write_text("{not json")
    assert check_heartbeat(path, LIMIT, NOW).state == "unreadable"
    assert check_heartbeat(None, LIMIT, NOW).state == "no-heartbeat"


def test_the_heartbeat_lives_beside_the_database_unless_told_otherwise(tmp_path: Path) -> None:
    db = tmp_path / "tpquiz.sqlite3"
    assert heartbeat_path_for(db) == tmp_path / "tpquiz.sqlite3.heartbeat.json"
    assert heartbeat_path_for(db, tmp_path / "x.json") == tmp_path / "x.json"
    assert heartbeat_path_for(":memory:") is None


# -- the command -----------------------------------------------------------------------


def _write_now(db: Path, **changes: object) -> None:
    now = time.time()
    values: dict[str, object] = {
        "started_at": now - 60,
        "written_at": now,
        "gateway_at": now,
        "db_write_at": now,
    }
    values.update({k: now + v for k, v in changes.items() if isinstance(v, float)})
    values.update({k: v for k, v in changes.items() if not isinstance(v, float)})
    path = heartbeat_path_for(db)
    assert path is not None
    write_heartbeat(path, _beat(**values))
    db.touch()  # a running bot's database is there


def test_health_command_fresh_heartbeat_is_healthy(cli: CliRunner, ops_env: Path) -> None:
    _write_now(ops_env)
    code, out, _ = cli("health")
    assert code == 0
    assert out.startswith("healthy: gateway 0 s ago") and out.count("\n") == 1


def test_health_command_stale_heartbeat_is_unhealthy(cli: CliRunner, ops_env: Path) -> None:
    _write_now(ops_env, written_at=-300.0, gateway_at=-300.0, db_write_at=-300.0)
    code, out, _ = cli("health")
    assert code == 1
    assert out.startswith("unhealthy: heartbeat is 300 s old") and out.count("\n") == 1


def test_health_command_silent_gateway_is_unhealthy(
    cli: CliRunner, ops_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_now(ops_env, gateway_at=-50.0)
    assert cli("health")[0] == 0
    monkeypatch.setenv("TPQUIZ_HEALTH_MAX_AGE", "30")
    code, out, _ = cli("health")
    assert code == 1 and "gateway silent for 50 s (limit 30 s)" in out
    assert cli("health", "--max-age", "60")[0] == 0


def test_health_command_without_heartbeat_is_unhealthy(cli: CliRunner, ops_env: Path) -> None:
    code, out, _ = cli("health")
    assert code == 1
    assert out.startswith("unhealthy: no heartbeat file at ") and out.count("\n") == 1


def test_health_command_honours_tpquiz_heartbeat(
    cli: CliRunner, ops_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "run" / "hb.json"
    now = time.time()
    write_heartbeat(
        elsewhere, _beat(written_at=now, gateway_at=now, db_write_at=now, started_at=now)
    )
    monkeypatch.setenv("TPQUIZ_HEARTBEAT", str(elsewhere))
    ops_env.parent.mkdir(parents=True, exist_ok=True)
    ops_env.touch()
    assert cli("health")[0] == 0


# -- systemd notify ----------------------------------------------------------------------


@pytest.fixture
def notify_socket() -> Iterator[tuple[str, socket.socket]]:
    """A datagram socket standing in for systemd's; short path (AF_UNIX allows ~107 bytes)."""
    directory = tempfile.mkdtemp(prefix="tpq-")
    path = os.path.join(directory, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.setblocking(False)
    yield path, sock
    sock.close()
    os.unlink(path)
    os.rmdir(directory)


def _received(sock: socket.socket) -> list[str]:
    messages = []
    while True:
        try:
            messages.append(sock.recv(4096).decode())
        except BlockingIOError:
            return messages


def test_sd_notify_sends_one_datagram(notify_socket: tuple[str, socket.socket]) -> None:
    path, sock = notify_socket
    assert sd_notify("READY=1", {"NOTIFY_SOCKET": path})
    assert _received(sock) == ["READY=1"]


def test_sd_notify_outside_systemd_or_to_a_dead_socket_is_harmless(tmp_path: Path) -> None:
    assert not sd_notify("READY=1", {})
    assert not sd_notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")})


def test_the_watchdog_is_only_for_the_process_systemd_named() -> None:
    assert not watchdog_enabled({})
    assert watchdog_enabled({"WATCHDOG_USEC": "180000000"})
    assert watchdog_enabled({"WATCHDOG_USEC": "180000000", "WATCHDOG_PID": str(os.getpid())})
    assert not watchdog_enabled({"WATCHDOG_USEC": "180000000", "WATCHDOG_PID": "1"})


# -- the cog -----------------------------------------------------------------------------


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[TPQuizBot]:
    db = tmp_path / "bot.sqlite3"
    storage = await Storage.open(db)
    bot = build_bot(
        settings=Settings(db_path=db), storage=storage, bank=make_bank(), rng=random.Random(0)
    )
    yield bot
    await bot.close()
    await storage.close()


async def test_a_tick_before_connecting_says_starting(bot: TPQuizBot, tmp_path: Path) -> None:
    cog = health_cog.HealthCog(bot)  # not loaded: no background loop racing the test
    beat = await cog.tick(now=cog.started_at + 1)
    assert beat.gateway_at is None and beat.guilds == 0
    assert beat.db_write_at is not None  # the tick's own probe write committed
    assert beat.db_write_at == bot.storage.db.last_write_at
    on_disk = read_heartbeat(tmp_path / "bot.sqlite3.heartbeat.json")
    assert on_disk == beat
    assert evaluate(on_disk, cog.started_at + 1, LIMIT).state == "starting"


async def test_a_connected_tick_is_healthy_and_feeds_systemd(
    bot: TPQuizBot,
    notify_socket: tuple[str, socket.socket],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, sock = notify_socket
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "180000000")
    monkeypatch.setattr(health_cog, "gateway_connected", lambda bot: True)
    cog = health_cog.HealthCog(bot)
    now = time.time()
    beat = await cog.tick(now=now)
    assert beat.gateway_at == now
    # Its own pid, host and namespace: `tpquiz health` here checks that the pid lives.
    assert (beat.pid, (beat.host, beat.pid_ns)) == (os.getpid(), process_origin())
    assert check_heartbeat(cog.path, LIMIT, now).healthy
    await cog.tick(now=now + 15)
    assert _received(sock) == ["READY=1\nSTATUS=connected to Discord", "WATCHDOG=1", "WATCHDOG=1"]
    # Gateway lost: the heartbeat keeps being written, the watchdog is no longer fed.
    monkeypatch.setattr(health_cog, "gateway_connected", lambda bot: False)
    await cog.tick(now=now + 200)
    assert _received(sock) == []
    assert check_heartbeat(cog.path, LIMIT, now + 200).state == "gateway-silent"
    assert bot.metrics.value("tpquiz_db_write_seconds_count") >= 3


async def test_a_failing_database_does_not_stop_the_heartbeat(
    bot: TPQuizBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    cog = health_cog.HealthCog(bot)
    last_good = (await cog.tick()).db_write_at
    assert last_good is not None

    async def broken(key: str, value: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(bot.storage.meta, "set", broken)
    later = last_good + 500
    beat = await cog.tick(now=later)
    assert beat.written_at == later and beat.db_write_at == last_good
    connected = dataclasses.replace(beat, gateway_at=later)
    assert evaluate(connected, later, LIMIT).state == "db-stale"


async def test_a_failing_probe_logs_one_line_when_it_starts_and_one_when_it_ends(
    bot: TPQuizBot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    cog = health_cog.HealthCog(bot)
    working = bot.storage.meta.set

    async def broken(key: str, value: str) -> None:
        raise OSError("database or disk is full")

    monkeypatch.setattr(bot.storage.meta, "set", broken)
    caplog.set_level(logging.INFO)
    for _ in range(3):
        await cog.tick()
    monkeypatch.setattr(bot.storage.meta, "set", working)
    await cog.tick()
    lines = [r.getMessage() for r in caplog.records if "database write" in r.getMessage()]
    assert lines == [
        "heartbeat: the database write failed: database or disk is full",
        "heartbeat: the database write works again",
    ]
    assert not any(r.exc_info for r in caplog.records)


async def test_against_the_loopback_discord_the_gateway_counts_as_connected(
    tmp_path: Path,
    loopback: LoopbackDiscord,  # noqa: F811
) -> None:
    """Checks the reading of discord.py's state (ready, ws open, finite latency) on a real
    gateway session, and that the cog writes a healthy heartbeat from it."""
    loopback.add_guild(loopback.snowflake(), name="Study group")
    db = tmp_path / "bot.sqlite3"
    storage = await Storage.open(db)
    bot = build_bot(
        settings=Settings(db_path=db),
        storage=storage,
        bank=make_bank(),
        rng=random.Random(0),
        guild_ready_timeout=0.05,
    )
    try:
        async with running(bot, loopback):
            # The heartbeat ACK was queued before READY; once the bot has read a frame sent
            # after on_ready, it has read the ACK too (one ordered websocket stream).
            probe = asyncio.ensure_future(
                bot.wait_for("socket_event_type", check=lambda t: t == "TPQUIZ_PROBE")
            )
            await loopback.dispatch("TPQUIZ_PROBE", {})
            await asyncio.wait_for(probe, timeout=10)
            # load_extension imports its own copy of the module: use that one's class.
            cog = bot.get_cog("HealthCog")
            assert type(cog).__name__ == "HealthCog"
            assert isinstance(cog, commands.Cog)
            assert health_cog.gateway_connected(bot)
            beat = await cog.tick()  # type: ignore[attr-defined]
            assert beat.guilds == 1 and beat.latency is not None
            verdict = check_heartbeat(cog.path, LIMIT)  # type: ignore[attr-defined]
            assert verdict.healthy, verdict.line
        assert not health_cog.gateway_connected(bot)
    finally:
        await storage.close()
