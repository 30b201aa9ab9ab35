"""`tpquiz forget-user`, `export-user` and `forget-guild`, run as the operator runs them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bot.infra.runlock import hold_run_lock
from bot.storage.member_data import MEMBER_DATA
from bot.storage.sqlite import Storage
from tests.factories import make_bank
from tests.test_cli import tpquiz

GUILD, OTHER = 1_300_000_000_000_000_001, 1_300_000_000_000_000_009
USER, STAYS = 4242, 4343


@pytest.fixture
async def db(tmp_path: Path) -> Path:
    """A database where USER and STAYS answered in two servers."""
    path = tmp_path / "tpquiz.sqlite3"
    storage = await Storage.open(path)
    q = next(iter(make_bank()))
    try:
        for guild in (GUILD, OTHER):
            post = await storage.posts.create(
                guild_id=guild,
                channel_id=1,
                question_id=q.id,
                order=(0, 1, 2, 3),
                language="en",
                now_ms=1000,
            )
            for user in (USER, STAYS):
                await storage.answers.record(
                    guild_id=guild,
                    user_id=user,
                    name=f"u{user}",
                    question=q,
                    choice_index=q.correct_index,
                    now_ms=2000,
                    post_id=post.id,
                )
    finally:
        await storage.close()
    return path


def _rows(path: Path, user: int) -> int:
    conn = sqlite3.connect(path)
    try:
        return sum(
            conn.execute(
                f"SELECT COUNT(*) FROM {t.name} WHERE {t.member_column} = ?", (user,)
            ).fetchone()[0]
            for t in MEMBER_DATA
        )
    finally:
        conn.close()


def test_export_user_prints_json_and_writes_a_file(db: Path, tmp_path: Path) -> None:
    result = tpquiz(
        "export-user", "--user", str(USER), "--guild", str(GUILD), cwd=tmp_path, TPQUIZ_DB=str(db)
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["user_id"] == USER and data["guild_id"] == GUILD
    assert [a["post_id"] for a in data["answers"]] == [1]
    assert data["members"][0]["points"] == 1 and data["_about"]["answers"]["_table"]

    out = tmp_path / "export.json"
    result = tpquiz(
        "export-user", "--user", str(USER), "-o", str(out), cwd=tmp_path, TPQUIZ_DB=str(db)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and "wrote" in result.stderr
    both = json.loads(out.read_text(encoding="utf-8"))
    assert sorted(s["guild_id"] for s in both["servers"]) == [GUILD, OTHER]
    assert oct(out.stat().st_mode & 0o777) == "0o600"


def test_forget_user_in_one_server_then_all(db: Path, tmp_path: Path) -> None:
    before = _rows(db, USER)
    result = tpquiz(
        "forget-user", "--user", str(USER), "--guild", str(GUILD), cwd=tmp_path, TPQUIZ_DB=str(db)
    )
    assert result.returncode == 0, result.stderr
    assert f"user {USER} in server {GUILD}: deleted answers 1," in result.stdout
    assert 0 < _rows(db, USER) < before
    result = tpquiz("forget-user", "--user", str(USER), cwd=tmp_path, TPQUIZ_DB=str(db))
    assert result.returncode == 0, result.stderr
    assert f"in server {OTHER}" in result.stdout
    assert _rows(db, USER) == 0 and _rows(db, STAYS) > 0
    result = tpquiz("forget-user", "--user", str(USER), cwd=tmp_path, TPQUIZ_DB=str(db))
    assert result.returncode == 0 and "nothing stored" in result.stdout


def test_forget_guild_works_beside_a_running_bot(db: Path, tmp_path: Path) -> None:
    # A plain transaction, serialised by SQLite: allowed while the bot holds the lock.
    with hold_run_lock(db):
        result = tpquiz("forget-guild", "--guild", str(GUILD), cwd=tmp_path, TPQUIZ_DB=str(db))
    assert result.returncode == 0, result.stderr
    assert "answers 2, members 2" in result.stdout
    conn = sqlite3.connect(db)
    try:
        guilds = {r[0] for r in conn.execute("SELECT guild_id FROM answers")}
    finally:
        conn.close()
    assert guilds == {OTHER}


def test_forget_under_a_running_older_bot_is_refused(db: Path, tmp_path: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with hold_run_lock(db):
        result = tpquiz("forget-user", "--user", str(USER), cwd=tmp_path, TPQUIZ_DB=str(db))
    assert result.returncode == 1
    assert "older schema" in result.stderr and "Traceback" not in result.stderr
    assert _rows(db, USER) > 0


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("forget-user", "--user", "-1"), "is not a user id"),
        (("export-user", "--user", "12", "--guild", "x"), "is not a server id"),
        (("forget-guild",), "--guild"),
    ],
)
def test_bad_arguments_are_one_sentence(
    tmp_path: Path, args: tuple[str, ...], expected: str
) -> None:
    result = tpquiz(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert expected in result.stderr and "Traceback" not in result.stderr


def test_a_missing_database_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "none.sqlite3"
    result = tpquiz("forget-user", "--user", "5", cwd=tmp_path, TPQUIZ_DB=str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert not path.exists()
