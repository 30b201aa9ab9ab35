"""Reminders, weekly progress and review cards, the same tests on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

from bot.quiz.memory import CardState
from bot.storage.periods import DAY_MS, week_start_ms
from tests.storage.conftest import Backend

GUILD, OTHER = 111, 222
ALICE, BOB = 1001, 1002
NOW = 1_764_700_000_000  # 2025-12-02, a Tuesday
ANSWER = (
    "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id, test_run_id,"
    " choice_index, correct, first, points, answered_at) VALUES (?, ?, ?, 't', ?, NULL, 0, ?,"
    " 1, ?, ?)"
)
CARD = (
    "INSERT INTO cards (guild_id, user_id, question_id, state, step, stability, difficulty,"
    " due, last_review, reps, lapses) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


async def test_a_day_is_claimed_once_even_by_racing_claims(backend: Backend) -> None:
    r = backend.reminders
    await r.set(GUILD, ALICE, enabled=True, remind_time="19:00", language="tr", now_ms=5)
    claims = await asyncio.gather(*(r.claim(GUILD, ALICE, "2026-12-03") for _ in range(5)))
    assert claims.count(True) == 1
    assert not await r.claim(GUILD, ALICE, "2026-12-02")  # an earlier day: never again
    assert await r.claim(GUILD, ALICE, "2026-12-04")
    (row,) = await r.enabled()
    assert (row.remind_time, row.language, row.last_date) == ("19:00", "tr", "2026-12-04")
    assert (row.timezone, row.post_time) == ("UTC", "09:00")  # the server set nothing
    await backend.execute(
        "INSERT INTO daily_settings (guild_id, timezone, post_time) VALUES (?, ?, ?)",
        (GUILD, "Europe/Istanbul", "08:15"),
    )
    (row,) = await r.enabled()
    assert (row.timezone, row.post_time) == ("Europe/Istanbul", "08:15")


async def test_off_is_not_claimed_and_on_again_keeps_the_chosen_time(backend: Backend) -> None:
    r = backend.reminders
    assert await r.get(GUILD, ALICE) is None
    await r.set(GUILD, ALICE, enabled=True, remind_time="07:30", language="en", now_ms=5)
    await r.set(GUILD, ALICE, enabled=False, remind_time=None, language="en", now_ms=6)
    assert await r.enabled() == [] and not await r.claim(GUILD, ALICE, "2026-12-03")
    await r.set(GUILD, ALICE, enabled=True, remind_time=None, language="en", now_ms=7)
    assert await r.get(GUILD, ALICE) == (True, "07:30")


async def test_a_refused_dm_turns_it_off_and_is_taken_once(backend: Backend) -> None:
    r = backend.reminders
    await r.set(GUILD, BOB, enabled=True, remind_time=None, language="en", now_ms=5)
    assert not await r.take_refusal(GUILD, BOB)
    await r.refused(GUILD, BOB, now_ms=9)
    assert await r.get(GUILD, BOB) == (False, None)
    assert await r.take_refusal(GUILD, BOB)
    assert not await r.take_refusal(GUILD, BOB)
    await r.refused(GUILD, BOB, now_ms=10)
    await r.set(GUILD, BOB, enabled=True, remind_time=None, language="en", now_ms=11)
    assert not await r.take_refusal(GUILD, BOB)  # turning it on again cleared it


async def test_due_cards_and_member_cards_read_one_member(backend: Backend) -> None:
    for guild, user, qid, due in (
        (GUILD, ALICE, "late", NOW + DAY_MS),
        (GUILD, ALICE, "due", NOW - 1),
        (GUILD, ALICE, "now", NOW),
        (GUILD, BOB, "bob", NOW - 5),
        (OTHER, ALICE, "other", NOW - 5),
    ):
        await backend.execute(CARD, (guild, user, qid, 2, None, 3.5, 5.25, due, NOW - 9, 2, 1))
    assert await backend.reminders.due_cards(GUILD, ALICE, NOW) == 2
    cards = await backend.cards.member_cards(GUILD, ALICE)
    assert list(cards) == ["due", "now", "late"]  # by due time
    assert cards["due"] == CardState(
        state=2, step=None, stability=3.5, difficulty=5.25, due_ms=NOW - 1,
        last_review_ms=NOW - 9, reps=2, lapses=1,
    )  # fmt: skip
    assert await backend.cards.member_cards(GUILD, 9) == {}


async def test_weeks_count_answers_and_right_ones_per_week(backend: Backend) -> None:
    this_week = week_start_ms(NOW)
    times = [
        NOW,
        this_week,
        this_week - 1,
        this_week - 7 * DAY_MS * 11,
        this_week - 7 * DAY_MS * 12,
    ]
    for post_id, (at, right) in enumerate(zip(times, (1, 0, 1, 1, 1), strict=True), 1):
        await backend.execute(
            "INSERT INTO posts (id, guild_id, channel_id, question_id, choice_order, language,"
            " created_at) VALUES (?, ?, 1, 'q', '0', 'en', 0)",
            (post_id, GUILD),
        )
        await backend.execute(ANSWER, (GUILD, ALICE, f"q{post_id}", post_id, right, right, at))
    weeks = await backend.progress.weeks(GUILD, ALICE, NOW)
    assert len(weeks) == 12 and weeks[-1] == (this_week, 2, 1)
    assert weeks[-2] == (this_week - 7 * DAY_MS, 1, 1)
    assert weeks[0] == (this_week - 7 * DAY_MS * 11, 1, 1)  # the 13th week back is out
    assert sum(a for _, a, _ in weeks) == 4
    assert await backend.progress.weeks(GUILD, BOB, NOW, count=2) == [
        (this_week - 7 * DAY_MS, 0, 0),
        (this_week, 0, 0),
    ]
