"""The package builds as `make run` and the Docker image build it, without a warning (issue 32).

setuptools warns before it stops building a form (the `project.license` TOML table stops
building after 2027-02-18); such a warning is treated as an error here, so the fix lands
before the date, not after a fresh `make run` fails. The build is pip's, with build
isolation: the backend is the newest setuptools allowed by pyproject.toml, downloaded
from PyPI as any install does (CI reaches PyPI too).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: A Python warning as printed: `SetuptoolsDeprecationWarning: ...`, `BuildBackendWarning: ...`
#: (case-sensitive: pip's own "WARNING:" lines are about this machine's pip, not the build).
PYTHON_WARNING = re.compile(r"\b\w*Warning\b")


def _build_context(into: Path) -> Path:
    """The files the Docker image builds from (deploy/Dockerfile.dockerignore's `!` lines):
    a copy, so the build writes no build/ or egg-info into the checkout."""
    into.mkdir()
    ignore = (ROOT / "deploy" / "Dockerfile.dockerignore").read_text(encoding="utf-8")
    for line in ignore.splitlines():
        if not line.startswith("!"):
            continue
        name = line[1:].rstrip("/")
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, into / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )
        else:
            shutil.copy2(source, into / name)
    return into


def test_the_wheel_builds_without_a_warning_and_carries_the_licence(tmp_path: Path) -> None:
    source = _build_context(tmp_path / "src")
    out = tmp_path / "wheels"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    warnings = [line.strip() for line in log.splitlines() if PYTHON_WARNING.search(line)]
    assert warnings == [], "\n".join(warnings)

    (wheel,) = out.glob("tpquiz-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        headers = archive.read(metadata).decode().split("\n\n", 1)[0].splitlines()
        licences = [n for n in archive.namelist() if ".dist-info/licenses/" in n]
    assert "License-Expression: MIT" in headers
    assert "License-File: LICENSE" in headers
    assert [n.rsplit("/", 1)[-1] for n in licences] == ["LICENSE"]


def test_the_licence_file_is_the_mit_licence_pyproject_names() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text
