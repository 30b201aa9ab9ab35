"""Item statistics on answer sets small enough to check by hand (issue #13)."""

from __future__ import annotations

import math

import pytest

from bot.quiz.itemstats import (
    MIN_FLAG_ANSWERS,
    FirstAnswer,
    Item,
    bank_stats,
    item_stats,
    member_totals,
)

G = 1


def ans(user: int, qid: str, choice: int, key: int = 0, guild: int = G) -> FirstAnswer:
    return FirstAnswer(guild, user, qid, choice, choice == key)


def codes(stats) -> list[str]:
    return [f.code for f in stats.flags]


def test_facility_and_corrected_point_biserial_by_hand() -> None:
    # q1: members 1, 2 right; 3, 4 wrong. Accuracy on their other answers (q2, q3):
    # 1 -> 2/2, 2 -> 1/2, 3 -> 1/2, 4 -> 0/2. x = (1,1,0,0), y = (1,.5,.5,0):
    # cov = .5, var x = 1, var y = .5 (sums), r = .5 / sqrt(.5) = 1/sqrt(2).
    answers = [
        ans(1, "q1", 0), ans(2, "q1", 0), ans(3, "q1", 1), ans(4, "q1", 2),
        ans(1, "q2", 0), ans(2, "q2", 0), ans(3, "q2", 1), ans(4, "q2", 1),
        ans(1, "q3", 0), ans(2, "q3", 1), ans(3, "q3", 0), ans(4, "q3", 1),
    ]  # fmt: skip
    s = item_stats(Item("q1", 4, 0), [a for a in answers if a.question_id == "q1"],
                   member_totals(answers))  # fmt: skip
    assert (s.answers, s.correct, s.facility) == (4, 2, 0.5)
    assert s.discrimination == pytest.approx(1 / math.sqrt(2))
    assert s.picks == (2, 1, 1, 0)
    assert s.pick_rates == (0.5, 0.25, 0.25, 0.0)
    # 4 ranked members: a third is 1. Top is member 1 (picked A), bottom member 4 (C).
    assert (s.ranked, s.top_picks, s.bottom_picks) == (4, (1, 0, 0, 0), (0, 0, 1, 0))
    assert s.flags == ()  # four answers: far below the threshold


def test_the_question_itself_is_left_out_of_the_members_accuracy() -> None:
    # Uncorrected, a member's accuracy would include q1 and correlate with it; here every
    # member's other answers are equally good (1 of 1), so there is no spread: undefined.
    answers = [ans(1, "q1", 0), ans(2, "q1", 1), ans(1, "q2", 0), ans(2, "q2", 0)]
    s = item_stats(Item("q1", 2, 0), answers[:2], member_totals(answers))
    assert s.discrimination is None
    assert s.facility == 0.5


def test_members_with_no_other_answer_are_not_ranked() -> None:
    answers = [ans(1, "q1", 0), ans(2, "q1", 1)]
    s = item_stats(Item("q1", 2, 0), answers, member_totals(answers))
    assert (s.ranked, s.discrimination, s.top_picks) == (0, None, (0, 0))


def _ability_bank(members: int, planted: str, choose) -> list[FirstAnswer]:
    """Members 0..members-1 answer five fixed questions (key A): member m gets m % 6 of
    them right, so ability varies; then `choose(m, ability)` picks the planted choice."""
    answers = []
    for m in range(members):
        ability = m % 6
        for k in range(5):
            answers.append(ans(m, f"other-{k}", 0 if k < ability else 1))
        answers.append(ans(m, planted, choose(m, ability)))
    return answers


def test_planted_wrong_key_is_flagged() -> None:
    # The key says A, but the right answer is B: strong members pick B, weak ones A or C.
    def choose(m: int, ability: int) -> int:
        return 1 if ability >= 3 else (0 if m % 2 else 2)

    answers = _ability_bank(60, "planted", choose)
    items = [Item("planted", 4, 0)] + [Item(f"other-{k}", 4, 0) for k in range(5)]
    stats = bank_stats(items, answers)
    planted = stats[0]  # flagged first
    assert planted.question_id == "planted"
    assert planted.answers == 60
    assert planted.discrimination is not None and planted.discrimination < 0
    assert "wrong_key" in codes(planted)
    top = next(f for f in planted.flags if f.code == "top_prefers")
    assert (top.params["choice"], top.params["key_choice"], top.params["choice_rate"]) == (
        "B",
        "A",
        "100%",
    )
    assert top.params["key_rate"] == "0%"
    # Nobody picks D: a dead distractor too, once there are 50 answers.
    assert any(f.code == "dead_distractor" and f.params["choice"] == "D" for f in planted.flags)


def test_too_few_answers_raise_no_flag_but_give_the_figures() -> None:
    def choose(m: int, ability: int) -> int:
        return 1 if ability >= 3 else 0

    answers = _ability_bank(MIN_FLAG_ANSWERS - 1, "planted", choose)
    s = bank_stats([Item("planted", 4, 0)], answers)[0]
    assert s.answers == MIN_FLAG_ANSWERS - 1
    assert s.discrimination is not None and s.discrimination < 0
    assert s.flags == ()
    # With one more member the same pattern is flagged.
    answers = _ability_bank(MIN_FLAG_ANSWERS, "planted", choose)
    assert "wrong_key" in codes(bank_stats([Item("planted", 4, 0)], answers)[0])


def test_dead_distractor_alone() -> None:
    # 50 answers: 30 A (key), 10 B, 10 C, 0 D. A good question but for D.
    answers = []
    for m in range(50):
        right = m < 30
        for k in range(3):  # other answers: right members tend to be right elsewhere
            answers.append(ans(m, f"o{k}", 0 if (right or k == 0) else 1))
        answers.append(ans(m, "q", 0 if right else (1 if m < 40 else 2)))
    s = bank_stats([Item("q", 4, 0)], answers)[0]
    assert s.picks == (30, 10, 10, 0)
    assert codes(s) == ["dead_distractor"]
    assert dict(s.flags[0].params) == {"choice": "D", "rate": "0%", "n": "50"}
    # Under 50 answers, 0 % is not yet "dead".
    few = [a for a in answers if a.user_id < 49]
    assert "dead_distractor" not in codes(bank_stats([Item("q", 4, 0)], few)[0])


def test_computed_questions_have_no_dead_distractor() -> None:
    answers = [ans(m, "t", 0 if m < 45 else 1) for m in range(50)]
    s = bank_stats([Item("t", 4, 0, computed=True)], answers)[0]
    assert "dead_distractor" not in codes(s)


def test_too_easy_too_hard_and_reported() -> None:
    easy = [ans(m, "e", 0) for m in range(40)]
    assert codes(bank_stats([Item("e", 2, 0)], easy)[0]) == ["too_easy"]
    # Four choices: chance 25 %, limit 30 %; 9 of 40 right is 22.5 %.
    hard = [ans(m, "h", 0 if m < 9 else 1 + m % 3) for m in range(40)]
    s = bank_stats([Item("h", 4, 0)], hard)[0]
    assert codes(s) == ["too_hard"]
    assert dict(s.flags[0].params) == {"facility": "22%", "limit": "30%"}
    fine = [ans(m, "r", 0 if m < 30 else 1 + m % 3) for m in range(40)]
    assert bank_stats([Item("r", 4, 0)], fine, {"r": 1})[0].flags == ()
    s = bank_stats([Item("r", 4, 0)], fine, {"r": 2})[0]
    assert codes(s) == ["reported"] and s.open_reports == 2


def test_members_are_per_server() -> None:
    # The same user id in two servers is two members with their own accuracy.
    answers = [ans(1, "q", 0, guild=1), ans(1, "q", 1, guild=2)]
    totals = member_totals(answers)
    assert totals == {(1, 1): (1, 1), (2, 1): (1, 0)}
    s = item_stats(Item("q", 2, 0), answers, totals)
    assert (s.answers, s.correct) == (2, 1)


def test_flagged_questions_come_first_then_by_id() -> None:
    easy = [ans(m, "b-easy", 0) for m in range(40)]
    ok = [ans(m, "a-ok", 0 if m < 30 else 1) for m in range(40)]
    order = [s.question_id for s in bank_stats([Item("a-ok", 2, 0), Item("b-easy", 2, 0),
                                                Item("c-none", 2, 0)], easy + ok)]  # fmt: skip
    assert order == ["b-easy", "a-ok", "c-none"]
