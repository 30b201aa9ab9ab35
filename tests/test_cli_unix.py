"""`tpquiz` beside the Unix tools around it (issue 32, part 3): `--version`, the build
named in `doctor`'s first line and `run`'s first log line, and a closed pipe
(`tpquiz questions report | head`) ending quietly, as `grep` and `git` do."""

from __future__ import annotations

import asyncio
import os
import platform
import signal
import socket
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from bot.storage.sqlite import Storage
from tests.test_cli import FAKE_TOKEN, ROOT, tpquiz

#: The version pip installed (the package metadata), not a constant in the code.
INSTALLED = version("tpquiz")
#: What a shell shows for `grep` or `git` ended by SIGPIPE.
SIGPIPE_STATUS = 128 + signal.SIGPIPE
BUILD = (
    f"tpquiz {INSTALLED} (Python {platform.python_version()}, discord.py {version('discord.py')})"
)


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TPQUIZ_"))}
    env["PYTHONPATH"] = str(ROOT)
    env.update(values)
    return env


def test_version_prints_the_installed_version(tmp_path: Path) -> None:
    result = tpquiz("--version", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"tpquiz {INSTALLED}\n", "")


def test_doctor_names_the_build_on_its_first_line(tmp_path: Path) -> None:
    result = tpquiz("doctor", "--offline", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN)
    assert result.stdout.splitlines()[0] == f"doctor: {BUILD}", result.stdout


def test_run_logs_the_build_first(tmp_path: Path) -> None:
    """Discord is a closed port, so `run` is still waiting for it when its first line is read."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        env = _env(
            DISCORD_TOKEN=FAKE_TOKEN,
            DISCORD_API_BASE=f"http://127.0.0.1:{closed.getsockname()[1]}/api/v10",
            TPQUIZ_DB=str(tmp_path / "db.sqlite3"),
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "run"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
        finally:
            proc.kill()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
    assert first.rstrip("\n").endswith(f" INFO     tpquiz: starting {BUILD}"), first


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sets a pipe's size (Linux)")
def test_a_closed_pipe_ends_quietly_with_sigpipes_status(tmp_path: Path) -> None:
    """`tpquiz questions report --json | head -1`: the reader takes one line and goes.

    The pipe is shrunk to one page so that the report (tens of KB of JSON) cannot fit in
    it and the interpreter's buffers: the command is still writing when the reader goes.
    """
    import fcntl

    db = tmp_path / "quiz.sqlite3"

    async def create() -> None:
        await (await Storage.open(db)).close()

    asyncio.run(create())
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "questions", "report", "--json"],
            cwd=tmp_path,
            env=_env(TPQUIZ_DB=str(db)),
            stdout=write_end,
            stderr=subprocess.PIPE,
        )
    finally:
        os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        assert reader.readline() == b"[\n"
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err.decode()) == (SIGPIPE_STATUS, "")
