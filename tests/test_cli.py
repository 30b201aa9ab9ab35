"""The `tpquiz` command as a user runs it: exit codes and what it prints."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.storage.sqlite import Storage
from tests.factories import make_bank

ROOT = Path(__file__).resolve().parents[1]
FAKE_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.abcdefghijklmnopqrstuvwxyz0123"


def tpquiz(
    *args: str, cwd: Path, prefix: Sequence[str] = (), **env: str
) -> subprocess.CompletedProcess[str]:
    """`tpquiz ARGS` in a subprocess (run through `prefix`, e.g. tests.mounts.bound_by_modes)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TPQUIZ_"))}
    clean["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [*prefix, sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_run_without_a_token_says_how_to_set_it(tmp_path: Path) -> None:
    result = tpquiz("run", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1, result.stderr
    assert "DISCORD_TOKEN is not set" in result.stderr and ".env" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_malformed_token_is_refused_without_echoing_it(tmp_path: Path) -> None:
    secret = "not-a-token-but-a-secret-value"
    result = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=secret)
    assert result.returncode == 2
    assert "does not look like a bot token" in result.stderr
    assert secret not in result.stderr + result.stdout


def test_the_token_can_come_from_a_dotenv_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=Bot abc\n")
    result = tpquiz("run", cwd=tmp_path)
    assert result.returncode == 2
    assert "without the 'Bot ' prefix" in result.stderr


def test_run_refuses_an_invalid_bank_with_file_line_messages(tmp_path: Path) -> None:
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "broken.yaml").write_text("- id: q-1\n  topic: nonsense\n")
    result = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_QUESTIONS=str(bank))
    assert result.returncode == 1
    assert "the question bank is invalid" in result.stderr
    assert "bank/broken.yaml:2: q-1: topic:" in result.stderr
    assert FAKE_TOKEN not in result.stderr


@pytest.fixture
def answered_db(tmp_path: Path) -> Path:
    path = tmp_path / "quiz.sqlite3"

    async def fill() -> None:
        storage = await Storage.open(path)
        q = make_bank()["mlp-split-01"]
        for user, choice in ((1, 1), (2, 0), (3, 1)):
            post = await storage.posts.create(
                guild_id=9,
                channel_id=1,
                question_id=q.id,
                order=(0, 1, 2, 3),
                language="en",
                now_ms=0,
            )
            await storage.answers.record(
                guild_id=9,
                user_id=user,
                name=f"user{user}",
                question=q,
                choice_index=choice,
                now_ms=1,
                post_id=post.id,
            )
        await storage.close()

    asyncio.run(fill())
    return path


def test_leaderboard_json_for_scripts(tmp_path: Path, answered_db: Path) -> None:
    result = tpquiz(
        "leaderboard", "--guild", "9", "--json", cwd=tmp_path, TPQUIZ_DB=str(answered_db)
    )
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [(r["user_id"], r["points"], r["answered"], r["correct"]) for r in rows] == [
        (1, 1, 1, 1),
        (3, 1, 1, 1),
        (2, 0, 1, 0),
    ]
    text = tpquiz("leaderboard", "--guild", "9", cwd=tmp_path, TPQUIZ_DB=str(answered_db))
    assert text.returncode == 0 and "user1" in text.stdout.splitlines()[1]
    other = tpquiz(
        "leaderboard", "--guild", "10", "--json", cwd=tmp_path, TPQUIZ_DB=str(answered_db)
    )
    assert json.loads(other.stdout) == []


def test_leaderboard_without_a_database_is_a_clear_error(tmp_path: Path) -> None:
    result = tpquiz(
        "leaderboard", "--guild", "9", cwd=tmp_path, TPQUIZ_DB=str(tmp_path / "none.db")
    )
    assert result.returncode == 2 and "no database at" in result.stderr


@pytest.mark.parametrize("guild", ["99999999999999999999", "-9", "٣", "nine"])
def test_leaderboard_refuses_a_guild_id_no_server_can_have(
    tmp_path: Path, answered_db: Path, guild: str
) -> None:
    result = tpquiz("leaderboard", "--guild", guild, cwd=tmp_path, TPQUIZ_DB=str(answered_db))
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        f"tpquiz leaderboard: error: argument --guild: {guild!r} is not a server id (a number"
        " of up to 19 digits, e.g. 123456789012345678)"
    )
    assert "Traceback" not in result.stderr
