"""Review cards on real SQLite files: the click's update, the migration's replay of real
answer histories, and the functions member deletion and export call."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.quiz.memory import DAY_MS, replay
from bot.storage.migration_files import bundled
from bot.storage.sqlite import Storage
from bot.storage.sqlite.cards import delete_guild, delete_member, export_member, member_cards
from bot.storage.sqlite.schema import upgrade_script
from tests.factories import make_bank

GUILD, OTHER = 111, 222
ALICE, BOB = 1001, 1002


def _cards_version() -> int:
    """The number of the migration that creates cards (renumbered at merges)."""
    (found,) = [m.version for m in bundled() if m.name.endswith("_review_cards.sql")]
    return found


@pytest.fixture
async def storage(tmp_path: Path):
    s = await Storage.open(tmp_path / "quiz.sqlite3")
    yield s
    await s.close()


async def _answer_post(storage: Storage, qid: str, user: int, choice: int, at: int, guild=GUILD):
    post = await storage.posts.create(
        guild_id=guild, channel_id=5, question_id=qid, order=(0, 1, 2, 3), language="en", now_ms=at
    )
    return await storage.answers.record(
        guild_id=guild,
        user_id=user,
        name="m",
        question=make_bank()[qid],
        choice_index=choice,
        now_ms=at,
        post_id=post.id,
    )


async def test_every_answer_updates_the_card_in_the_click_transaction(storage: Storage) -> None:
    # mlp-split-01: right answer is choice 1.
    await _answer_post(storage, "mlp-split-01", ALICE, 0, 1_000)
    cards = await storage.cards.member_cards(GUILD, ALICE)
    assert cards["mlp-split-01"] == replay([(False, 1_000)])
    assert cards["mlp-split-01"].due_ms == 1_000 + DAY_MS  # wrong: back tomorrow
    await _answer_post(storage, "mlp-split-01", ALICE, 1, 1_000 + DAY_MS)
    again = (await storage.cards.member_cards(GUILD, ALICE))["mlp-split-01"]
    assert again == replay([(False, 1_000), (True, 1_000 + DAY_MS)])
    assert again.reps == 2 and again.due_ms >= 1_000 + 3 * DAY_MS


async def test_a_test_answer_updates_the_card_and_a_duplicate_does_not(storage: Storage) -> None:
    run = await storage.test_runs.create(
        guild_id=GUILD, user_id=BOB, question_ids=("start-01",), orders=((0, 1, 2, 3),), now_ms=5
    )
    q = make_bank()["start-01"]
    for at in (10, 20):  # the second click on the same test question is a duplicate
        await storage.answers.record(
            guild_id=GUILD,
            user_id=BOB,
            name="b",
            question=q,
            choice_index=1,
            now_ms=at,
            test_run_id=run.id,
        )
    assert (await storage.cards.member_cards(GUILD, BOB)) == {
        "start-01": replay([(q.correct_index == 1, 10)])
    }


async def test_a_card_that_fails_to_write_rolls_the_answer_back(storage: Storage) -> None:
    """The card is part of the click's transaction: no card, no answer."""
    await storage.db.conn.execute(
        "CREATE TRIGGER no_cards BEFORE INSERT ON cards BEGIN SELECT RAISE(ABORT, 'x'); END"
    )
    with pytest.raises(sqlite3.IntegrityError):
        await _answer_post(storage, "mlp-split-01", ALICE, 1, 1_000)
    async with storage.db.conn.execute("SELECT COUNT(*) FROM answers") as cur:
        assert (await cur.fetchone())[0] == 0


def _history_file(path: Path) -> dict[tuple[int, int, str], list[tuple[bool, int]]]:
    """A file at the schema before cards, holding answers inserted out of time order."""
    with sqlite3.connect(path) as conn:
        conn.executescript(upgrade_script(bundled()[: _cards_version() - 1]))
        conn.execute(
            "INSERT INTO test_runs (id, guild_id, user_id, question_ids, orders, started_at)"
            " VALUES (1, 111, 1001, '[]', '[]', 0)"
        )
        rows = [
            # (guild, user, question, correct, answered_at, first): not in time order
            (GUILD, ALICE, "q1", 1, 9 * DAY_MS, 0),
            (GUILD, ALICE, "q1", 0, 1 * DAY_MS, 1),
            (GUILD, ALICE, "q1", 1, 3 * DAY_MS, 0),
            (GUILD, ALICE, "q2", 1, 2 * DAY_MS, 1),
            (GUILD, BOB, "q1", 0, 4 * DAY_MS, 1),
            (OTHER, ALICE, "q1", 1, 5 * DAY_MS, 1),
        ]
        for n, (guild, user, qid, correct, at, first) in enumerate(rows):
            conn.execute(
                "INSERT INTO posts (id, guild_id, channel_id, question_id, choice_order,"
                " language, created_at) VALUES (?, ?, 5, ?, '0,1,2,3', 'en', ?)",
                (n + 1, guild, qid, at),
            )
            conn.execute(
                "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
                " choice_index, correct, first, points, answered_at)"
                " VALUES (?, ?, ?, 'basics', ?, 0, ?, ?, ?, ?)",
                (guild, user, qid, n + 1, correct, first, correct * first, at),
            )
    expected: dict[tuple[int, int, str], list[tuple[bool, int]]] = {}
    for guild, user, qid, correct, at, _ in sorted(rows, key=lambda r: r[4]):
        expected.setdefault((guild, user, qid), []).append((bool(correct), at))
    return expected


async def test_the_migration_replays_existing_answers_in_time_order(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    histories = _history_file(path)
    storage = await Storage.open(path)  # migrates, running the seeding step
    try:
        for (guild, user, qid), history in histories.items():
            cards = await storage.cards.member_cards(guild, user)
            assert cards[qid] == replay(history), (guild, user, qid)
        async with storage.db.conn.execute("SELECT COUNT(*) FROM cards") as cur:
            assert (await cur.fetchone())[0] == len(histories) == 4
        alice = (await storage.cards.member_cards(GUILD, ALICE))["q1"]
        assert (alice.reps, alice.lapses) == (3, 0)
        assert alice.last_review_ms == 9 * DAY_MS
    finally:
        await storage.close()


def test_the_dry_run_script_names_the_python_step() -> None:
    (migration,) = [m for m in bundled() if m.version == _cards_version()]
    assert "Then the bot runs a Python step: replay every member's answers" in upgrade_script(
        [migration]
    )


async def test_delete_and_export_touch_only_their_member_and_server(storage: Storage) -> None:
    await _answer_post(storage, "mlp-split-01", ALICE, 1, 1_000)
    await _answer_post(storage, "mlp-split-02", ALICE, 0, 2_000)
    await _answer_post(storage, "mlp-split-01", BOB, 1, 3_000)
    await _answer_post(storage, "mlp-split-01", ALICE, 1, 4_000, guild=OTHER)

    def work(conn: sqlite3.Connection) -> tuple[list[dict[str, object]], int, int, int]:
        exported = export_member(conn, GUILD, ALICE)
        return (
            exported,
            delete_member(conn, GUILD, ALICE),
            len(member_cards(conn, GUILD, BOB)),
            delete_guild(conn, OTHER),
        )

    exported, deleted, bob_left, other_deleted = await storage.db.run_transaction(work)
    assert [row["question_id"] for row in exported] == ["mlp-split-01", "mlp-split-02"]
    assert exported[0]["reps"] == 1 and exported[0]["last_review"] == 1_000
    assert set(exported[0]) == {
        "question_id",
        "state",
        "step",
        "stability",
        "difficulty",
        "due",
        "last_review",
        "reps",
        "lapses",
    }
    assert (deleted, bob_left, other_deleted) == (2, 1, 1)
    assert await storage.cards.member_cards(GUILD, ALICE) == {}
    assert list(await storage.cards.member_cards(GUILD, BOB)) == ["mlp-split-01"]


async def test_weeks_count_the_members_answers_per_week_with_empty_weeks(storage: Storage) -> None:
    monday = 1_764_547_200_000  # Monday 2025-12-01 00:00 UTC
    week = 7 * DAY_MS
    await _answer_post(storage, "mlp-split-01", ALICE, 1, monday + 1)  # right
    await _answer_post(storage, "mlp-split-02", ALICE, 0, monday + 2 * week + 5)  # wrong
    await _answer_post(storage, "mlp-split-01", ALICE, 1, monday + 2 * week + 9)  # right
    await _answer_post(storage, "mlp-split-01", BOB, 1, monday + 2 * week)  # not Alice's
    weeks = await storage.progress.weeks(GUILD, ALICE, monday + 3 * week + 1, count=4)
    assert weeks == [
        (monday, 1, 1),
        (monday + week, 0, 0),
        (monday + 2 * week, 2, 1),
        (monday + 3 * week, 0, 0),
    ]
