"""Python steps that run after a migration's SQL, in the same transaction.

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

from bot.storage.sqlite.cards import seed_from_answers


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
