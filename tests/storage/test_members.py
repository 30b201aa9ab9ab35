"""Forgetting a member: every table as if they never played (bot/storage/sqlite/members.py).

The same random history (several members, posts over ten weeks so that several weeks
and months are summarised, personal tests, daily streaks, two servers) is played into two
real SQLite files: once with member X, once without. After X is forgotten in the first,
every table of the first equals the second (autoincrement ids aside), and every summary
equals the summaries rebuilt from scratch from the remaining answers with migration
0003's INSERT ... SELECT. X is put first, last and in the middle of the ranking.
"""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.storage.migration_files import bundled, split_sql
from bot.storage.sqlite import Storage
from bot.storage.sqlite.members import GUILD_STEPS, MEMBER_STEPS
from tests.factories import make_bank

GUILD, OTHER = 77, 78
X = 999
HOUR = 3_600_000
NOW = datetime(2026, 12, 9, 9, 0, tzinfo=UTC)


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


async def _play(path: Path, seed: int, x_rank: str, *, with_x: bool) -> Storage:
    """Play the history of `seed` into a new file; X's answers only if `with_x`.

    x_rank: 'first' (X answers everything right), 'last' (all wrong) or 'middle'
    (half the questions right).
    """
    storage = await Storage.open(path)
    rng = random.Random(seed)
    questions = list(make_bank())
    now = _ms(NOW)
    users = list(range(1, 16))
    for guild in (GUILD, OTHER):
        for i in range(30):
            q = questions[rng.randrange(len(questions))]
            at = now - (30 - i) * 55 * HOUR
            post = await storage.posts.create(
                guild_id=guild,
                channel_id=1,
                question_id=q.id,
                order=tuple(range(len(q.choices))),
                language="en",
                now_ms=at,
            )
            answering = rng.sample(users, rng.randrange(3, 12)) + [X]
            rng.shuffle(answering)
            for user in answering:
                draw = rng.random()
                if user != X:
                    right = draw < 0.55
                elif x_rank == "middle":  # right on half the questions: 3 points of 6
                    right = questions.index(q) % 2 == 0
                else:
                    right = x_rank == "first"
                choice = q.correct_index if right else (q.correct_index + 1) % len(q.choices)
                when = at + rng.randrange(HOUR)
                if user == X and not with_x:
                    continue  # after every draw, so the others' history stays the same
                await storage.answers.record(
                    guild_id=guild,
                    user_id=user,
                    name=f"u{user}",
                    question=q,
                    choice_index=choice,
                    now_ms=when,
                    post_id=post.id,
                )
        # Personal tests: X's is created in both files (test runs hold no summary and
        # ids must line up); in the file without X it is deleted below.
        for user in (3, X, 5):
            run = await storage.test_runs.create(
                guild_id=guild,
                user_id=user,
                question_ids=tuple(q.id for q in questions[:3]),
                orders=tuple(tuple(range(len(q.choices))) for q in questions[:3]),
                now_ms=now - user * HOUR,
            )
            choices = [rng.randrange(len(q.choices)) for q in questions[:3]]
            if user == X and not with_x:
                continue
            for q, choice in zip(questions[:3], choices, strict=True):
                await storage.answers.record(
                    guild_id=guild,
                    user_id=user,
                    name=f"u{user}",
                    question=q,
                    choice_index=choice,
                    now_ms=now - user * HOUR + 1000,
                    test_run_id=run.id,
                )
        async with storage.db.transaction() as conn:
            for user in (2, X, 7):
                if user == X and not with_x:
                    await conn.execute(
                        "DELETE FROM test_runs WHERE guild_id = ? AND user_id = ?", (guild, X)
                    )
                    continue
                await conn.execute(
                    "INSERT INTO daily_streaks VALUES (?, ?, '2026-12-08', ?, ?)",
                    (guild, user, user, user + 1),
                )
                await conn.execute(
                    "INSERT INTO review_reminders (guild_id, user_id, set_at) VALUES (?, ?, ?)",
                    (guild, user, user),
                )
                await conn.execute(
                    "INSERT INTO reports (guild_id, user_id, question_id, language, reason,"
                    " created_at, resolved_at, resolved_by, note) VALUES (?, ?, 'q', 'en',"
                    " 'typo', ?, ?, ?, 'fixed')",
                    # Member 7's report was resolved by X, an admin: X's id goes from it.
                    (guild, user, user, 5, X if user == 7 and with_x else None),
                )
                # A suggested question each (issue 27); ids fixed, as the files differ.
                await conn.execute(
                    "INSERT INTO suggestions (id, guild_id, user_id, author_name, language,"
                    " text, right_answer, wrong_answers, explanation, source, state,"
                    " created_at, updated_at) VALUES (?, ?, ?, 'n', 'en', 'q?', 'a',"
                    " 'b | c', 'e', 's', 'open', ?, ?)",
                    (guild % 1000 * 100 + user, guild, user, user, user),
                )
            # A question accepted from X's suggestion: forgetting X takes the name off
            # (credit_user_id 0, "a member"), as the file without X has it.
            await conn.execute(
                "INSERT INTO guild_questions (guild_id, question_id, version, topic,"
                " difficulty, languages, body, created_at, credit_user_id, credit_name)"
                " VALUES (?, 'suggestion-1', 1, 'practice', 2, 'en', '{}', 1, ?, ?)",
                (guild, X if with_x else 0, "X" if with_x else None),
            )
        # A quiz night (issue 26): in both files; X's choice only in the file with X, and
        # X hosts it there (forgetting X takes the id off: 0, the host of the other file).
        first = questions[0]
        session, _ = await storage.live.create(
            guild_id=guild, channel_id=2, host_id=X if with_x else 0, language="en", topic="mixed",
            seconds=None, scoring="accuracy", now_ms=now, starts_at=now,
            questions=[(first.id, tuple(range(len(first.choices))), None, 20)] * 3,
        )  # fmt: skip
        await storage.live.start(session.id)
        await storage.live.open_question(session.id, 0, now_ms=now, deadline_at=now + 20_000)
        for user in (2, X, 7):
            if user != X or with_x:
                await storage.live.lock_in(
                    session.id, 0, user_id=user, name=f"u{user}", choice_index=1, now_ms=now
                )
    return storage


def _dump(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows, sorted, without the answers' autoincrement id."""
    conn = sqlite3.connect(path)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        dump = {}
        for table in tables:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            if table in ("answers", "reports"):
                columns.remove("id")
            rows = conn.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
            dump[table] = sorted(rows, key=repr)
        return dump
    finally:
        conn.close()


def _summaries(conn: sqlite3.Connection, prefix: str = "") -> dict[str, list[tuple[object, ...]]]:
    return {
        "members": conn.execute(
            f"SELECT guild_id, user_id, points, answered, correct FROM {prefix}members"
            " ORDER BY 1, 2"
        ).fetchall(),
        "member_periods": conn.execute(
            f"SELECT * FROM {prefix}member_periods ORDER BY 1, 2, 3, 4"
        ).fetchall(),
        # The live code keeps pairs emptied by a member moving on as 0 rows.
        "score_counts": conn.execute(
            f"SELECT * FROM {prefix}score_counts WHERE members > 0 ORDER BY 1, 2, 3, 4, 5"
        ).fetchall(),
        "answer_counts": conn.execute(
            "SELECT id, answer_count FROM posts ORDER BY id"
            if not prefix
            else "SELECT post_id, COUNT(*) FROM answers WHERE post_id IS NOT NULL"
            " GROUP BY post_id ORDER BY post_id"
        ).fetchall(),
    }


def _rebuilt(path: Path) -> tuple[dict[str, list[tuple[object, ...]]], dict[str, list]]:
    """(the file's summaries, the summaries rebuilt from its answers by 0003's SQL)."""
    conn = sqlite3.connect(path)
    try:
        live = _summaries(conn)
        live["answer_counts"] = [r for r in live["answer_counts"] if r[1] > 0]
        conn.execute("CREATE TEMP TABLE r_members AS SELECT * FROM members WHERE 0")
        conn.execute(
            "INSERT INTO r_members (guild_id, user_id, name, points, answered, correct)"
            " SELECT guild_id, user_id, '', SUM(points), COUNT(*), SUM(correct)"
            " FROM answers GROUP BY 1, 2"
        )
        conn.execute("CREATE TEMP TABLE r_member_periods AS SELECT * FROM member_periods WHERE 0")
        conn.execute("CREATE TEMP TABLE r_score_counts AS SELECT * FROM score_counts WHERE 0")
        backfill = next(m for m in bundled() if m.name.startswith("0003_"))
        for statement in split_sql(backfill.sql):
            if statement.startswith("INSERT INTO"):
                statement = statement.replace("INSERT INTO ", "INSERT INTO r_", 1)
                statement = statement.replace("FROM members", "FROM r_members")
                statement = statement.replace("FROM member_periods", "FROM r_member_periods")
                conn.execute(statement)
        return live, _summaries(conn, "r_")
    finally:
        conn.close()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("x_rank", ["first", "middle", "last"])
async def test_forgetting_a_member_leaves_the_database_as_if_they_never_played(
    tmp_path: Path, seed: int, x_rank: str
) -> None:
    with_x = await _play(tmp_path / "with.sqlite3", seed, x_rank, with_x=True)
    without = await _play(tmp_path / "without.sqlite3", seed, x_rank, with_x=False)
    await without.close()
    try:
        # X really is where the case says, before the deletion.
        board = await with_x.standings.all_rows(GUILD, None)
        position = [r.score.user_id for r in board].index(X)
        assert {"first": position == 0, "last": position == len(board) - 1}.get(
            x_rank, 0 < position < len(board) - 1
        ), (x_rank, position)
        before_other = await with_x.privacy.export_member(OTHER, X)

        deleted = await with_x.privacy.forget_member(GUILD, X)
        assert deleted["answers"] > 30 and deleted["test_runs"] == 1
        assert deleted["members"] == 1 and deleted["daily_streaks"] == 1
        assert deleted["review_reminders"] == 1 and deleted["cards"] > 0
        assert deleted["reports"] == 1
        assert deleted["member_periods"] >= 4  # several weeks and two months
        # In the other server X is untouched.
        assert await with_x.privacy.export_member(OTHER, X) == before_other
        assert await with_x.privacy.member_guilds(X) == [OTHER]
        await with_x.privacy.forget_member(OTHER, X)
        assert await with_x.privacy.member_guilds(X) == []
    finally:
        await with_x.close()

    got, expected = _dump(tmp_path / "with.sqlite3"), _dump(tmp_path / "without.sqlite3")
    for table in expected:
        if table == "score_counts":
            got[table] = [r for r in got[table] if r[-1] > 0]
            expected[table] = [r for r in expected[table] if r[-1] > 0]
        assert got[table] == expected[table], table
    live, rebuilt = _rebuilt(tmp_path / "with.sqlite3")
    assert live == rebuilt


async def test_export_lists_every_step_with_notes_and_is_json(tmp_path: Path) -> None:
    storage = await _play(tmp_path / "e.sqlite3", 7, "middle", with_x=True)
    try:
        data = await storage.privacy.export_member(GUILD, X)
        nothing = await storage.privacy.export_member(GUILD, 123456)
    finally:
        await storage.close()
    parsed = json.loads(json.dumps(data))
    assert [s.name for s in MEMBER_STEPS] == [k for k in parsed if not k.startswith("_")][2:]
    for step in MEMBER_STEPS:
        assert parsed["_about"][step.name]["_table"]
        assert parsed[step.name], step.name
        # Every field exported has a note (the ids every row has aside).
        for field in parsed[step.name][0]:
            assert field in parsed["_about"][step.name] or field in ("guild_id", "user_id")
        assert all(
            row.get("user_id", X) == X and row.get("guild_id", GUILD) == GUILD
            for row in parsed[step.name]
        )
    assert all(nothing[step.name] == [] for step in MEMBER_STEPS)


async def test_forgetting_a_guild_deletes_every_row_of_it_and_no_other(tmp_path: Path) -> None:
    storage = await _play(tmp_path / "g.sqlite3", 3, "middle", with_x=True)
    try:
        async with storage.db.transaction() as conn:
            for guild in (GUILD, OTHER):
                await conn.execute(
                    "INSERT INTO daily_settings (guild_id, channel_id, enabled) VALUES (?, 1, 1)",
                    (guild,),
                )
                await conn.execute(
                    "INSERT INTO daily_slots VALUES (?, '2026-12-08', NULL, 'q', 1, 'failed', 0)",
                    (guild,),
                )
                await conn.execute("INSERT INTO guild_settings VALUES (?, 'tr')", (guild,))
        await storage.privacy.mark_removed(GUILD, 0, 10)
        other_before = _dump_guild(tmp_path / "g.sqlite3", OTHER)
        await storage.privacy.forget_guild(GUILD)
    finally:
        await storage.close()
    assert _dump_guild(tmp_path / "g.sqlite3", GUILD) == {}
    assert _dump_guild(tmp_path / "g.sqlite3", OTHER) == other_before
    # Every table with a guild_id column is a step.
    conn = sqlite3.connect(tmp_path / "g.sqlite3")
    try:
        with_guild = {
            name
            for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if any(c[1] == "guild_id" for c in conn.execute(f"PRAGMA table_info({name})"))
        }
    finally:
        conn.close()
    assert with_guild == {s.name for s in GUILD_STEPS}


def _dump_guild(path: Path, guild: int) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        found = {}
        for step in GUILD_STEPS:
            rows = conn.execute(f"SELECT * FROM {step.name} WHERE guild_id = ?", (guild,))
            got = sorted(rows.fetchall(), key=repr)
            if got:
                found[step.name] = got
        return found
    finally:
        conn.close()


async def test_due_removals_are_deleted_and_cancelled_ones_kept(tmp_path: Path) -> None:
    storage = await _play(tmp_path / "r.sqlite3", 1, "middle", with_x=True)
    try:
        await storage.privacy.mark_removed(GUILD, 0, 1000)
        await storage.privacy.mark_removed(GUILD, 500, 5000)  # a replay keeps the first date
        await storage.privacy.mark_removed(OTHER, 0, 1000)
        assert await storage.privacy.cancel_removal(OTHER)
        assert not await storage.privacy.cancel_removal(OTHER)
        assert [p.due_at for p in await storage.privacy.pending_removals()] == [1000]
        assert await storage.privacy.delete_due(999) == []
        assert await storage.privacy.delete_due(1000) == [GUILD]
        assert await storage.privacy.pending_removals() == []
        assert await storage.standings.all_rows(GUILD, None) == []
        assert len(await storage.standings.all_rows(OTHER, None)) > 5
    finally:
        await storage.close()
