"""Run a bot as a real process against a loopback Discord: start, SIGTERM, SIGKILL.

The benches and the fault drills need the bot exactly as production runs it
(`python -m bot run`, settings from the environment), because a crash, a signal or a
second process holding the database lock can only be tested across a process boundary.

The child runs in its own empty working directory (so a developer's `.env` cannot leak
settings into it) with the repository on PYTHONPATH, and only the variables the bench
sets plus PATH/HOME/LANG; its output goes to a log file, never to a pipe that could fill
up and block it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import secrets
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Environment variables passed through from the parent (nothing tpquiz reads).
_PASS_THROUGH = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


def bot_token(bot_user_id: int) -> str:
    """A token of the shape Discord issues (and `tpquiz run` checks) for a loopback bot.

    The loopback's own default token ("loopback.<id>.<random>") is refused by the bot's
    token check, so the drills and benches assign this one to `LoopbackDiscord.token`.
    """
    user = base64.urlsafe_b64encode(str(bot_user_id).encode()).decode().rstrip("=")
    return f"{user}.{secrets.token_urlsafe(4)}.{secrets.token_urlsafe(27)}"


def bot_env(
    *, rest_base: str, gateway_url: str, token: str, db_path: Path | None, **extra: str
) -> dict[str, str]:
    """The environment of a bot pointed at a loopback Discord (see README "Settings")."""
    env = {name: os.environ[name] for name in _PASS_THROUGH if name in os.environ}
    env.update(
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        DISCORD_API_BASE=rest_base,
        DISCORD_GATEWAY_URL=gateway_url,
        DISCORD_TOKEN=token,
    )
    if db_path is not None:
        env["TPQUIZ_DB"] = str(db_path)
    env.update(extra)
    return env


class BotProcess:
    """One bot child process; `argv` defaults to `python -m bot run`."""

    def __init__(
        self,
        env: Mapping[str, str],
        workdir: Path,
        *,
        argv: Sequence[str] | None = None,
        log_name: str = "bot.log",
    ) -> None:
        self.env = dict(env)
        self.workdir = workdir
        self.argv = list(argv) if argv is not None else [sys.executable, "-m", "bot", "run"]
        self.log_path = workdir / log_name
        self.proc: asyncio.subprocess.Process | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None, "not started"
        return self.proc.pid

    async def start(self) -> BotProcess:
        self.workdir.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv,
                cwd=self.workdir,
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
            )
        return self

    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def send(self, sig: signal.Signals) -> None:
        assert self.proc is not None, "not started"
        if self.proc.returncode is None:
            self.proc.send_signal(sig)

    async def wait(self, timeout: float) -> int:  # noqa: ASYNC109 (a deadline is the point)
        """The exit status; raises TimeoutError if the process is still running."""
        assert self.proc is not None, "not started"
        async with asyncio.timeout(timeout):
            return await self.proc.wait()

    async def terminate(self, timeout: float = 10.0) -> int:  # noqa: ASYNC109
        """SIGTERM and wait for the exit status (what systemd does on `stop`)."""
        self.send(signal.SIGTERM)
        return await self.wait(timeout)

    async def kill(self) -> int:
        """SIGKILL: no handler runs, nothing is flushed; the crash the drills simulate."""
        self.send(signal.SIGKILL)
        return await self.wait(10.0)

    async def stop(self) -> None:
        """Make sure the process is gone (cleanup): SIGTERM, then SIGKILL after 5 s."""
        if not self.running():
            return
        with contextlib.suppress(TimeoutError):
            await self.terminate(5.0)
            return
        await self.kill()

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""
