"""Quiz night's rules (bot/quiz/live.py) with fixed clocks and seeds."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bot.quiz.live import (
    GROUP_WEAKEST,
    MIXED,
    Answer,
    Click,
    LiveSettings,
    LiveSettingsError,
    auto_seconds,
    final_choices,
    most_missed,
    pick_questions,
    points_for,
    reveal_reason,
    speed_points,
    standings,
    validate_settings,
)
from bot.quiz.model import Text
from tests.factories import make_bank, make_question

TOPICS = ["basics", "mlp-split", "collectives"]


def test_defaults() -> None:
    got = validate_settings(topic=None, questions=None, seconds=None, scoring=None, topics=TOPICS)
    assert got == LiveSettings(MIXED, 10, None, "accuracy")


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"questions": 2}, "live_bad_questions"),
        ({"questions": 21}, "live_bad_questions"),
        ({"seconds": 9}, "live_bad_seconds"),
        ({"seconds": 121}, "live_bad_seconds"),
        ({"scoring": "fastest"}, "live_bad_scoring"),
        ({"topic": "nope"}, "live_bad_topic"),
    ],
)
def test_bad_settings_name_the_setting(kwargs: dict[str, object], key: str) -> None:
    args: dict[str, object] = {"topic": None, "questions": None, "seconds": None, "scoring": None}
    args.update(kwargs)
    with pytest.raises(LiveSettingsError) as err:
        validate_settings(**args, topics=TOPICS)  # type: ignore[arg-type]
    assert err.value.key == key


def test_limits_are_inclusive() -> None:
    for q, s in ((3, 10), (20, 120)):
        got = validate_settings(
            topic=GROUP_WEAKEST, questions=q, seconds=s, scoring="speed", topics=TOPICS
        )
        assert (got.questions, got.seconds, got.scoring) == (q, s, "speed")


def test_auto_seconds_at_least_20_and_grows_with_length_and_difficulty() -> None:
    short = make_question("basics-01")
    assert auto_seconds(short) == 20
    long_text = " ".join(["word"] * 150)
    long = replace(short, text=Text(tr=long_text, en="short"), difficulty=3)
    assert auto_seconds(long) == 85  # (150 + 4 choices x 3 words)/3 + 30 = 84 -> 85
    huge = replace(long, text=Text(tr=" ".join(["w"] * 600), en="x"))
    assert auto_seconds(huge) == 120
    assert auto_seconds(replace(long, difficulty=1)) < auto_seconds(long)


def test_speed_points_kahoot_like() -> None:
    assert speed_points(0, 20_000) == 1000
    assert speed_points(10_000, 20_000) == 750
    assert speed_points(20_000, 20_000) == 500
    assert speed_points(30_000, 20_000) == 500
    assert points_for("speed", correct=False, elapsed_ms=0, limit_ms=20_000) == 0
    assert points_for("speed", correct=True, elapsed_ms=4_000, limit_ms=20_000) == 900
    assert points_for("accuracy", correct=True, elapsed_ms=19_999, limit_ms=20_000) == 1
    assert points_for("accuracy", correct=False, elapsed_ms=1, limit_ms=20_000) == 0


def test_reveal_early_rule() -> None:
    players = {1, 2, 3}
    assert reveal_reason(now_ms=999, deadline_ms=1000, players=players, answered={1, 2}) is None
    assert reveal_reason(now_ms=1000, deadline_ms=1000, players=players, answered={1}) == "deadline"
    assert (
        reveal_reason(now_ms=10, deadline_ms=1000, players=players, answered={1, 2, 3, 4})
        == "all_answered"
    )
    assert reveal_reason(now_ms=10, deadline_ms=1000, players=set(), answered=set()) is None
    assert (
        reveal_reason(now_ms=10, deadline_ms=1000, players=players, answered=(), host_pressed=True)
        == "host"
    )


def test_last_choice_counts_and_late_clicks_change_nothing() -> None:
    clicks = [Click(1, 0, 100), Click(1, 2, 300), Click(2, 1, 200), Click(2, 3, 500)]
    final = final_choices(clicks, revealed_at_ms=499)
    assert final == {1: Click(1, 2, 300), 2: Click(2, 1, 200)}
    assert final_choices(clicks, None)[2].choice == 3


def test_standings_ties_broken_by_total_time() -> None:
    names = {1: "ayşe", 2: "bob", 3: "can", 4: "dee"}
    answers = [
        Answer(1, 0, True, 5_000, 1),
        Answer(1, 1, False, 1_000, 0),
        Answer(2, 0, True, 2_000, 1),
        Answer(2, 1, False, 3_000, 0),
        Answer(3, 0, True, 3_000, 1),
        Answer(3, 1, True, 9_000, 1),
        Answer(99, 0, True, 1, 1),  # not a player (forgotten): ignored
    ]
    rows = standings(names, answers)
    assert [(r.user_id, r.points, r.time_ms, r.place) for r in rows] == [
        (3, 2, 12_000, 1),
        (2, 1, 5_000, 2),
        (1, 1, 6_000, 3),
        (4, 0, 0, 4),
    ]
    tied = standings({5: "e", 6: "f"}, [Answer(5, 0, True, 10, 1), Answer(6, 0, True, 10, 1)])
    assert [(r.user_id, r.place) for r in tied] == [(5, 1), (6, 1)]


def test_most_missed() -> None:
    assert most_missed([(0, 3, 3), (1, 1, 3), (2, 0, 0)]) == 1
    assert most_missed([(0, 1, 2), (1, 2, 4)]) == 1  # same share, more wrong answers
    assert most_missed([(0, 0, 0)]) is None


def test_pick_mixed_spreads_topics_and_never_repeats() -> None:
    bank = make_bank()
    picked = pick_questions(bank, random.Random(1), mode=MIXED, count=6)
    assert len({q.id for q in picked}) == 6
    assert {q.topic for q in picked[:3]} == {"basics", "mlp-split", "collectives"}
    again = pick_questions(bank, random.Random(1), mode=MIXED, count=6)
    assert [q.id for q in again] == [q.id for q in picked]
    assert len(pick_questions(bank, random.Random(1), mode=MIXED, count=20)) == len(bank)


def test_pick_topic_puts_recent_last() -> None:
    bank = make_bank()
    picked = pick_questions(
        bank, random.Random(3), mode="mlp-split", count=2, recent=["mlp-split-01"]
    )
    assert [q.id for q in picked] == ["mlp-split-02", "mlp-split-01"]


def test_pick_group_weakest_lowest_facility_first_then_mixed() -> None:
    bank = make_bank()
    facility = {"start-01": 0.9, "mlp-split-02": 0.1, "collectives-01": 0.4}
    picked = pick_questions(bank, random.Random(5), mode=GROUP_WEAKEST, count=5, facility=facility)
    assert [q.id for q in picked[:3]] == ["mlp-split-02", "collectives-01", "start-01"]
    assert len({q.id for q in picked}) == 5
    few = pick_questions(bank, random.Random(5), mode=GROUP_WEAKEST, count=2, facility=facility)
    assert [q.id for q in few] == ["mlp-split-02", "collectives-01"]
    none = pick_questions(bank, random.Random(5), mode=GROUP_WEAKEST, count=3, facility={})
    assert len(none) == 3
