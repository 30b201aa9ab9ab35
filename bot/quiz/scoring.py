"""Scoring rules, the same for posts, daily questions and the test.

A member's first answer to a question in a server earns a point when it is right; any
later answer to that question (another post of it, a retry in the test) still gets full
feedback and counts for accuracy, but never for points, so re-posting cannot farm points.
The storage layer enforces "first" with a unique index; these functions say what follows.
"""

from __future__ import annotations

from dataclasses import dataclass


def points_for(*, correct: bool, first_for_question: bool) -> int:
    return 1 if correct and first_for_question else 0


def next_streak(current: int, *, correct: bool) -> int:
    """Streak = correct answers in a row; a wrong answer resets it."""
    return current + 1 if correct else 0


def accuracy(correct: int, answered: int) -> float:
    return correct / answered if answered else 0.0


@dataclass(frozen=True, slots=True)
class MemberScore:
    """A member's standing in one server."""

    user_id: int
    name: str
    points: int
    answered: int
    correct: int
    streak: int = 0
    best_streak: int = 0

    @property
    def accuracy(self) -> float:
        return accuracy(self.correct, self.answered)


@dataclass(frozen=True, slots=True)
class AnswerResult:
    """What one click did: the outcome shown to the member."""

    question_id: str
    choice_index: int
    correct: bool
    points_awarded: int
    #: True when this member had already answered this post: nothing was recorded now
    #: and the fields describe their first answer.
    duplicate: bool
    score: MemberScore
    rank: int


def weakest_topics(
    per_topic: dict[str, tuple[int, int]], *, min_answers: int = 2, count: int = 2
) -> list[str]:
    """Topics with the lowest accuracy among those answered at least `min_answers` times.

    `per_topic` maps topic -> (answered, correct). Topics answered perfectly are never
    called weak.
    """
    candidates = [
        (accuracy(c, a), -a, topic)
        for topic, (a, c) in per_topic.items()
        if a >= min_answers and c < a
    ]
    return [topic for _, _, topic in sorted(candidates)[:count]]
