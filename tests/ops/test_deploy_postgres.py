"""deploy/docker-compose.postgres.yml: PostgreSQL and two bot replicas splitting the shards.

No Docker engine runs here, so the file is checked by structure (and by `docker compose
config` where the compose plugin is installed): the properties docs/operations.md
"Scaling out" promises must be in it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.infra.config import Settings
from bot.infra.shards import parse_shard_ids

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
COMPOSE = DEPLOY / "docker-compose.postgres.yml"


def _compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _bots(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: s for name, s in compose["services"].items() if name != "postgres"}


def test_postgres_service_official_image_named_volume_health_check() -> None:
    compose = _compose()
    postgres = compose["services"]["postgres"]
    assert postgres["image"].split(":")[0] == "postgres"  # the official image
    (volume,) = postgres["volumes"]
    source, target = volume.split(":")[:2]
    assert source in compose["volumes"] and target == "/var/lib/postgresql/data"
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    assert postgres["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    assert "ports" not in postgres  # reached by the bots only


def test_two_replicas_each_with_half_of_the_shards() -> None:
    bots = _bots(_compose())
    assert len(bots) == 2
    owned: list[int] = []
    counts = set()
    for service in bots.values():
        env = {k: str(v) for k, v in service["environment"].items()}
        assert env["TPQUIZ_DATABASE_URL"].startswith("${TPQUIZ_DATABASE_URL")  # from .env
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert service["healthcheck"]["test"][-2:] == ["tpquiz", "health"]
        assert service["read_only"] is True and "ALL" in service["cap_drop"]
        assert env["TPQUIZ_HEARTBEAT"].startswith("/tmp/") and "/tmp" in service["tmpfs"]
        count = int(env["TPQUIZ_SHARD_COUNT"])
        counts.add(count)
        assert int(env["TPQUIZ_PROCESS_COUNT"]) == len(bots)
        shards = parse_shard_ids(env["TPQUIZ_SHARDS"], count)
        assert len(shards) == count // len(bots)
        owned += shards
        # The bot accepts each replica's settings (the URL is the PostgreSQL backend's).
        settings = Settings.from_env(
            {k: v for k, v in env.items() if k != "TPQUIZ_DATABASE_URL"}, env_file=None
        )
        assert settings.shard_ids == shards and settings.process_count == len(bots)
    (count,) = counts
    assert sorted(owned) == list(range(count)), "every shard run by exactly one replica"


def _compose_plugin() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.skipif(not _compose_plugin(), reason="docker compose is not installed here")
def test_docker_compose_accepts_the_file(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(
        "POSTGRES_PASSWORD=secret\n"
        "TPQUIZ_DATABASE_URL=postgresql://tpquiz:secret@postgres:5432/tpquiz\n",
        encoding="utf-8",
    )
    # A copy beside that .env: `env_file: .env` is read relative to the compose file.
    copy = tmp_path / COMPOSE.name
    copy.write_text(COMPOSE.read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run(
        ["docker", "compose", "-f", str(copy), "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
