"""`decide_click`: what one click changes, from what was known before it (plain, fast)."""

from __future__ import annotations

from bot.quiz.click import (
    ClickBefore,
    DailyBefore,
    DailyStreak,
    Earlier,
    Totals,
    decide_click,
)
from bot.quiz.memory import review
from bot.quiz.scoring import MemberScore

NOW = 1_700_000_000_000


def before(**changes: object) -> ClickBefore:
    fields: dict[str, object] = {
        "closed": False,
        "earlier": None,
        "first_for_question": True,
        "score": None,
        "week": None,
        "month": None,
        "card": None,
        "daily": None,
    }
    fields.update(changes)
    return ClickBefore(**fields)  # type: ignore[arg-type]


def decide(b: ClickBefore, choice: int = 1, key: int = 1):  # type: ignore[no-untyped-def]
    return decide_click(
        b, choice_index=choice, correct_index=key, user_id=7, name="ada", now_ms=NOW
    )


def test_a_first_right_answer_scores_and_starts_every_total() -> None:
    d = decide(before())
    assert d.outcome == "recorded"
    assert d.answer is not None and (d.answer.correct, d.answer.first, d.answer.points) == (
        True,
        True,
        1,
    )
    assert d.score == MemberScore(7, "ada", 1, 1, 1, 1, 1)
    assert d.week == d.month == Totals(1, 1, 1)
    assert d.card == review(None, correct=True, now_ms=NOW)
    assert d.daily is None


def test_a_repeat_of_a_question_counts_for_accuracy_but_never_for_points() -> None:
    old = MemberScore(7, "old name", 5, 9, 6, 2, 4)
    d = decide(before(first_for_question=False, score=old, week=Totals(1, 2, 1)))
    assert d.answer is not None and (d.answer.first, d.answer.points) == (False, 0)
    assert d.score == MemberScore(7, "ada", 5, 10, 7, 3, 4)
    assert d.week == Totals(1, 3, 2) and d.month == Totals(0, 1, 1)


def test_a_wrong_answer_resets_the_streak_and_keeps_the_best() -> None:
    old = MemberScore(7, "ada", 5, 9, 6, 3, 4)
    d = decide(before(score=old), choice=0, key=1)
    assert d.answer is not None and (d.answer.correct, d.answer.points) == (False, 0)
    assert d.score is not None and (d.score.streak, d.score.best_streak) == (0, 4)
    assert d.score.points == 5 and d.score.answered == 10


def test_a_closed_post_changes_nothing_even_for_a_first_answer() -> None:
    d = decide(before(closed=True, earlier=Earlier(0, False, 0)))
    assert d.outcome == "closed"
    assert d.answer is None and d.score is None and d.daily is None


def test_a_second_click_on_a_post_returns_the_standing_answer() -> None:
    score = MemberScore(7, "ada", 1, 1, 1, 1, 1)
    d = decide(before(earlier=Earlier(2, True, 1), score=score), choice=0)
    assert d.outcome == "duplicate"
    assert d.earlier == Earlier(2, True, 1) and d.score == score
    assert d.answer is None and d.card is None


def test_the_daily_streak_grows_on_the_next_daily_question_and_restarts_after_a_gap() -> None:
    kept = DailyBefore("2026-12-03", "2026-12-02", DailyStreak("2026-12-02", 4, 6))
    assert decide(before(daily=kept)).daily == DailyStreak("2026-12-03", 5, 6)
    missed = DailyBefore("2026-12-03", "2026-12-02", DailyStreak("2026-11-30", 9, 9))
    assert decide(before(daily=missed)).daily == DailyStreak("2026-12-03", 1, 9)
    first = DailyBefore("2026-12-03", None, None)
    assert decide(before(daily=first)).daily == DailyStreak("2026-12-03", 1, 1)


def test_a_wrong_answer_still_counts_for_the_daily_streak() -> None:
    kept = DailyBefore("2026-12-03", "2026-12-02", DailyStreak("2026-12-02", 1, 1))
    assert decide(before(daily=kept), choice=0).daily == DailyStreak("2026-12-03", 2, 2)


def test_an_older_daily_post_answered_late_leaves_the_streak_as_it_is() -> None:
    late = DailyBefore("2026-12-01", "2026-11-30", DailyStreak("2026-12-03", 3, 5))
    assert decide(before(daily=late)).daily == DailyStreak("2026-12-03", 3, 5)
