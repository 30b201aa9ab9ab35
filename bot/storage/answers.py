"""Recording answers: one transaction per click, committed before the member is told.

The scoring rules come from `bot.quiz.scoring`; this module only reads what they need
(is this the member's first answer to the question? their current streak?) and writes
what they decide. Unique indexes make a second answer to the same post impossible even
if two clicks race past the read.

This is the busiest write of the bot (a daily question in a big server: hundreds of
clicks a minute), so the transaction is one plain `sqlite3` function run on the database
thread (`Database.run_transaction`): one round trip to that thread per click instead of
one per statement, which cost more than the SQL itself (docs/performance.md). The reads
the rules need are also one statement (`_before_answer`). Besides the answer and the
member's running totals, a click updates the summaries the leaderboards read (migration
0003): the member's week and month totals (`member_periods`) and the number of members
at each (points, right answers) pair (`score_counts`), from which ranks are summed;
and the member's FSRS card for the question (bot/storage/cards.py, migration 0005), so
every acknowledged answer, whatever it answered (post, daily post, test, review), has
its card.
"""

from __future__ import annotations

import sqlite3

from bot.quiz.model import Question
from bot.quiz.scoring import AnswerResult, MemberScore, next_streak, points_for

from .cards import update_card
from .db import Database
from .standings import period_buckets


class AnswerStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def record(
        self,
        *,
        guild_id: int,
        user_id: int,
        name: str,
        question: Question,
        choice_index: int,
        now_ms: int,
        post_id: int | None = None,
        test_run_id: int | None = None,
    ) -> AnswerResult:
        """Record a member's answer to a post or a test question, once.

        Returns the outcome; when the member had already answered this post (or this
        test question), nothing is written and the first answer's outcome comes back
        with `duplicate=True`.
        """
        if (post_id is None) == (test_run_id is None):
            raise ValueError("an answer belongs to exactly one of a post or a test run")

        def work(conn: sqlite3.Connection) -> AnswerResult:
            return _record(
                conn,
                guild_id=guild_id,
                user_id=user_id,
                name=name,
                question=question,
                choice_index=choice_index,
                now_ms=now_ms,
                post_id=post_id,
                test_run_id=test_run_id,
            )

        return await self.db.run_transaction(work)


def _record(
    conn: sqlite3.Connection,
    *,
    guild_id: int,
    user_id: int,
    name: str,
    question: Question,
    choice_index: int,
    now_ms: int,
    post_id: int | None,
    test_run_id: int | None,
) -> AnswerResult:
    """The transaction of `AnswerStore.record`, on the database thread (plain sqlite3)."""
    buckets = period_buckets(now_ms)
    previous, first, score, in_buckets = _before_answer(
        conn, guild_id, user_id, question.id, post_id, test_run_id, buckets
    )
    if previous is not None:
        choice, correct, points = previous
        assert score is not None
        return AnswerResult(
            question_id=question.id,
            choice_index=choice,
            correct=bool(correct),
            points_awarded=points,
            duplicate=True,
            score=score,
            rank=_rank(conn, guild_id, score),
        )

    correct = choice_index == question.correct_index
    points = points_for(correct=correct, first_for_question=first)
    try:
        conn.execute(
            "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
            " test_run_id, choice_index, correct, first, points, answered_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                guild_id,
                user_id,
                question.id,
                question.topic,
                post_id,
                test_run_id,
                choice_index,
                int(correct),
                int(first),
                points,
                now_ms,
            ),
        )
    except sqlite3.IntegrityError as exc:  # pragma: no cover - the read above guards
        raise RuntimeError(f"answer rejected by the database: {exc}") from exc

    # The member's FSRS card for the question, in this same transaction (issue #12).
    update_card(
        conn,
        guild_id=guild_id,
        user_id=user_id,
        question_id=question.id,
        correct=correct,
        now_ms=now_ms,
    )
    before = score or MemberScore(user_id, name, 0, 0, 0)
    streak = next_streak(before.streak, correct=correct)
    after = MemberScore(
        user_id=user_id,
        name=name,
        points=before.points + points,
        answered=before.answered + 1,
        correct=before.correct + int(correct),
        streak=streak,
        best_streak=max(before.best_streak, streak),
    )
    conn.execute(
        "INSERT INTO members (guild_id, user_id, name, points, answered, correct,"
        " streak, best_streak) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name,"
        " points = excluded.points, answered = excluded.answered,"
        " correct = excluded.correct, streak = excluded.streak,"
        " best_streak = excluded.best_streak",
        (
            guild_id,
            user_id,
            name,
            after.points,
            after.answered,
            after.correct,
            after.streak,
            after.best_streak,
        ),
    )
    _count_score(
        conn,
        guild_id,
        ("all", 0),
        (score.points, score.correct) if score else None,
        (after.points, after.correct),
    )
    # The week's and the month's totals, which the period leaderboards read (0003).
    for bucket, old in zip(buckets, in_buckets, strict=True):
        new = (
            (old[0] if old else 0) + points,
            (old[1] if old else 0) + 1,
            (old[2] if old else 0) + int(correct),
        )
        conn.execute(
            "INSERT INTO member_periods (guild_id, period, starts_at, user_id, points,"
            " answered, correct) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (guild_id, period, starts_at, user_id) DO UPDATE SET"
            " points = excluded.points, answered = excluded.answered,"
            " correct = excluded.correct",
            (guild_id, *bucket, user_id, *new),
        )
        _count_score(conn, guild_id, bucket, (old[0], old[2]) if old else None, (new[0], new[2]))
    if post_id is not None:
        conn.execute("UPDATE posts SET answer_count = answer_count + 1 WHERE id = ?", (post_id,))
    return AnswerResult(
        question_id=question.id,
        choice_index=choice_index,
        correct=correct,
        points_awarded=points,
        duplicate=False,
        score=after,
        rank=_rank(conn, guild_id, after),
    )


def _before_answer(
    conn: sqlite3.Connection,
    guild_id: int,
    user_id: int,
    question_id: str,
    post_id: int | None,
    test_run_id: int | None,
    buckets: tuple[tuple[str, int], tuple[str, int]],
) -> tuple[
    tuple[int, int, int] | None,
    bool,
    MemberScore | None,
    tuple[tuple[int, int, int] | None, tuple[int, int, int] | None],
]:
    """What the scoring rules and the summaries need, in one statement.

    (the member's earlier answer to this post or test question as (choice, correct,
    points), or None; whether this would be their first answer to the question in the
    server; their running score, or None if they never answered here; their (points,
    answered, correct) in the week and the month of `buckets`, or None).
    """
    if post_id is not None:
        earlier = "prev.post_id = :post AND prev.user_id = :user"
    else:
        earlier = "prev.test_run_id = :run AND prev.question_id = :question"
    (week, week_start), (month, month_start) = buckets
    row = conn.execute(
        "SELECT prev.choice_index, prev.correct, prev.points,"
        " NOT EXISTS (SELECT 1 FROM answers WHERE guild_id = :guild AND user_id = :user"
        "  AND question_id = :question AND first = 1),"
        " m.user_id, m.name, m.points, m.answered, m.correct, m.streak, m.best_streak,"
        " w.points, w.answered, w.correct, mo.points, mo.answered, mo.correct"
        " FROM (SELECT 1)"
        f" LEFT JOIN answers AS prev ON {earlier}"
        " LEFT JOIN members AS m ON m.guild_id = :guild AND m.user_id = :user"
        " LEFT JOIN member_periods AS w ON w.guild_id = :guild AND w.period = :week"
        "  AND w.starts_at = :week_start AND w.user_id = :user"
        " LEFT JOIN member_periods AS mo ON mo.guild_id = :guild AND mo.period = :month"
        "  AND mo.starts_at = :month_start AND mo.user_id = :user",
        {
            "guild": guild_id,
            "user": user_id,
            "question": question_id,
            "post": post_id,
            "run": test_run_id,
            "week": week,
            "week_start": week_start,
            "month": month,
            "month_start": month_start,
        },
    ).fetchone()
    previous = None if row[0] is None else (int(row[0]), int(row[1]), int(row[2]))
    score = None if row[4] is None else MemberScore(*row[4:11])
    in_week = None if row[11] is None else (int(row[11]), int(row[12]), int(row[13]))
    in_month = None if row[14] is None else (int(row[14]), int(row[15]), int(row[16]))
    return previous, bool(row[3]), score, (in_week, in_month)


def _count_score(
    conn: sqlite3.Connection,
    guild_id: int,
    bucket: tuple[str, int],
    old: tuple[int, int] | None,
    new: tuple[int, int],
) -> None:
    """Move a member from their old (points, correct) pair to the new one in
    `score_counts` (None: they were not ranked in this period yet). Pairs left with no
    members keep a 0 row: there are only a few dozen per server and period."""
    if old == new:
        return
    key = (guild_id, *bucket)
    if old is not None:
        conn.execute(
            "UPDATE score_counts SET members = members - 1 WHERE guild_id = ? AND period = ?"
            " AND starts_at = ? AND points = ? AND correct = ?",
            (*key, *old),
        )
    conn.execute(
        "INSERT INTO score_counts (guild_id, period, starts_at, points, correct, members)"
        " VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (guild_id, period, starts_at, points, correct)"
        " DO UPDATE SET members = members + 1",
        (*key, *new),
    )


def _rank(conn: sqlite3.Connection, guild_id: int, score: MemberScore) -> int:
    """1 + members strictly ahead (more points, or as many points and more correct),
    summed over the server's few dozen (points, correct) pairs in `score_counts`."""
    row = conn.execute(
        "SELECT 1 + COALESCE(SUM(members), 0) FROM score_counts WHERE guild_id = ?"
        " AND period = 'all' AND starts_at = 0"
        " AND (points > ? OR (points = ? AND correct > ?))",
        (guild_id, score.points, score.points, score.correct),
    ).fetchone()
    return int(row[0])
