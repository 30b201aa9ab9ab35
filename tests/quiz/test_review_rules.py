"""The review's pure rules with a fixed clock: the rating mapping, the FSRS card through
the fsrs package, and which questions a round brings."""

from __future__ import annotations

import random

from fsrs import Rating, State

from bot.quiz.memory import DAY_MS, mean_retrievability, rating_for, replay, review
from bot.quiz.model import Bank
from bot.quiz.review import outlook, pick_round, topic_order
from tests.factories import make_question

NOW = 1_780_000_000_000  # a fixed instant


def test_wrong_is_again_and_right_is_good() -> None:
    assert rating_for(correct=False) is Rating.Again
    assert rating_for(correct=True) is Rating.Good


def test_a_miss_comes_back_tomorrow_and_right_answers_push_it_days_ahead() -> None:
    missed = review(None, correct=False, now_ms=NOW)
    assert missed.due_ms == NOW + DAY_MS and missed.state == State.Review.value
    right = review(missed, correct=True, now_ms=missed.due_ms)
    assert right.due_ms - missed.due_ms >= 2 * DAY_MS
    again = review(right, correct=True, now_ms=right.due_ms)
    assert again.due_ms - right.due_ms > right.due_ms - missed.due_ms  # growing intervals
    lapse = review(again, correct=False, now_ms=again.due_ms)
    assert lapse.due_ms == again.due_ms + DAY_MS
    assert (lapse.reps, lapse.lapses) == (4, 1)
    assert lapse.stability < again.stability


def test_replay_is_the_fold_of_review() -> None:
    history = [(False, NOW), (True, NOW + DAY_MS), (True, NOW + 5 * DAY_MS)]
    step = None
    for correct, at in history:
        step = review(step, correct=correct, now_ms=at)
    assert replay(history) == step


def test_retention_estimate_falls_with_time() -> None:
    card = review(None, correct=True, now_ms=NOW)
    soon = mean_retrievability([card], NOW + DAY_MS)
    late = mean_retrievability([card], NOW + 30 * DAY_MS)
    assert soon is not None and late is not None and 0 < late < soon < 1
    assert mean_retrievability([], NOW) is None


def _pool() -> Bank:
    return Bank.of(
        [
            make_question("basics-01"),
            make_question("basics-02"),
            make_question("mlp-split-01", topic="mlp-split"),
            make_question("mlp-split-02", topic="mlp-split"),
            make_question("collectives-01", topic="collectives"),
            make_question("memory-01", topic="memory"),
        ]
    )


def test_due_cards_come_first_most_overdue_first_then_new_from_weakest_topics() -> None:
    due = [
        ("basics-01", NOW - DAY_MS),
        ("mlp-split-01", NOW - 3 * DAY_MS),
        ("memory-01", NOW + DAY_MS),  # not due yet
        ("gone-01", NOW - 9 * DAY_MS),  # no longer in the pool
    ]
    per_topic = {"basics": (4, 3), "mlp-split": (2, 0), "memory": (1, 1)}
    chosen = pick_round(
        due=due,
        answered=["basics-01", "mlp-split-01", "memory-01"],
        per_topic=per_topic,
        pool=_pool(),
        now_ms=NOW,
        rng=random.Random(1),
    )
    assert chosen[:2] == ["mlp-split-01", "basics-01"]
    # Then never-answered questions: mlp-split (0%), basics (75%), collectives (never
    # answered); memory-01 is answered and not due, so it is not asked.
    assert chosen[2:] == ["mlp-split-02", "basics-02", "collectives-01"]
    assert len(set(chosen)) == len(chosen)


def test_a_round_stops_at_its_size_and_never_repeats_a_question() -> None:
    due = [(q.id, NOW - i) for i, q in enumerate(_pool())] * 2
    chosen = pick_round(
        due=due, answered=[], per_topic={}, pool=_pool(), now_ms=NOW, rng=random.Random(2), size=4
    )
    assert len(chosen) == 4 and len(set(chosen)) == 4


def test_nothing_due_and_nothing_new_gives_an_empty_round() -> None:
    pool = _pool()
    chosen = pick_round(
        due=[(q.id, NOW + DAY_MS) for q in pool],
        answered=[q.id for q in pool],
        per_topic={},
        pool=pool,
        now_ms=NOW,
        rng=random.Random(3),
    )
    assert chosen == []


def test_topic_order_puts_misses_first_then_unknown_then_perfect() -> None:
    per_topic = {"a": (2, 2), "b": (4, 1), "c": (2, 1)}
    assert topic_order(per_topic, ["a", "b", "c", "d"]) == ["b", "c", "d", "a"]


def test_outlook_counts_tomorrow_and_the_week_and_the_next_due() -> None:
    times = [NOW - 5, NOW + 10, NOW + DAY_MS, NOW + 3 * DAY_MS, NOW + 8 * DAY_MS]
    found = outlook(times, NOW)
    assert (found.tomorrow, found.week, found.next_due_ms) == (2, 3, NOW + 10)
    assert outlook([], NOW).next_due_ms is None
