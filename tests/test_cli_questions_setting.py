"""TPQUIZ_QUESTIONS (issue 10 item 19) and `tpquiz run` loading the bank once (item 21)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import pytest

from bot.bank import loader
from bot.cli import main as cli
from bot.infra.config import ConfigError, Settings
from tests.test_cli import FAKE_TOKEN, tpquiz

EMPTY_ENTRY = (
    "TPQUIZ_QUESTIONS has an empty entry (a leading, trailing or doubled ':'); remove it, "
    "or write '.' for the working directory"
)


@pytest.mark.parametrize("value", ["bank:", ":bank", "a::b", "bank: "])
def test_an_empty_entry_is_refused(value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({"TPQUIZ_QUESTIONS": value}, env_file=None)
    assert str(raised.value) == EMPTY_ENTRY


def test_run_refuses_a_trailing_colon_instead_of_adding_the_working_directory(
    tmp_path: Path,
) -> None:
    (tmp_path / "stray.yaml").write_text("- id: not-a-question\n")
    result = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_QUESTIONS="bank:")
    assert result.returncode == 2
    assert result.stderr == f"tpquiz: {EMPTY_ENTRY}\n"


def test_paths_are_split_and_home_expanded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/quiz")
    settings = Settings.from_env({"TPQUIZ_QUESTIONS": "~/bank:extra.yaml"}, env_file=None)
    assert settings.question_paths == (Path("/home/quiz/bank"), Path("extra.yaml"))


def test_run_loads_and_checks_the_bank_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The near-duplicate check is start-up's slow part: `cmd_run` does it, `run_bot` reuses it."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("DISCORD_", "TPQUIZ_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("DISCORD_TOKEN", FAKE_TOKEN)
    monkeypatch.setenv("TPQUIZ_DB", str(tmp_path / "quiz.sqlite3"))
    calls: list[object] = []
    real = loader.check_files

    def counting(paths: Any) -> Any:
        calls.append(paths)
        return real(paths)

    monkeypatch.setattr(loader, "check_files", counting)
    started: list[tuple[object, object]] = []

    async def fake_run_bot(settings: Settings, token: str, bank: object, templates: object) -> None:
        started.append((bank, templates))

    monkeypatch.setattr(cli, "run_bot", fake_run_bot)
    assert cli.cmd_run(argparse.Namespace()) == 0
    assert len(calls) == 1
    assert len(started) == 1 and len(started[0][0]) == len(loader.load_bank())  # type: ignore[arg-type]
