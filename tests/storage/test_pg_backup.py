"""`tpquiz backup` with TPQUIZ_DATABASE_URL: no file is copied, the pg_dump command is
printed without the password, and the exit status says nothing was backed up."""

from __future__ import annotations

import shlex
from datetime import UTC, datetime
from pathlib import Path

from bot.infra.config import DatabaseUrl
from bot.storage.sqlite.backup import pg_dump_command
from tests.test_cli import tpquiz

URL = "postgresql://tpquiz:p%40ss-9@db.internal:5433/tpquiz?sslmode=require&password=p%40ss-9"


def test_the_command_names_the_file_and_the_url_without_the_password(tmp_path: Path) -> None:
    command = pg_dump_command(DatabaseUrl(URL), tmp_path / "my dump")
    assert command == (
        "PGPASSWORD=*** pg_dump --format=custom"
        f" --file={shlex.quote(str(tmp_path / 'my dump'))}"
        " 'postgresql://tpquiz@db.internal:5433/tpquiz?sslmode=require'"
    )
    at = datetime(2026, 12, 3, 2, 0, tzinfo=UTC)
    into_dir = pg_dump_command(DatabaseUrl("postgresql://u@h/d"), tmp_path, now=at)
    assert into_dir == (
        f"pg_dump --format=custom --file={tmp_path}/tpquiz-20261203T020000Z.dump postgresql://u@h/d"
    )


def test_backup_on_postgresql_writes_nothing_and_prints_pg_dump(tmp_path: Path) -> None:
    result = tpquiz("backup", str(tmp_path / "b.dump"), cwd=tmp_path, TPQUIZ_DATABASE_URL=URL)
    assert result.returncode == 1
    assert result.stdout.startswith("PGPASSWORD=*** pg_dump --format=custom --file=")
    assert result.stderr.startswith(
        "tpquiz backup: TPQUIZ_DATABASE_URL is set (postgresql://tpquiz:***@db.internal:5433/"
    )
    assert "nothing was written" in result.stderr and "pg_restore" in result.stderr
    assert "p%40ss" not in result.stdout + result.stderr and "p@ss" not in result.stderr
    assert list(tmp_path.iterdir()) == []
