"""Domain rules: plain, fast, with a fixed random source and clock."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone

import pytest

from bot.quiz.model import lang_for_locale
from bot.quiz.periods import period_start
from bot.quiz.picking import NoQuestions, pick_question, shuffled_order
from bot.quiz.scoring import accuracy, next_streak, points_for, weakest_topics
from bot.quiz.testrun import TestAnswer, plan_test, score_run
from tests.factories import make_bank


def test_only_a_first_right_answer_scores() -> None:
    assert points_for(correct=True, first_for_question=True) == 1
    assert points_for(correct=True, first_for_question=False) == 0
    assert points_for(correct=False, first_for_question=True) == 0
    assert points_for(correct=False, first_for_question=False) == 0


def test_streak_counts_right_answers_in_a_row() -> None:
    streak = 0
    for correct in (True, True, True, False, True):
        streak = next_streak(streak, correct=correct)
    assert streak == 1
    assert next_streak(4, correct=True) == 5


def test_accuracy_of_nothing_is_zero() -> None:
    assert accuracy(0, 0) == 0.0
    assert accuracy(3, 4) == 0.75


def test_weakest_topics_ignore_thin_and_perfect_topics() -> None:
    per_topic = {"basics": (4, 4), "memory": (5, 1), "overlap": (1, 0), "collectives": (4, 2)}
    assert weakest_topics(per_topic) == ["memory", "collectives"]
    assert weakest_topics({"basics": (3, 3)}) == []


@pytest.mark.parametrize(
    ("now", "week", "month"),
    [
        # Wednesday 2 Dec 2026 -> Monday 30 Nov; month from 1 Dec.
        (
            datetime(2026, 12, 2, 15, 30, tzinfo=UTC),
            datetime(2026, 11, 30, tzinfo=UTC),
            datetime(2026, 12, 1, tzinfo=UTC),
        ),
        # Monday 00:00 exactly starts a new week.
        (
            datetime(2026, 11, 30, 0, 0, tzinfo=UTC),
            datetime(2026, 11, 30, tzinfo=UTC),
            datetime(2026, 11, 1, tzinfo=UTC),
        ),
        # Sunday 23:59 belongs to the week before.
        (
            datetime(2026, 11, 29, 23, 59, tzinfo=UTC),
            datetime(2026, 11, 23, tzinfo=UTC),
            datetime(2026, 11, 1, tzinfo=UTC),
        ),
    ],
)
def test_periods_start_monday_and_first_of_month_utc(
    now: datetime, week: datetime, month: datetime
) -> None:
    assert period_start("week", now) == week
    assert period_start("month", now) == month
    assert period_start("all", now) is None


def test_periods_use_utc_even_for_a_local_clock() -> None:
    # 01:00 Monday in Istanbul is still Sunday 22:00 UTC.
    istanbul = timezone(timedelta(hours=3))
    now = datetime(2026, 11, 30, 1, 0, tzinfo=istanbul)
    assert period_start("week", now) == datetime(2026, 11, 23, tzinfo=UTC)


def test_shuffle_is_a_permutation_and_moves_the_answer() -> None:
    rng = random.Random(7)
    orders = [shuffled_order(4, rng) for _ in range(200)]
    assert all(sorted(o) == [0, 1, 2, 3] for o in orders)
    # The right answer (choice 0) lands on every letter over many posts.
    assert {o.index(0) for o in orders} == {0, 1, 2, 3}


def test_pick_avoids_recent_posts_then_reuses_the_oldest() -> None:
    bank = make_bank()
    rng = random.Random(1)
    q = pick_question(bank, rng, topic="mlp-split", recent=["mlp-split-01"])
    assert q.id == "mlp-split-02"
    # Both were posted lately: the one posted longest ago comes back.
    q = pick_question(bank, rng, topic="mlp-split", recent=["mlp-split-02", "mlp-split-01"])
    assert q.id == "mlp-split-01"
    with pytest.raises(NoQuestions):
        pick_question(bank, rng, topic="inference")


def test_test_plan_is_the_starting_quiz_in_id_order() -> None:
    bank = make_bank()
    plan = plan_test(bank, random.Random(3))
    assert plan.question_ids == ("start-01", "start-02", "start-03")
    assert [sorted(o) for o in plan.orders] == [[0, 1, 2, 3]] * 3
    answers = [
        TestAnswer(bank["start-01"], plan.orders[0], bank["start-01"].correct_index),
        TestAnswer(bank["start-02"], plan.orders[1], 0),  # start-02's answer is 2
        TestAnswer(bank["start-03"], plan.orders[2], None),
    ]
    assert score_run(answers) == (1, 3)


@pytest.mark.parametrize(
    ("locale", "lang"), [("tr", "tr"), ("tr-TR", "tr"), ("en-US", "en"), ("de", "en"), (None, "en")]
)
def test_turkish_clients_get_turkish(locale: str | None, lang: str) -> None:
    assert lang_for_locale(locale) == lang
