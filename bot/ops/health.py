"""The heartbeat file, its verdict (`tpquiz health`), and systemd's notify protocol.

A process that is alive is not necessarily a bot that works: discord.py reconnects on
its own, so a lost gateway (network down, token reset) can leave a quiet process that
answers nobody. The bot therefore writes a small JSON heartbeat every 15 s (see
`cogs/health.py`) saying when the gateway was last known good and when the database last
committed. Anything that can run a command reads it: Docker's HEALTHCHECK, a systemd
watchdog, a cron job, a person. The file lives beside the database (on the same volume)
unless `TPQUIZ_HEARTBEAT` names another path.

`sd_notify` speaks systemd's notify protocol (one datagram on `$NOTIFY_SOCKET`) directly,
so `Type=notify` and `WatchdogSec=` work without the `systemd` Python package.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from bot.infra.fault_log import FaultLog
from bot.infra.files import UnsafeTarget, check_target, write_atomic_text
from bot.infra.pids import pid_alive, process_origin
from bot.storage import problems

__all__ = [
    "HEARTBEAT_INTERVAL",
    "Heartbeat",
    "HeartbeatUnreadable",
    "HeartbeatUnwritable",
    "STATES",
    "Verdict",
    "check_heartbeat",
    "evaluate",
    "heartbeat_path_for",
    "heartbeat_problem",
    "probe_heartbeat",
    "read_heartbeat",
    "sd_notify",
    "watchdog_enabled",
    "write_heartbeat",
]

log = logging.getLogger(__name__)

#: Seconds between heartbeat writes.
HEARTBEAT_INTERVAL = 15.0
HEARTBEAT_SUFFIX = ".heartbeat.json"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Heartbeat:
    """What the bot says about itself; times are Unix seconds (wall clock, UTC)."""

    pid: int
    started_at: float
    written_at: float
    #: Last time the gateway was connected, ready and acknowledging heartbeats.
    gateway_at: float | None
    #: Last COMMIT that succeeded (the heartbeat itself commits one every interval).
    db_write_at: float | None
    guilds: int
    #: Gateway heartbeat round trip in seconds, when connected.
    latency: float | None = None
    version: int = FORMAT_VERSION
    #: Why the database takes no writes (its file was deleted or replaced), if it does not.
    db_fault: str | None = None
    #: Where `pid` means this process (see `process_origin`); None in older heartbeats.
    host: str | None = None
    pid_ns: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_mapping(cls, data: Mapping[str, object]) -> Heartbeat:
        def opt(name: str) -> float | None:
            value = data.get(name)
            return None if value is None else float(value)  # type: ignore[arg-type]

        return cls(
            pid=int(data["pid"]),  # type: ignore[call-overload]
            started_at=float(data["started_at"]),  # type: ignore[arg-type]
            written_at=float(data["written_at"]),  # type: ignore[arg-type]
            gateway_at=opt("gateway_at"),
            db_write_at=opt("db_write_at"),
            guilds=int(data.get("guilds") or 0),  # type: ignore[call-overload]
            latency=opt("latency"),
            version=int(data.get("version") or FORMAT_VERSION),  # type: ignore[call-overload]
            db_fault=str(data["db_fault"]) if data.get("db_fault") else None,
            host=str(data["host"]) if data.get("host") else None,
            pid_ns=str(data["pid_ns"]) if data.get("pid_ns") else None,
        )


def heartbeat_path_for(db_path: Path | str, override: Path | None = None) -> Path | None:
    """Where the heartbeat of the bot using `db_path` lives; None for in-memory databases."""
    if override is not None:
        return override
    if str(db_path) == ":memory:":
        return None
    db_path = Path(db_path)
    return db_path.with_name(db_path.name + HEARTBEAT_SUFFIX)


class HeartbeatUnwritable(Exception):
    """The heartbeat file cannot be written; the message says where and why."""


#: Each heartbeat path's failures (bot.infra.fault_log): the bot writes every 15 s, and a path
#: that cannot be written must cost one log line when it starts failing and one when it
#: recovers, not a line (let alone a traceback) per tick.
_failing: dict[Path, FaultLog] = {}


def _write(path: Path, beat: Heartbeat) -> None:
    """Replace the file atomically (bot.infra.files), so a reader never sees half a heartbeat."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic_text(path, beat.to_json() + "\n")
    except UnsafeTarget as exc:
        raise HeartbeatUnwritable(f"cannot write the heartbeat: {exc}") from None
    except OSError as exc:
        # Not exc.filename: that is the temporary file's random name, and the reason
        # must stay the same from one tick to the next to be logged only once.
        raise HeartbeatUnwritable(
            f"cannot write the heartbeat {path} ({exc.strerror or exc})"
        ) from None


def write_heartbeat(path: Path, beat: Heartbeat) -> bool:
    """Write the heartbeat; False when that failed. Never raises: the bot must go on.

    Logs a warning when writing `path` starts failing (or fails for a new reason) and
    an info line when it works again; `tpquiz health` meanwhile sees the file age.
    """
    path = Path(path)
    faults = _failing.get(path)
    if faults is None:
        faults = _failing[path] = FaultLog(
            log,
            "heartbeat: %s; tpquiz health will report the bot unhealthy",
            "heartbeat: writing %s again",
            recovered_args=(path,),
        )
    try:
        _write(path, beat)
    except HeartbeatUnwritable as exc:
        faults.failed(exc)
        return False
    faults.worked()
    return True


def heartbeat_problem(path: Path | None) -> str | None:
    """Why the heartbeat cannot be written at `path` (checked before `tpquiz run` starts).

    Looks without writing: the target must be absent or a regular file, and its
    directory writable (or creatable). `probe_heartbeat` then writes for real.
    """
    if path is None:
        return None
    path = Path(path)
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        if path.parent.exists():
            check_target(path)
        elif not folder.is_dir():
            raise UnsafeTarget(f"{folder} is not a directory")
    except UnsafeTarget as exc:
        return f"cannot write the heartbeat: {exc}: set TPQUIZ_HEARTBEAT to a file path"
    if not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"cannot write the heartbeat {path}: {folder} is not writable by this user: "
            "set TPQUIZ_HEARTBEAT to a writable path"
        )
    return None


def probe_heartbeat(path: Path | None, now: float | None = None) -> None:
    """Write a "starting" heartbeat at start-up; HeartbeatUnwritable when that fails.

    `tpquiz run` calls this (holding the run lock) so a heartbeat path that cannot be
    written stops the start with one line instead of failing quietly every 15 s.
    """
    if path is None:
        return
    now = time.time() if now is None else now
    host, pid_ns = process_origin()
    beat = Heartbeat(
        pid=os.getpid(),
        started_at=now,
        written_at=now,
        gateway_at=None,
        db_write_at=None,
        guilds=0,
        host=host,
        pid_ns=pid_ns,
    )
    _write(Path(path), beat)


class HeartbeatUnreadable(Exception):
    """The heartbeat file exists but cannot be read or parsed."""


def read_heartbeat(path: Path) -> Heartbeat | None:
    """The heartbeat at `path`, None when there is no file; HeartbeatUnreadable if garbled."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HeartbeatUnreadable(f"cannot read {path}: {exc.strerror}") from None
    try:
        return Heartbeat.from_mapping(json.loads(text))
    except (ValueError, KeyError, TypeError) as exc:
        raise HeartbeatUnreadable(f"{path} is not a tpquiz heartbeat ({exc})") from None


@dataclass(frozen=True)
class Verdict:
    #: One of STATES; docs/operations.md explains each.
    state: str
    #: One line for people and logs: the state, and what to do when unhealthy.
    line: str

    @property
    def healthy(self) -> bool:
        return self.state == "healthy"


STATES = (
    "healthy",
    "starting",
    "no-heartbeat",
    "unreadable",
    "stale",
    "never-connected",
    "gateway-silent",
    "db-stale",
    "db-lost",
    "dead",
)


def _ago(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 600:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def evaluate(
    beat: Heartbeat | None, now: float, max_age: float, where: Path | None = None
) -> Verdict:
    """Healthy when the heartbeat, the gateway and the last DB write are all fresh."""
    place = f" at {where}" if where else ""
    if beat is None:
        return Verdict(
            "no-heartbeat",
            f"unhealthy: no heartbeat file{place}: the bot is not running, is still starting, "
            "or TPQUIZ_HEARTBEAT/TPQUIZ_DB point elsewhere than the bot's",
        )
    age = now - beat.written_at
    if beat.db_fault and age <= max_age:
        return Verdict("db-lost", f"unhealthy: {beat.db_fault}")
    if age > max_age:
        return Verdict(
            "stale",
            f"unhealthy: heartbeat is {_ago(age)} old (limit {_ago(max_age)}): the bot "
            f"(pid {beat.pid}) has stopped or its event loop is stuck; check its logs and "
            "restart it",
        )
    if beat.gateway_at is None:
        since = now - beat.started_at
        if since <= max_age:
            return Verdict(
                "starting",
                f"unhealthy: starting, not connected to Discord yet (up {_ago(since)})",
            )
        return Verdict(
            "never-connected",
            f"unhealthy: never connected to Discord in {_ago(since)}: check the token "
            "(tpquiz doctor), the network, and the logs",
        )
    silent = now - beat.gateway_at
    if silent > max_age:
        return Verdict(
            "gateway-silent",
            f"unhealthy: Discord gateway silent for {_ago(silent)} (limit {_ago(max_age)}): "
            "the network or Discord is down, or the token was reset; discord.py keeps "
            "retrying, see the logs",
        )
    if beat.db_write_at is None or now - beat.db_write_at > max_age:
        last = "never" if beat.db_write_at is None else f"{_ago(now - beat.db_write_at)} ago"
        return Verdict(
            "db-stale",
            f"unhealthy: no successful database write (last: {last}): disk full, "
            "permissions or a locked database; run tpquiz doctor",
        )
    latency = f", latency {beat.latency * 1000:.0f} ms" if beat.latency is not None else ""
    servers = f"{beat.guilds} server" + ("" if beat.guilds == 1 else "s")
    return Verdict(
        "healthy",
        f"healthy: gateway {_ago(silent)} ago{latency}, database write "
        f"{_ago(now - beat.db_write_at)} ago, {servers}, pid {beat.pid}, "
        f"up {_ago(now - beat.started_at)}",
    )


def check_heartbeat(
    path: Path | None, max_age: float, now: float | None = None, db_path: Path | None = None
) -> Verdict:
    """Read and judge the heartbeat at `path` (what `tpquiz health` prints).

    With `db_path`, a fresh heartbeat of a bot whose database file is gone is unhealthy
    too: that bot's answers are no longer saved anywhere. A heartbeat written on this
    host and in this pid namespace whose pid no longer exists is unhealthy at once,
    without waiting for it to grow stale (older heartbeats, without host and namespace,
    and those written elsewhere are judged by their age alone).
    """
    now = time.time() if now is None else now
    if path is None:
        return Verdict("no-heartbeat", "unhealthy: an in-memory database has no heartbeat file")
    try:
        beat = read_heartbeat(path)
    except HeartbeatUnreadable as exc:
        return Verdict("unreadable", f"unhealthy: {exc}; a running bot rewrites it every 15 s")
    if beat is not None and (beat.host, beat.pid_ns) == process_origin():
        if not pid_alive(beat.pid):
            return Verdict(
                "dead",
                f"unhealthy: the bot (pid {beat.pid}) that wrote {path} is not running any "
                "more: it stopped or crashed; check its logs and start it",
            )
    verdict = evaluate(beat, now, max_age, path)
    if verdict.healthy and db_path is not None and not Path(db_path).is_file():
        return Verdict("db-lost", f"unhealthy: {problems.file_lost(Path(db_path), 'deleted')}")
    return verdict


# -- systemd notify protocol -------------------------------------------------------------


def sd_notify(message: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send `message` (e.g. "READY=1") to systemd; False when not under systemd or on error.

    Never raises and never blocks: a broken notify socket must not take the bot down.
    """
    env = os.environ if environ is None else environ
    address = env.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # abstract namespace socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.setblocking(False)
            sock.connect(address)
            sock.sendall(message.encode("utf-8"))
    except OSError as exc:
        log.warning("systemd notify (%s) failed: %s", message.split("=", 1)[0], exc)
        return False
    return True


def watchdog_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether systemd expects WATCHDOG=1 pings from this process (WatchdogSec= is set)."""
    env = os.environ if environ is None else environ
    if not env.get("WATCHDOG_USEC"):
        return False
    pid = env.get("WATCHDOG_PID")
    return not pid or pid == str(os.getpid())
