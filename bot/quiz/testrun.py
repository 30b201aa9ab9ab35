"""The personal test: the starting quiz run one question after another.

A run is a fixed list of questions with a fixed choice order for each, chosen when it
starts, so a restart in the middle shows the same letters.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.quiz.model import STARTING_TAG, Bank, Question
from bot.quiz.picking import shuffled_order


@dataclass(frozen=True, slots=True)
class TestPlan:
    __test__ = False  # not a pytest test class

    question_ids: tuple[str, ...]
    orders: tuple[tuple[int, ...], ...]


def plan_test(bank: Bank, rng: random.Random, *, tag: str = STARTING_TAG) -> TestPlan:
    questions = bank.tagged(tag)
    if not questions:
        raise LookupError(f"no questions tagged {tag!r} in the bank")
    return TestPlan(
        question_ids=tuple(q.id for q in questions),
        orders=tuple(shuffled_order(len(q.choices), rng) for q in questions),
    )


@dataclass(frozen=True, slots=True)
class TestAnswer:
    __test__ = False  # not a pytest test class

    question: Question
    order: tuple[int, ...]
    choice_index: int | None  # None: not answered

    @property
    def correct(self) -> bool:
        return self.choice_index == self.question.correct_index


def score_run(answers: list[TestAnswer]) -> tuple[int, int]:
    """(right, total) for a finished or partial run."""
    return sum(1 for a in answers if a.correct), len(answers)
