"""What one click changes: a pure decision from what was known before it.

A click on an answer button (a post, a daily post, a test or review question) changes
the answer rows, the member's totals and streak, their week and month totals, their
review card, the post's answer count and, on a daily post, their daily streak. Every
one of those is decided here, from a `ClickBefore` that storage reads inside the click's
transaction; storage then writes the `ClickDecision` and decides nothing itself
(bot/storage/sqlite/clicks.py). The schema only guards integrity (one answer per member per
post, one scoring answer per member per question), not these rules.

No discord, no database, no clock: `now_ms` comes in with the click.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from bot.quiz.memory import CardState, review
from bot.quiz.schedule import next_daily_streak
from bot.quiz.scoring import AnswerResult, MemberScore, next_streak, points_for


@dataclass(frozen=True, slots=True)
class Totals:
    """A member's (points, answered, right answers) in one week or month."""

    points: int
    answered: int
    correct: int


@dataclass(frozen=True, slots=True)
class DailyStreak:
    """A member's daily-question streak as stored: the local date of the last daily
    question they answered, the streak then, and their best."""

    last_date: str
    streak: int
    best: int


@dataclass(frozen=True, slots=True)
class DailyBefore:
    """What the daily streak rule needs about the daily post clicked."""

    #: The post's local date (its daily slot).
    day: str
    #: The server's latest delivered daily post before `day`, if any.
    previous_day: str | None
    #: The member's stored streak, None if they never answered a daily question here.
    streak: DailyStreak | None


@dataclass(frozen=True, slots=True)
class Earlier:
    """The member's earlier answer to the same post (or test question)."""

    choice_index: int
    correct: bool
    points: int


@dataclass(frozen=True, slots=True)
class ClickBefore:
    """Everything the rules need, as it stood just before the click."""

    #: The post has closed (always False for a test or review question).
    closed: bool
    #: The member already answered this post or test question.
    earlier: Earlier | None
    #: No earlier first answer by the member to this question in this server.
    first_for_question: bool
    #: The member's running totals in the server, None before their first answer.
    score: MemberScore | None
    week: Totals | None
    month: Totals | None
    #: The member's review card for the question, None before their first answer to it.
    card: CardState | None
    #: For a delivered daily post; None for any other post, test or review.
    daily: DailyBefore | None


@dataclass(frozen=True, slots=True)
class NewAnswer:
    """The answer row to insert."""

    choice_index: int
    correct: bool
    first: bool
    points: int


@dataclass(frozen=True, slots=True)
class ClickDecision:
    """What the click changes; `outcome` says which of the fields apply.

    - "closed": the post had closed; nothing is written and the click scores nothing.
    - "duplicate": the member had answered this post already; nothing is written, and
      `earlier` and `score` describe the standing answer.
    - "recorded": every field below is written.
    """

    outcome: Literal["closed", "duplicate", "recorded"]
    answer: NewAnswer | None = None
    earlier: Earlier | None = None
    #: The member's totals after the click (for "duplicate", as they stand).
    score: MemberScore | None = None
    week: Totals | None = None
    month: Totals | None = None
    card: CardState | None = None
    #: The new daily streak to store (None: unchanged or not a daily post).
    daily: DailyStreak | None = None


def _add(totals: Totals | None, points: int, correct: bool) -> Totals:
    old = totals or Totals(0, 0, 0)
    return Totals(old.points + points, old.answered + 1, old.correct + int(correct))


def _daily_after(daily: DailyBefore) -> DailyStreak:
    old = daily.streak
    streak = next_daily_streak(
        old.streak if old else 0,
        date.fromisoformat(old.last_date) if old else None,
        date.fromisoformat(daily.day),
        date.fromisoformat(daily.previous_day) if daily.previous_day else None,
    )
    if old is None:
        return DailyStreak(daily.day, streak, streak)
    return DailyStreak(max(daily.day, old.last_date), streak, max(streak, old.best))


def decide_click(
    before: ClickBefore,
    *,
    choice_index: int,
    correct_index: int,
    user_id: int,
    name: str,
    now_ms: int,
) -> ClickDecision:
    """The decision for one click on choice `choice_index` of a question whose key is
    `correct_index`, by member `user_id` (display name `name`), at `now_ms`."""
    if before.closed:
        return ClickDecision("closed")
    if before.earlier is not None:
        return ClickDecision("duplicate", earlier=before.earlier, score=before.score)
    correct = choice_index == correct_index
    first = before.first_for_question
    points = points_for(correct=correct, first_for_question=first)
    old = before.score or MemberScore(user_id, name, 0, 0, 0)
    streak = next_streak(old.streak, correct=correct)
    score = MemberScore(
        user_id=user_id,
        name=name,
        points=old.points + points,
        answered=old.answered + 1,
        correct=old.correct + int(correct),
        streak=streak,
        best_streak=max(old.best_streak, streak),
    )
    return ClickDecision(
        "recorded",
        answer=NewAnswer(choice_index, correct, first, points),
        score=score,
        week=_add(before.week, points, correct),
        month=_add(before.month, points, correct),
        card=review(before.card, correct=correct, now_ms=now_ms),
        daily=None if before.daily is None else _daily_after(before.daily),
    )


def reply_of(
    decision: ClickDecision, *, question_id: str, choice_index: int, rank: int
) -> AnswerResult:
    """What the member is told about a "recorded" or "duplicate" decision (`rank` after
    it, read by storage); a duplicate describes the standing answer."""
    assert decision.score is not None
    if decision.outcome == "duplicate":
        earlier = decision.earlier
        assert earlier is not None
        return AnswerResult(
            question_id=question_id,
            choice_index=earlier.choice_index,
            correct=earlier.correct,
            points_awarded=earlier.points,
            duplicate=True,
            score=decision.score,
            rank=rank,
        )
    assert decision.outcome == "recorded" and decision.answer is not None
    return AnswerResult(
        question_id=question_id,
        choice_index=choice_index,
        correct=decision.answer.correct,
        points_awarded=decision.answer.points,
        duplicate=False,
        score=decision.score,
        rank=rank,
    )
