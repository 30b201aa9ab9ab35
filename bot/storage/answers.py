"""Recording answers: one transaction per click, committed before the member is told.

The scoring rules come from `bot.quiz.scoring`; this module only reads what they need
(is this the member's first answer to the question? their current streak?) and writes
what they decide. Unique indexes make a second answer to the same post impossible even
if two clicks race past the read.
"""

from __future__ import annotations

import sqlite3

import aiosqlite

from bot.quiz.model import Question
from bot.quiz.scoring import AnswerResult, MemberScore, next_streak, points_for

from .db import Database


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
        async with self.db.transaction() as conn:
            previous = await _previous_answer(conn, post_id, test_run_id, user_id, question.id)
            if previous is not None:
                choice, correct, points = previous
                score = await _member_score(conn, guild_id, user_id)
                assert score is not None
                return AnswerResult(
                    question_id=question.id,
                    choice_index=choice,
                    correct=bool(correct),
                    points_awarded=points,
                    duplicate=True,
                    score=score,
                    rank=await _rank(conn, guild_id, score),
                )

            async with conn.execute(
                "SELECT 1 FROM answers WHERE guild_id = ? AND user_id = ? AND question_id = ?"
                " AND first = 1",
                (guild_id, user_id, question.id),
            ) as cur:
                first = await cur.fetchone() is None
            correct = choice_index == question.correct_index
            points = points_for(correct=correct, first_for_question=first)
            try:
                await conn.execute(
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

            before = await _member_score(conn, guild_id, user_id) or MemberScore(
                user_id, name, 0, 0, 0
            )
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
            await conn.execute(
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
            if post_id is not None:
                await conn.execute(
                    "UPDATE posts SET answer_count = answer_count + 1 WHERE id = ?", (post_id,)
                )
            return AnswerResult(
                question_id=question.id,
                choice_index=choice_index,
                correct=correct,
                points_awarded=points,
                duplicate=False,
                score=after,
                rank=await _rank(conn, guild_id, after),
            )


async def _previous_answer(
    conn: aiosqlite.Connection,
    post_id: int | None,
    test_run_id: int | None,
    user_id: int,
    question_id: str,
) -> tuple[int, int, int] | None:
    if post_id is not None:
        sql = "SELECT choice_index, correct, points FROM answers WHERE post_id = ? AND user_id = ?"
        params: tuple[object, ...] = (post_id, user_id)
    else:
        sql = (
            "SELECT choice_index, correct, points FROM answers"
            " WHERE test_run_id = ? AND question_id = ?"
        )
        params = (test_run_id, question_id)
    async with conn.execute(sql, params) as cur:
        row = await cur.fetchone()
    return (int(row[0]), int(row[1]), int(row[2])) if row else None


async def _member_score(
    conn: aiosqlite.Connection, guild_id: int, user_id: int
) -> MemberScore | None:
    async with conn.execute(
        "SELECT user_id, name, points, answered, correct, streak, best_streak FROM members"
        " WHERE guild_id = ? AND user_id = ?",
        (guild_id, user_id),
    ) as cur:
        row = await cur.fetchone()
    return MemberScore(*row) if row else None


async def _rank(conn: aiosqlite.Connection, guild_id: int, score: MemberScore) -> int:
    """1 + members strictly ahead (more points, or as many points and more correct)."""
    async with conn.execute(
        "SELECT COUNT(*) + 1 FROM members WHERE guild_id = ?"
        " AND (points > ? OR (points = ? AND correct > ?))",
        (guild_id, score.points, score.points, score.correct),
    ) as cur:
        row = await cur.fetchone()
    assert row is not None
    return int(row[0])
