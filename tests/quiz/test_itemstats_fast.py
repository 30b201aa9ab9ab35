"""The fast path (`bank_stats_rows`, plain tuples) gives exactly the figures of the
straightforward definition (`bank_stats`, `FirstAnswer` records) on random answer sets."""

from __future__ import annotations

import random

import pytest

from bot.quiz.itemstats import FirstAnswer, Item, bank_stats
from bot.quiz.itemstats_fast import bank_stats_rows


def random_set(seed: int) -> tuple[list[Item], list[FirstAnswer], dict[str, int]]:
    rng = random.Random(seed)
    items = [
        Item(f"q{i}", rng.choice((2, 3, 4)), 0, computed=rng.random() < 0.2)
        for i in range(rng.randrange(1, 25))
    ]
    items = [Item(it.question_id, it.n_choices, rng.randrange(it.n_choices), it.computed)
             for it in items]  # fmt: skip
    # Answers to a question outside `items` still count for members' accuracy.
    extra = Item("gone", 4, 1)
    skill = {(g, u): rng.random() for g in (1, 2, 3) for u in range(rng.randrange(2, 120))}
    answers = []
    for (g, u), p in skill.items():
        for item in rng.sample([*items, extra], rng.randrange(0, len(items) + 2)):
            if rng.random() < p:
                choice = item.key_index
            else:
                choice = rng.randrange(item.n_choices)
            answers.append(FirstAnswer(g, u, item.question_id, choice, choice == item.key_index))
    rng.shuffle(answers)
    reports = {it.question_id: rng.randrange(0, 4) for it in items if rng.random() < 0.3}
    return items, answers, reports


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_gives_the_same_figures_flags_and_order(seed: int) -> None:
    items, answers, reports = random_set(seed)
    rows = [(a.guild_id, a.user_id, a.question_id, a.choice_index, int(a.correct))
            for a in answers]  # fmt: skip
    expected = bank_stats(items, answers, reports)
    got = bank_stats_rows(items, rows, reports)
    assert got == expected  # dataclass equality: every figure, flag and the order
    assert [s.question_id for s in got] == [s.question_id for s in expected]


def test_the_random_sets_exercise_flags_and_thirds() -> None:
    """Guard that the comparison above is not vacuous: flags and thirds do occur."""
    flagged = ranked = 0
    for seed in range(40):
        items, answers, reports = random_set(seed)
        for s in bank_stats(items, answers, reports):
            flagged += s.flagged
            ranked += sum(s.top_picks) > 0
    assert flagged > 20 and ranked > 100
