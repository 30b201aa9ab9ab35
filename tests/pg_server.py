"""A throwaway PostgreSQL server for the tests, started with initdb and pg_ctl.

Why not a container or a shared server: the suite must run on a fresh CI machine and on
a developer's laptop with nothing but the PostgreSQL binaries (issue 15), and must never
touch a real database. So the tests start their own server, once per session, in a
temporary directory, on a free loopback port and its own unix socket directory (never
the system's /var/run/postgresql), and stop it at the end.

It is made cheap: fsync and full-page writes off (the data is thrown away), small
shared_buffers, no autovacuum. initdb refuses to run as root, and CI runs as root: then
every server command runs as the `postgres` system user (`runuser -u postgres --`) in a
directory that user owns.

`availability()` decides, from the environment, whether a missing server skips the
PostgreSQL tests (a laptop without PostgreSQL) or fails the run (CI=true): a CI run must
never go green because it silently tested nothing.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: Where Debian and Ubuntu put each major version's server binaries.
BIN_GLOB = "/usr/lib/postgresql/*/bin"
#: The system user the server runs as when the tests run as root.
SYSTEM_USER = "postgres"
#: The superuser initdb creates in the test cluster, and its password (TCP only).
SUPERUSER = "tpquiz"
#: Seconds pg_ctl waits for the server to start or stop (a loaded 2-core machine).
PG_CTL_WAIT = 60

SETTINGS = {
    "fsync": "off",
    "full_page_writes": "off",
    "synchronous_commit": "off",
    "shared_buffers": "16MB",
    "max_connections": "50",
    "autovacuum": "off",
    "listen_addresses": "127.0.0.1",
}


def find_bin_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """The directory holding initdb and pg_ctl: $TPQUIZ_PG_BIN, the newest
    /usr/lib/postgresql/N/bin, or the one on PATH; None when there is none."""
    env = os.environ if environ is None else environ
    if env.get("TPQUIZ_PG_BIN"):
        return Path(env["TPQUIZ_PG_BIN"])

    def major(path: str) -> int:
        match = re.search(r"/(\d+)/bin$", path)
        return int(match.group(1)) if match else 0

    for candidate in sorted(glob.glob(BIN_GLOB), key=major, reverse=True):
        if (Path(candidate) / "initdb").is_file() and (Path(candidate) / "pg_ctl").is_file():
            return Path(candidate)
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@dataclass(frozen=True)
class Availability:
    #: "run", "skip" or "fail".
    action: str
    reason: str = ""


def availability(bin_dir: Path | None, environ: Mapping[str, str]) -> Availability:
    """Whether the PostgreSQL tests run, skip (with why) or fail the run (CI=true)."""
    if bin_dir is not None and (bin_dir / "initdb").is_file():
        return Availability("run")
    where = f"no initdb in {bin_dir}" if bin_dir else f"no initdb in {BIN_GLOB} or on PATH"
    if environ.get("CI", "").lower() in ("true", "1", "yes"):
        return Availability(
            "fail",
            f"PostgreSQL is required in CI (CI=true) but {where}: .ci/run installs it "
            "with apt-get install -y postgresql",
        )
    return Availability(
        "skip",
        f"PostgreSQL tests skipped: {where} (apt-get install postgresql, or set TPQUIZ_PG_BIN)",
    )


def as_user(name: str) -> list[str]:
    """The command prefix that runs a program as `name` (runuser, else su)."""
    if shutil.which("runuser"):
        return ["runuser", "-u", name, "--"]
    # su takes one shell command: `_run` joins the arguments after this prefix.
    return ["su", "-s", "/bin/sh", name, "-c"]


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PgServer:
    """One running test cluster; `start()` then `stop()` (the fixture does both)."""

    bin_dir: Path
    #: Settings over `SETTINGS` (a bench wants autovacuum on and more shared buffers).
    settings: dict[str, str] = field(default_factory=dict)
    root: Path = field(init=False)
    port: int = field(init=False, default=0)
    password: str = field(init=False, repr=False, default_factory=lambda: secrets.token_hex(8))
    _as_user: list[str] = field(init=False, default_factory=list)
    _uid: int | None = field(init=False, default=None)

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root / "sock"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    def url(self, database: str = "postgres") -> str:
        """A TCP URL with the password, as an operator writes TPQUIZ_DATABASE_URL."""
        return f"postgresql://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [*self._as_user, *args]
        if self._as_user[:1] == ["su"]:
            command = [*self._as_user, shlex.join(args)]
        return subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=PG_CTL_WAIT + 30,
            check=False,
        )

    def _check(self, what: str, result: subprocess.CompletedProcess[str]) -> None:
        if result.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(
                f"{what} failed ({result.returncode}): {result.stderr.strip()[-2000:]}\n{log}"
            )

    def start(self) -> None:
        # As root, under /tmp: a root-only $TMPDIR would keep the `postgres` user out.
        where = os.environ.get("TPQUIZ_PG_TMP") or ("/tmp" if os.geteuid() == 0 else None)
        self.root = Path(tempfile.mkdtemp(prefix="tpquiz-pg-", dir=where))
        if os.geteuid() == 0:  # initdb refuses root: run everything as `postgres`
            try:
                user = pwd.getpwnam(SYSTEM_USER)
            except KeyError:
                shutil.rmtree(self.root, ignore_errors=True)
                raise RuntimeError(
                    f"the tests run as root, initdb refuses root, and there is no "
                    f"{SYSTEM_USER!r} user to run PostgreSQL as: install the postgresql "
                    "package (it creates the user) or run the tests as another user"
                ) from None
            self._uid = user.pw_uid
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._as_user = as_user(SYSTEM_USER)
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n")
        self.socket_dir.mkdir()
        if self._uid is not None:
            user = pwd.getpwnam(SYSTEM_USER)
            for path in (pwfile, self.socket_dir):
                os.chown(path, user.pw_uid, user.pw_gid)
        self._check(
            "initdb",
            self._run(
                str(self.bin_dir / "initdb"),
                "-D",
                str(self.data),
                "-U",
                SUPERUSER,
                f"--pwfile={pwfile}",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            ),
        )
        pwfile.unlink()
        # A port taken between free_port() and the bind makes the start fail: try again.
        for attempt in range(3):
            self.port = free_port()
            result = self._pg_ctl_start()
            if result.returncode == 0:
                return
            if attempt == 2:
                self._check("pg_ctl start", result)

    def _pg_ctl_start(self) -> subprocess.CompletedProcess[str]:
        options = " ".join(f"-c {k}={v}" for k, v in {**SETTINGS, **self.settings}.items())
        options += f" -p {self.port} -k {self.socket_dir}"
        return self._run(
            str(self.bin_dir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "-t",
            str(PG_CTL_WAIT),
            "start",
        )

    def _pg_ctl(self, *args: str) -> None:
        self._check(
            f"pg_ctl {args[-1]}",
            self._run(
                str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-w", "-t",
                str(PG_CTL_WAIT), *args,
            ),
        )  # fmt: skip

    def restart(self) -> None:
        """`pg_ctl restart -m fast`, as an operator restarts the server: every session
        ends (the advisory locks they held with them), the data stays; back when this
        returns, on the same port."""
        # -l: without a log file the new server would keep pg_ctl's captured stdout open.
        self._pg_ctl("-l", str(self.log), "-m", "fast", "restart")

    def halt(self) -> None:
        """Stop the server as `pg_ctl stop -m fast` does, keeping its data: an outage
        that `resume` ends."""
        self._pg_ctl("-m", "fast", "stop")

    def resume(self) -> None:
        """Start a halted server again on the same port (the clients' URLs hold)."""
        self._check("pg_ctl start", self._pg_ctl_start())

    def stop(self) -> None:
        """Stop the server (immediate: the data is thrown away) and delete its files."""
        if self.data.exists():
            self._run(
                str(self.bin_dir / "pg_ctl"),
                "-D",
                str(self.data),
                "-m",
                "immediate",
                "-w",
                "-t",
                str(PG_CTL_WAIT),
                "stop",
            )
        shutil.rmtree(self.root, ignore_errors=True)
