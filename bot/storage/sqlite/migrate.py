"""The SQLite migrations: the bundled files, their Python steps, and how one is applied.

The files are found and their headers read by bot/storage/migration_files.py, the same
way for both backends; what is SQLite's alone is here.

Why a module of its own: the database (db.py) applies migrations at open, `tpquiz db
status`/`upgrade --dry-run` (schema.py) list and print them, the preflight checks and
backups compare a file's version with the newest, and one migration ("review cards")
runs Python that lives with the cards (cards.py). Kept here, below all of them, the
imports run one way: db.py, schema.py, preflight.py and backup.py -> migrate.py ->
cards.py, and cards.py needs nothing of the database class.

Some upgrades cannot be written in SQL: seeding review cards (migration "review cards")
replays each member's answers through the FSRS scheduler. A step is keyed by the
migration's file name without its number (`0005_review_cards.sql` -> `review_cards`), so
renumbering a migration when branches merge does not lose its step. `tpquiz db upgrade
--dry-run` prints the step's `what` after the SQL (bot/storage/sqlite/schema.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from bot.storage.migration_files import numbered, split_sql
from bot.storage.sqlite.cards import seed_from_answers

__all__ = ["STEPS", "Step", "apply_migration", "migration_step", "migrations"]


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every bundled SQLite migration, in order."""
    return numbered("sqlite")


@dataclass(frozen=True)
class Step:
    what: str
    #: Runs on the migration's connection, inside its transaction; returns a count to log.
    run: Callable[[sqlite3.Connection], int]


STEPS: dict[str, Step] = {
    "review_cards": Step(
        "replay every member's answers in time order through FSRS into cards (cards written)",
        seed_from_answers,
    ),
}


def migration_step(name: str) -> Step | None:
    """The step of migration file `name` (e.g. '0005_review_cards.sql'), if it has one."""
    stem = name.removesuffix(".sql")
    return STEPS.get(stem.partition("_")[2])


def apply_migration(
    sql: str, version: int, step: Step | None, conn: sqlite3.Connection
) -> int | None:
    """One migration on the database thread, inside its transaction: the SQL, its Python
    step if it has one (its count is returned for the log), then the new user_version."""
    # executescript would COMMIT on its own; run statement by statement instead.
    for statement in split_sql(sql):
        conn.execute(statement)
    done = None if step is None else step.run(conn)
    conn.execute(f"PRAGMA user_version = {version:d}")
    return done
