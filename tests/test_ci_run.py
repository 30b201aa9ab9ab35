"""`.ci/run` installs PostgreSQL only where no initdb is found, then runs `make test`
with CI=true (so the PostgreSQL tests fail rather than skip without a server)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _run(tmp_path: Path, glob: str) -> tuple[subprocess.CompletedProcess[str], str]:
    stubs = tmp_path / "bin"
    stubs.mkdir()
    calls = tmp_path / "calls"
    _stub(stubs, "apt-get", f'echo "apt-get $*" >> {calls}')
    _stub(stubs, "make", f'echo "make $* CI=$CI" >> {calls}')
    bash = Path(shutil.which("bash") or "/bin/bash").parent
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(PATH=f"{stubs}:{bash}:/usr/bin:/bin", TPQUIZ_PG_BIN_GLOB=glob)
    result = subprocess.run(
        [str(ROOT / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60
    )
    return result, calls.read_text() if calls.exists() else ""


def test_without_initdb_it_installs_postgresql_then_tests(tmp_path: Path) -> None:
    if any(
        (Path(p) / "initdb").exists() for p in ("/usr/bin", "/bin") if Path(p).is_dir()
    ):  # pragma: no cover - an initdb on the default PATH would be found
        pytest.skip("initdb is on /usr/bin or /bin here")
    result, calls = _run(tmp_path, str(tmp_path / "none" / "*" / "bin"))
    assert result.returncode == 0, result.stderr
    assert calls.splitlines() == [
        "apt-get update -qq",
        "apt-get install -y -qq postgresql",
        "make test CI=true",
    ]


def test_with_initdb_it_only_tests(tmp_path: Path) -> None:
    found = tmp_path / "pg" / "15" / "bin"
    found.mkdir(parents=True)
    (found / "initdb").write_text("")
    result, calls = _run(tmp_path, str(tmp_path / "pg" / "*" / "bin"))
    assert result.returncode == 0, result.stderr
    assert calls.splitlines() == ["make test CI=true"]
