"""Migration 0008: answers keep the integrity constraints, not the scoring rule."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.storage.migration_files import split_sql
from bot.storage.sqlite import Storage
from bot.storage.sqlite.migrate import migrations

ANSWER = (
    "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id, choice_index,"
    " correct, first, points, answered_at) VALUES (1, ?, 'q', 't', 1, 0, ?, ?, ?, 5)"
)


def _at_version(path: Path, version: int) -> None:
    with sqlite3.connect(path, isolation_level=None) as conn:
        for number, _, sql in migrations():
            if number > version:
                break
            for statement in split_sql(sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
        conn.execute(
            "INSERT INTO posts (id, guild_id, channel_id, question_id, choice_order, language,"
            " created_at) VALUES (1, 1, 2, 'q', '0,1', 'en', 0)"
        )
        conn.execute(ANSWER, (10, 1, 1, 1))
        conn.execute(ANSWER, (11, 0, 1, 0))
        with pytest.raises(sqlite3.IntegrityError):  # 0001's restated scoring rule
            conn.execute(ANSWER, (12, 0, 1, 1))


async def test_the_rebuild_keeps_every_row_and_every_integrity_constraint(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _at_version(path, 7)
    storage = await Storage.open(path)  # applies 0008
    await storage.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute(
            "SELECT user_id, correct, points FROM answers ORDER BY id"
        ).fetchall() == [
            (10, 1, 1),
            (11, 0, 0),
        ]
        conn.execute(ANSWER, (12, 0, 1, 1))  # the rule is bot/quiz/click.py's now
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            conn.execute(ANSWER, (10, 1, 0, 0))  # one answer per member per post
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            conn.execute(ANSWER, (13, 2, 1, 0))  # flags stay 0 or 1
        names = {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'answers'")
        }
        assert names >= {
            "answers",
            "answers_one_per_post",
            "answers_one_per_test_question",
            "answers_first",
            "answers_guild_time",
            "answers_member",
        }
