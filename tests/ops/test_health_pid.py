"""`tpquiz health` and the heartbeat's pid: a bot that died reads unhealthy at once."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.infra.pids import pid_alive, process_origin
from bot.ops.health import (
    Heartbeat,
    check_heartbeat,
    heartbeat_path_for,
    probe_heartbeat,
    read_heartbeat,
    write_heartbeat,
)
from tests.ops.conftest import CliRunner


@pytest.fixture(scope="module")
def dead_pid() -> int:
    """The pid of a process that has exited and been reaped, so surely no process now."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: the kernel has forgotten the pid (until it is reused)
    assert not pid_alive(child.pid)
    return child.pid


def _fresh(pid: int, **changes: object) -> Heartbeat:
    now = time.time()
    host, pid_ns = process_origin()
    values: dict[str, object] = {
        "pid": pid,
        "started_at": now - 60,
        "written_at": now,
        "gateway_at": now,
        "db_write_at": now,
        "guilds": 1,
        "host": host,
        "pid_ns": pid_ns,
    }
    values.update(changes)
    return Heartbeat(**values)  # type: ignore[arg-type]


def _write(db: Path, beat: Heartbeat) -> Path:
    path = heartbeat_path_for(db)
    assert path is not None
    write_heartbeat(path, beat)
    db.touch()
    return path


def test_a_pid_is_alive_while_its_process_exists(dead_pid: int) -> None:
    assert pid_alive(os.getpid())
    assert not pid_alive(dead_pid)
    assert pid_alive(0) and pid_alive(-1)  # process groups, not a pid: not judged


def test_a_process_of_another_user_counts_as_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    """EPERM: the pid exists, but health runs as another user than the bot's."""

    def refuse(pid: int, sig: int) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "kill", refuse)
    assert pid_alive(12345)


def test_a_fresh_heartbeat_of_a_dead_pid_is_unhealthy_at_once(
    cli: CliRunner, ops_env: Path, dead_pid: int
) -> None:
    path = _write(ops_env, _fresh(dead_pid))
    code, out, _ = cli("health")
    assert code == 1
    assert out == (
        f"unhealthy: the bot (pid {dead_pid}) that wrote {path} is not running any more: it"
        " stopped or crashed; check its logs and start it\n"
    )
    assert check_heartbeat(path, 120.0, db_path=ops_env).state == "dead"


def test_a_fresh_heartbeat_of_a_live_pid_stays_healthy(cli: CliRunner, ops_env: Path) -> None:
    _write(ops_env, _fresh(os.getpid()))
    code, out, _ = cli("health")
    assert code == 0 and out.startswith("healthy: ")


@pytest.mark.parametrize(
    "elsewhere",
    [{"host": "another-host"}, {"pid_ns": "pid:[1]"}, {"host": None, "pid_ns": None}],
)
def test_a_pid_from_another_host_or_namespace_is_judged_by_age_alone(
    tmp_path: Path, dead_pid: int, elsewhere: dict[str, object]
) -> None:
    """Another container's pid (or an older heartbeat without origin) means nothing here."""
    path = _write(tmp_path / "db.sqlite3", _fresh(dead_pid, **elsewhere))
    assert check_heartbeat(path, 120.0).healthy
    assert check_heartbeat(path, 120.0, now=time.time() + 600).state == "stale"


def test_the_heartbeats_of_tpquiz_run_carry_pid_host_and_namespace(tmp_path: Path) -> None:
    path = tmp_path / "hb.json"
    probe_heartbeat(path)
    stored = json.loads(path.read_text(encoding="utf-8"))
    host, pid_ns = process_origin()
    assert (stored["pid"], stored["host"], stored["pid_ns"]) == (os.getpid(), host, pid_ns)
    beat = read_heartbeat(path)
    assert beat is not None and (beat.host, beat.pid_ns) == (host, pid_ns)
    assert check_heartbeat(path, 120.0).state == "starting"  # alive: judged on
