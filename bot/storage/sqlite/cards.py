"""Members' FSRS cards (migration 0005 "review cards"): plain sqlite3 functions.

Every function takes a `sqlite3.Connection` so that it runs inside whatever transaction
the caller holds: `update_card` inside the click's transaction (bot/storage/sqlite/answers.py),
so an acknowledged answer always has its card; `seed_from_answers` inside the migration's
transaction; `delete_member`, `delete_guild` and `export_member` inside the transaction
of the member-deletion and export commands. What a card becomes is decided by
`bot.quiz.memory`; this module reads and writes it. The async read the review round
makes (`CardStore`) is in bot/storage/stores/reads.py, shared with PostgreSQL, so that
this module needs nothing of the database class: the migrations (migrate.py) import its
seeding step.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from itertools import groupby

from bot.quiz.memory import CardState, replay, review
from bot.storage.records import CARD_COLUMNS, card_of, card_values

_UPSERT = (
    "INSERT INTO cards (guild_id, user_id, question_id, " + CARD_COLUMNS + ")"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (guild_id, user_id, question_id) DO UPDATE SET state = excluded.state,"
    " step = excluded.step, stability = excluded.stability,"
    " difficulty = excluded.difficulty, due = excluded.due,"
    " last_review = excluded.last_review, reps = excluded.reps, lapses = excluded.lapses"
)


def getcard_of(
    conn: sqlite3.Connection, guild_id: int, user_id: int, question_id: str
) -> CardState | None:
    row = conn.execute(
        f"SELECT {CARD_COLUMNS} FROM cards WHERE guild_id = ? AND user_id = ? AND question_id = ?",
        (guild_id, user_id, question_id),
    ).fetchone()
    return None if row is None else card_of(row)


def updatecard_of(
    conn: sqlite3.Connection,
    *,
    guild_id: int,
    user_id: int,
    question_id: str,
    correct: bool,
    now_ms: int,
) -> CardState:
    """Schedule the member's card for this question after an answer (creating it)."""
    before = getcard_of(conn, guild_id, user_id, question_id)
    after = review(before, correct=correct, now_ms=now_ms)
    write_card(conn, guild_id, user_id, question_id, after)
    return after


def write_card(
    conn: sqlite3.Connection, guild_id: int, user_id: int, question_id: str, card: CardState
) -> None:
    """Store the member's card for the question (insert or replace)."""
    conn.execute(_UPSERT, (guild_id, user_id, question_id, *card_values(card)))


def member_cards(conn: sqlite3.Connection, guild_id: int, user_id: int) -> dict[str, CardState]:
    """Every card of the member in the server, by question id (one index range)."""
    rows = conn.execute(
        f"SELECT question_id, {CARD_COLUMNS} FROM cards WHERE guild_id = ? AND user_id = ?"
        " ORDER BY due",
        (guild_id, user_id),
    ).fetchall()
    return {str(row[0]): card_of(tuple(row)[1:]) for row in rows}


def _history(conn: sqlite3.Connection) -> Iterator[tuple[int, int, str, int, int]]:
    yield from conn.execute(
        "SELECT guild_id, user_id, question_id, correct, answered_at FROM answers NOT INDEXED"
        " ORDER BY guild_id, user_id, question_id, answered_at, id"
    )


def seed_from_answers(conn: sqlite3.Connection, batch: int = 5_000) -> int:
    """Replay every member's answers, oldest first, into their cards; returns the number
    of cards written. Run by the 0005 migration, in its transaction, on a file whose
    cards table is empty."""
    written = 0
    pending: list[tuple[object, ...]] = []
    for (guild, user, qid), rows in groupby(_history(conn), key=lambda r: (r[0], r[1], r[2])):
        card = replay([(bool(r[3]), int(r[4])) for r in rows])
        pending.append((guild, user, qid, *card_values(card)))
        if len(pending) >= batch:
            conn.executemany(_UPSERT, pending)
            written += len(pending)
            pending.clear()
    conn.executemany(_UPSERT, pending)
    return written + len(pending)


# -- for member deletion and export (another branch wires these in) -------------------


def delete_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    """Delete the member's cards in the server; returns how many."""
    return conn.execute(
        "DELETE FROM cards WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    ).rowcount


def delete_guild(conn: sqlite3.Connection, guild_id: int) -> int:
    """Delete every card of the server; returns how many."""
    return conn.execute("DELETE FROM cards WHERE guild_id = ?", (guild_id,)).rowcount


def export_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> list[dict[str, object]]:
    """The member's cards in the server as plain JSON-ready dicts, by question id."""
    rows = conn.execute(
        f"SELECT question_id, {CARD_COLUMNS} FROM cards WHERE guild_id = ? AND user_id = ?"
        " ORDER BY question_id",
        (guild_id, user_id),
    ).fetchall()
    names = ["question_id", *(c.strip() for c in CARD_COLUMNS.split(","))]
    return [dict(zip(names, tuple(row), strict=True)) for row in rows]
