"""The heartbeat when its file cannot be written, and when the database is lost
(issue 10, items 2, 4 and 27).

A heartbeat path that cannot be written is refused at start in one line; while the bot
runs, one warning when writing starts failing and one line when it works again, never
a traceback per tick. A target that is not a regular file is never replaced.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import random
import stat
import time
from pathlib import Path

import pytest

from bot.infra.config import Settings
from bot.ops.health import (
    Heartbeat,
    HeartbeatUnwritable,
    check_heartbeat,
    evaluate,
    heartbeat_problem,
    probe_heartbeat,
    read_heartbeat,
    write_heartbeat,
)
from bot.runtime.compose import build_bot
from bot.storage.sqlite import Storage
from cogs import health as health_cog
from tests.factories import make_bank
from tests.mounts import remount, tmpfs
from tests.test_cli import FAKE_TOKEN, tpquiz

NOW = 1_750_000_000.0


def _beat(**changes: object) -> Heartbeat:
    values: dict[str, object] = {
        "pid": 4242, "started_at": NOW - 60, "written_at": NOW, "gateway_at": NOW,
        "db_write_at": NOW, "guilds": 1,
    }  # fmt: skip
    values.update(changes)
    return Heartbeat(**values)  # type: ignore[arg-type]


def _lines(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str, bool]]:
    return [
        (r.levelno, r.getMessage(), r.exc_info is not None)
        for r in caplog.records
        if r.name == "bot.ops.health"
    ]


def test_failing_then_recovering_is_two_lines_not_one_per_tick(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "hb.json"
    os.mkfifo(path)  # not a regular file: never replaced
    caplog.set_level(logging.INFO, logger="bot.ops.health")
    assert [write_heartbeat(path, _beat(written_at=NOW + i)) for i in range(4)] == [False] * 4
    assert stat.S_ISFIFO(os.stat(path).st_mode)
    path.unlink()
    assert write_heartbeat(path, _beat()) and write_heartbeat(path, _beat())
    assert read_heartbeat(path) == _beat()
    assert _lines(caplog) == [
        (
            logging.WARNING,
            f"heartbeat: cannot write the heartbeat: {path} is not a regular file; refusing "
            "to replace it; tpquiz health will report the bot unhealthy",
            False,
        ),
        (logging.INFO, f"heartbeat: writing {path} again", False),
    ]


def test_a_read_only_heartbeat_directory(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with tmpfs(tmp_path / "run") as mount:
        path = mount / "hb.json"
        remount(mount, "ro")
        assert heartbeat_problem(path) == (
            f"cannot write the heartbeat {path}: {mount} is not writable by this user: set "
            "TPQUIZ_HEARTBEAT to a writable path"
        )
        with pytest.raises(HeartbeatUnwritable) as raised:
            probe_heartbeat(path)
        assert str(raised.value) == f"cannot write the heartbeat {path} (Read-only file system)"
        caplog.set_level(logging.INFO, logger="bot.ops.health")
        assert not write_heartbeat(path, _beat()) and not write_heartbeat(path, _beat())
        assert len(_lines(caplog)) == 1
        remount(mount, "rw")
        assert write_heartbeat(path, _beat())
        assert [m for _, m, _ in _lines(caplog)][-1] == f"heartbeat: writing {path} again"


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_run_refuses_a_heartbeat_path_it_cannot_write(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "hb"
    if kind == "directory":
        target.mkdir()
        what = "a directory"
    else:
        os.mkfifo(target)
        what = "not a regular file"
    result = tpquiz(
        "run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DB=str(tmp_path / "q.sqlite3"),
        TPQUIZ_HEARTBEAT=str(target),
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        f"tpquiz: cannot write the heartbeat: {target} is {what}; refusing to replace it: "
        "set TPQUIZ_HEARTBEAT to a file path\n"
    )
    assert not (tmp_path / "q.sqlite3").exists()


def test_probe_writes_a_starting_heartbeat(tmp_path: Path) -> None:
    path = tmp_path / "hb.json"
    probe_heartbeat(path, now=NOW)
    beat = read_heartbeat(path)
    assert beat is not None and beat.gateway_at is None and beat.pid == os.getpid()
    assert evaluate(beat, NOW + 1, 120).state == "starting"


async def test_the_running_cog_logs_a_failing_heartbeat_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "bot.sqlite3"
    hb = tmp_path / "hb"
    hb.mkdir()
    storage = await Storage.open(db)
    bot = build_bot(
        settings=Settings(db_path=db, heartbeat_path=hb),
        storage=storage, bank=make_bank(), rng=random.Random(0),
    )  # fmt: skip
    try:
        cog = health_cog.HealthCog(bot)
        caplog.set_level(logging.INFO)
        for i in range(3):
            await cog.tick(now=time.time() + i)
    finally:
        await bot.close()
        await storage.close()
    failures = [r for r in caplog.records if "cannot write the heartbeat" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is None
    assert hb.is_dir()


# -- item 2: a lost database is unhealthy ---------------------------------------------------


def test_a_heartbeat_reporting_a_lost_database_is_unhealthy() -> None:
    fault = "the database file /srv/q.sqlite3 was deleted while the bot was running: ..."
    verdict = evaluate(_beat(db_fault=fault), NOW + 1, 120)
    assert (verdict.state, verdict.line) == ("db-lost", f"unhealthy: {fault}")
    stale = evaluate(_beat(db_fault=fault, written_at=NOW - 500), NOW, 120)
    assert stale.state == "stale"  # an old heartbeat says first that the bot stopped
    assert Heartbeat.from_mapping(dataclasses.asdict(_beat(db_fault=fault))).db_fault == fault


def test_health_sees_a_database_file_that_is_gone(tmp_path: Path) -> None:
    db = tmp_path / "q.sqlite3"
    path = tmp_path / "hb.json"
    now = time.time()
    write_heartbeat(path, _beat(written_at=now, gateway_at=now, db_write_at=now))
    db.touch()
    assert check_heartbeat(path, 120, now, db_path=db).healthy
    db.unlink()
    verdict = check_heartbeat(path, 120, now, db_path=db)
    assert (verdict.state, verdict.line) == (
        "db-lost",
        f"unhealthy: the database file {db} was deleted while the bot was running: answers "
        "are no longer saved; stop the bot, put the database back (tpquiz restore BACKUP) "
        "and start it again",
    )


async def test_after_the_file_is_lost_the_heartbeat_shows_no_database_write(
    tmp_path: Path,
) -> None:
    """The cog builds the heartbeat from `db.last_write_at`, which the fault clears, and
    carries the fault itself, so `tpquiz health` says why from the next tick."""
    db = tmp_path / "bot.sqlite3"
    storage = await Storage.open(db)
    bot = build_bot(
        settings=Settings(db_path=db), storage=storage, bank=make_bank(), rng=random.Random(0)
    )
    try:
        cog = health_cog.HealthCog(bot)
        assert (await cog.tick()).db_write_at is not None
        db.unlink()
        beat = await cog.tick()
    finally:
        await bot.close()
        await storage.close()
    assert beat.db_write_at is None
    assert beat.db_fault is not None and "was deleted while the bot was running" in beat.db_fault
    connected = dataclasses.replace(beat, gateway_at=beat.written_at)
    verdict = evaluate(connected, beat.written_at, 120)
    assert verdict.state == "db-lost"
    assert verdict.line == f"unhealthy: {beat.db_fault}"
    # Without the fault (a heartbeat of an older bot) the missing write alone reads unhealthy.
    without_fault = dataclasses.replace(connected, db_fault=None)
    assert evaluate(without_fault, beat.written_at, 120).state == "db-stale"
