"""Run the ops subcommands in-process against settings from a clean environment."""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.cli import ops as ops_commands

CliRunner = Callable[..., tuple[int, str, str]]
RunRunner = Callable[..., tuple[int, str, str]]


@pytest.fixture
def ops_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean environment (no TPQUIZ_*/DISCORD_* from the caller, no ./.env), cwd=tmp_path.

    Returns the database path the commands will use.
    """
    for name in list(os.environ):
        if name.startswith(("TPQUIZ_", "DISCORD_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "data" / "tpquiz.sqlite3"
    monkeypatch.setenv("TPQUIZ_DB", str(db))
    return db


@pytest.fixture
def cli(ops_env: Path) -> CliRunner:
    """`cli("backup", "dest")` -> (exit status, stdout, stderr), as `tpquiz` would run it."""

    def run(*argv: str) -> tuple[int, str, str]:
        parser = argparse.ArgumentParser(prog="tpquiz")
        ops_commands.register(parser.add_subparsers(dest="command", required=True))
        args = parser.parse_args(argv)
        out, err = io.StringIO(), io.StringIO()
        code = args.func(args, out, err)
        return int(code), out.getvalue(), err.getvalue()

    return run


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Undo `setup_logging`'s process-wide changes (root handlers, hooks, warnings)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in ("discord", "discord.gateway")}
    hooks = sys.excepthook, threading.excepthook
    yield
    logging.captureWarnings(False)
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, saved in levels.items():
        logging.getLogger(name).setLevel(saved)
    sys.excepthook, threading.excepthook = hooks


@pytest.fixture
def tpquiz_run(
    ops_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    restore_logging: None,
) -> RunRunner:
    """`tpquiz_run(DISCORD_TOKEN=...)` -> (exit status, stdout, stderr) of `tpquiz run`,
    in this process (so a test can shorten its retries), with those variables set."""
    from bot.cli import main as cli

    def run(**env: str) -> tuple[int, str, str]:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        code = cli.cmd_run(argparse.Namespace())
        out, err = capsys.readouterr()
        return code, out, err

    return run
