"""The report's path (`bank_stats_member_rows`: rows carrying each member's accuracy, as
SQLite's per-member pass returns them) gives exactly the figures of the straightforward
definition (`bank_stats`): on random answer sets, on sets where whole thirds tie, and on
the hand-made sets of tests/quiz/test_itemstats.py."""

from __future__ import annotations

import random
import statistics

import pytest

from bot.quiz.itemstats import FirstAnswer, Item, bank_stats
from bot.quiz.itemstats_fast import bank_stats_member_rows, exact_correlation, member_rows
from tests.quiz.test_itemstats import _ability_bank, ans
from tests.quiz.test_itemstats_fast import random_set


def _both(items: list[Item], answers: list[FirstAnswer], reports: dict[str, int] | None = None):
    return bank_stats(items, answers, reports), bank_stats_member_rows(
        items, member_rows(answers), reports
    )


@pytest.mark.parametrize("seed", range(60))
def test_random_sets_give_the_same_figures_flags_and_order(seed: int) -> None:
    items, answers, reports = random_set(seed)
    expected, got = _both(items, answers, reports)
    assert got == expected  # dataclass equality: every figure (floats bit for bit), flag
    assert [s.question_id for s in got] == [s.question_id for s in expected]


@pytest.mark.parametrize("seed", range(20))
def test_members_tied_at_a_thirds_edge_are_split_in_member_order(seed: int) -> None:
    """Few distinct accuracies (every member answers 2-3 questions), so most members of a
    question share theirs with many others and each third ends inside a tie."""
    rng = random.Random(seed)
    items = [Item(f"q{i}", 3, i % 3) for i in range(4)]
    answers = []
    for g in (7, 3):
        for u in rng.sample(range(1000), 90):
            for item in rng.sample(items, rng.choice((2, 3))):
                choice = rng.randrange(3)
                answers.append(
                    FirstAnswer(g, u, item.question_id, choice, choice == item.key_index)
                )
    rng.shuffle(answers)
    expected, got = _both(items, answers)
    assert got == expected
    assert any(sum(s.top_picks) for s in got)


def test_everyone_tied_top_and_bottom_thirds_are_the_first_and_last_members() -> None:
    # Every member 1 of 1 right elsewhere: one level; the thirds are cut by member only.
    answers = []
    for u in range(9):
        answers += [ans(u, "other", 0), ans(u, "q", u % 3)]
    expected, got = _both([Item("q", 3, 0)], answers)
    assert got == expected
    assert (got[0].top_picks, got[0].bottom_picks) == ((1, 1, 1), (1, 1, 1))


def test_the_hand_made_sets_agree() -> None:
    wrong_key = _ability_bank(60, "planted", lambda m, a: 1 if a >= 3 else (0 if m % 2 else 2))
    items = [Item("planted", 4, 0)] + [Item(f"other-{k}", 4, 0) for k in range(5)]
    expected, got = _both(items, wrong_key)
    assert got == expected and "wrong_key" in [f.code for f in got[0].flags]
    few = _ability_bank(29, "planted", lambda m, a: 1 if a >= 3 else 0)
    assert _both(items, few)[1] == _both(items, few)[0]
    easy = [ans(m, "e", 0) for m in range(40)]
    assert _both([Item("e", 2, 0)], easy)[1] == _both([Item("e", 2, 0)], easy)[0]
    two_servers = [ans(1, "q", 0, guild=1), ans(1, "q", 1, guild=2), ans(1, "o", 0, guild=2)]
    assert _both([Item("q", 2, 0)], two_servers)[1] == _both([Item("q", 2, 0)], two_servers)[0]
    assert _both([Item("q", 2, 0)], [])[1] == _both([Item("q", 2, 0)], [])[0]


@pytest.mark.parametrize("seed", range(30))
def test_exact_correlation_is_statistics_correlation_bit_for_bit(seed: int) -> None:
    rng = random.Random(seed)
    points = [
        (rng.randrange(2), rng.randrange(6) / rng.choice((3, 5, 7, 9, 11)))
        for _ in range(rng.randrange(2, 400))
    ]
    pairs: dict[tuple[int, float], int] = {}
    for p in points:
        pairs[p] = pairs.get(p, 0) + 1
    try:
        expected: float | None = statistics.correlation(
            [float(x) for x, _ in points], [y for _, y in points]
        )
    except statistics.StatisticsError:
        expected = None
    assert exact_correlation(pairs) == expected
    assert exact_correlation({(1, 0.5): 1}) is None
    assert exact_correlation({(1, 0.5): 3, (0, 0.5): 2}) is None  # no spread in y
