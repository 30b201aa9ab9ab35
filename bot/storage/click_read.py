"""The click's read and its decision, the same on both backends.

Why a neutral module: a click first reads, in one statement inside its transaction,
everything `bot.quiz.click.decide_click` needs (bot/storage/sqlite/clicks.py and
bot/storage/pg/clicks.py say how each backend then writes the decision). That statement
and the mapping of its 32 columns back into a `ClickBefore` are written once, here: a
column added to `BEFORE` shifts the indexes in `before_of` and nowhere else.

`BEFORE_POST` and `BEFORE_TEST` use named parameters (`:guild`, `:user`, ...), SQLite's
form; PostgreSQL numbers them once at import (pg/clicks.py, through bot/storage/sql.py's
`Query`). `before_values` gives the values by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.quiz.click import (
    ClickBefore,
    ClickDecision,
    DailyBefore,
    DailyStreak,
    Earlier,
    Totals,
    decide_click,
)
from bot.quiz.model import Question
from bot.quiz.scoring import MemberScore
from bot.storage.errors import PostGone
from bot.storage.records import card_of

__all__ = [
    "BEFORE_POST",
    "BEFORE_TEST",
    "Buckets",
    "Click",
    "before_of",
    "before_values",
    "decide",
]

#: A click's week and month buckets (`bot.storage.periods.period_buckets`).
Buckets = tuple[tuple[str, int], tuple[str, int]]


@dataclass(frozen=True, slots=True)
class Click:
    """One member's click, as the service hands it to storage."""

    guild_id: int
    user_id: int
    name: str
    question: Question
    choice_index: int
    now_ms: int
    post_id: int | None = None
    test_run_id: int | None = None


def decide(click: Click, before: ClickBefore) -> ClickDecision:
    """`decide_click` for this click (both backends call it)."""
    return decide_click(
        before,
        choice_index=click.choice_index,
        correct_index=click.question.correct_index,
        user_id=click.user_id,
        name=click.name,
        now_ms=click.now_ms,
    )


_BEFORE = (
    "SELECT {closed}, p.id IS NULL, prev.choice_index, prev.correct, prev.points,"
    " NOT EXISTS (SELECT 1 FROM answers WHERE guild_id = :guild AND user_id = :user"
    "  AND question_id = :question AND first = 1),"
    " m.user_id, m.name, m.points, m.answered, m.correct, m.streak, m.best_streak,"
    " w.points, w.answered, w.correct, mo.points, mo.answered, mo.correct,"
    " c.state, c.step, c.stability, c.difficulty, c.due, c.last_review, c.reps, c.lapses,"
    " ds.local_date,"
    " (SELECT MAX(local_date) FROM daily_slots WHERE guild_id = :guild AND status = 'sent'"
    "  AND local_date < ds.local_date),"
    " st.last_date, st.streak, st.best"
    " FROM (SELECT 1) AS one"  # the alias: PostgreSQL 15 needs one (pg/clicks.py)
    " LEFT JOIN posts AS p ON p.id = :post"
    " LEFT JOIN answers AS prev ON {earlier}"
    " LEFT JOIN members AS m ON m.guild_id = :guild AND m.user_id = :user"
    " LEFT JOIN member_periods AS w ON w.guild_id = :guild AND w.period = :week"
    "  AND w.starts_at = :week_start AND w.user_id = :user"
    " LEFT JOIN member_periods AS mo ON mo.guild_id = :guild AND mo.period = :month"
    "  AND mo.starts_at = :month_start AND mo.user_id = :user"
    " LEFT JOIN cards AS c ON c.guild_id = :guild AND c.user_id = :user"
    "  AND c.question_id = :question"
    " LEFT JOIN daily_slots AS ds ON ds.post_id = :post"
    " LEFT JOIN daily_streaks AS st ON ds.local_date IS NOT NULL AND st.guild_id = :guild"
    "  AND st.user_id = :user"
)
BEFORE_POST = _BEFORE.format(
    closed="p.closed_at IS NOT NULL OR p.id IS NULL",
    earlier="prev.post_id = :post AND prev.user_id = :user",
)
# A finished run (test or review round) takes no new answer; a question it holds an
# answer to still replies with that answer (a double click on the last one). Runs finish
# when every question is answered, except review rounds that migration 0011 closed
# because a newer one was open: their unanswered questions must not count a second time
# through that newer round (issue 31).
BEFORE_TEST = _BEFORE.format(
    closed="prev.choice_index IS NULL"
    " AND (SELECT finished_at FROM test_runs WHERE id = :run) IS NOT NULL",
    earlier="prev.test_run_id = :run AND prev.question_id = :question",
)


def before_values(click: Click, buckets: Buckets) -> dict[str, object]:
    """The named parameters of `BEFORE_POST` / `BEFORE_TEST` for `click`."""
    (week, week_start), (month, month_start) = buckets
    return {
        "guild": click.guild_id,
        "user": click.user_id,
        "question": click.question.id,
        "post": click.post_id,
        "run": click.test_run_id,
        "week": week,
        "week_start": week_start,
        "month": month,
        "month_start": month_start,
    }


def before_of(click: Click, row: Sequence[Any]) -> ClickBefore:
    """The `ClickBefore` of the read's one row (its columns in `BEFORE`'s order).

    Raises PostGone when the click's post no longer exists (nothing is written then)."""
    if click.post_id is not None and row[1]:
        raise PostGone(f"post {click.post_id} is gone")
    daily = None
    if row[27] is not None:
        streak = None if row[29] is None else DailyStreak(str(row[29]), int(row[30]), int(row[31]))
        daily = DailyBefore(str(row[27]), row[28], streak)
    return ClickBefore(
        closed=bool(row[0]),
        earlier=None if row[2] is None else Earlier(int(row[2]), bool(row[3]), int(row[4])),
        first_for_question=bool(row[5]),
        score=None if row[6] is None else MemberScore(*row[6:13]),
        week=None if row[13] is None else Totals(*row[13:16]),
        month=None if row[16] is None else Totals(*row[16:19]),
        card=None if row[19] is None else card_of(row[19:27]),
        daily=daily,
    )
