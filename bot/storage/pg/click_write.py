"""A recorded click's member rows and its rank in one PostgreSQL statement.

Why: on PostgreSQL each statement of the click transaction is a round trip to the server,
and a recorded click used to make eight of them after its read (the answer, the card,
the member, two period rows, the post's count, the daily streak, the rank). Here they
are one statement of data-modifying CTEs; `score_counts` stays as it was (its own
statements, in the increasing row order that keeps clicks of different members from
deadlocking: CTEs run in no promised order).

Why the rank may come from the same statement: its SELECT sees the rows as they were
before the statement (every CTE works on one snapshot), so the member's `score_counts`
move is not in it whichever runs first. That does not change the rank: it counts
members strictly ahead of the new (points, correct), and the member's old pair is never
above the new one (totals never go down), so they are not ahead of it before the move
nor after. Every other member is read as committed, as the separate query read them.
"""

from __future__ import annotations

import re

import asyncpg

from bot.quiz.click import ClickDecision

from ..cards import _COLUMNS as _CARD_COLUMNS
from ..clicks import Click

Buckets = tuple[tuple[str, int], tuple[str, int]]

_NAMED = re.compile(r"(?<!:):([a-z_]+)")


def positional(sql: str) -> tuple[str, list[str]]:
    """SQLite's `:name` placeholders as PostgreSQL's $1, $2, ...; and the names in order."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in names:
            names.append(name)
        return f"${names.index(name) + 1}"

    return _NAMED.sub(number, sql), names


_WRITE, _NAMES = positional(
    "WITH a AS (INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
    " test_run_id, choice_index, correct, first, points, answered_at)"
    " VALUES (:guild, :user, :question, :topic, :post, :run, :choice, :a_correct,"
    " :a_first, :a_points, :now)),"
    f" c AS (INSERT INTO cards (guild_id, user_id, question_id, {_CARD_COLUMNS})"
    " VALUES (:guild, :user, :question, :state, :step, :stability, :difficulty, :due,"
    " :last_review, :reps, :lapses)"
    " ON CONFLICT (guild_id, user_id, question_id) DO UPDATE SET state = excluded.state,"
    " step = excluded.step, stability = excluded.stability,"
    " difficulty = excluded.difficulty, due = excluded.due,"
    " last_review = excluded.last_review, reps = excluded.reps, lapses = excluded.lapses),"
    " m AS (INSERT INTO members (guild_id, user_id, name, points, answered, correct,"
    " streak, best_streak) VALUES (:guild, :user, :name, :points, :answered, :correct,"
    " :streak, :best_streak)"
    " ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name,"
    " points = excluded.points, answered = excluded.answered,"
    " correct = excluded.correct, streak = excluded.streak,"
    " best_streak = excluded.best_streak),"
    " w AS (INSERT INTO member_periods (guild_id, period, starts_at, user_id, points,"
    " answered, correct) VALUES"
    " (:guild, :w_period, :w_starts, :user, :w_points, :w_answered, :w_correct),"
    " (:guild, :m_period, :m_starts, :user, :m_points, :m_answered, :m_correct)"
    " ON CONFLICT (guild_id, period, starts_at, user_id) DO UPDATE SET"
    " points = excluded.points, answered = excluded.answered,"
    " correct = excluded.correct),"
    " p AS (UPDATE posts SET answer_count = answer_count + 1 WHERE id = :post),"
    " d AS (INSERT INTO daily_streaks (guild_id, user_id, last_date, streak, best)"
    " SELECT :guild, :user, :d_last::text, :d_streak::integer, :d_best::integer"
    " WHERE :d_last::text IS NOT NULL"
    " ON CONFLICT (guild_id, user_id) DO UPDATE SET"
    " last_date = excluded.last_date, streak = excluded.streak, best = excluded.best)"
    " SELECT 1 + COALESCE(SUM(members), 0) FROM score_counts WHERE guild_id = :guild"
    " AND period = 'all' AND starts_at = 0"
    " AND (points > :points OR (points = :points AND correct > :correct))"
)


async def write_member_rows(
    conn: asyncpg.Connection, click: Click, buckets: Buckets, decision: ClickDecision
) -> int:
    """Write a "recorded" decision's rows outside `score_counts`; return the rank."""
    answer, score, card = decision.answer, decision.score, decision.card
    week, month, daily = decision.week, decision.month, decision.daily
    assert answer is not None and score is not None and card is not None
    assert week is not None and month is not None
    values: dict[str, object] = {
        "guild": click.guild_id,
        "user": click.user_id,
        "question": click.question.id,
        "topic": click.question.topic,
        "post": click.post_id,
        "run": click.test_run_id,
        "choice": answer.choice_index,
        "a_correct": int(answer.correct),
        "a_first": int(answer.first),
        "a_points": answer.points,
        "now": click.now_ms,
        "state": card.state,
        "step": card.step,
        "stability": card.stability,
        "difficulty": card.difficulty,
        "due": card.due_ms,
        "last_review": card.last_review_ms,
        "reps": card.reps,
        "lapses": card.lapses,
        "name": score.name,
        "points": score.points,
        "answered": score.answered,
        "correct": score.correct,
        "streak": score.streak,
        "best_streak": score.best_streak,
        "w_period": buckets[0][0],
        "w_starts": buckets[0][1],
        "w_points": week.points,
        "w_answered": week.answered,
        "w_correct": week.correct,
        "m_period": buckets[1][0],
        "m_starts": buckets[1][1],
        "m_points": month.points,
        "m_answered": month.answered,
        "m_correct": month.correct,
        "d_last": daily.last_date if daily else None,
        "d_streak": daily.streak if daily else None,
        "d_best": daily.best if daily else None,
    }
    rank = await conn.fetchval(_WRITE, *(values[n] for n in _NAMES))
    return int(rank)
