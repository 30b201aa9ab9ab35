"""One click inside the database: read what the rules need, write what they decided.

This is the busiest write of the bot (a daily question in a big server: hundreds of
clicks a minute). Each click is one function of a plain `sqlite3.Connection`, run on the
database thread inside the batch transaction of `bot/storage/sqlite/group_commit.py`:

1. `read_before`: one statement reads everything `bot.quiz.click.decide_click` needs,
   inside the transaction, so a post closed a moment ago is seen closed and two clicks
   by one member never build on the same old totals;
2. `decide_click` (pure) decides;
3. `apply` writes the decision: the answer, the member's totals, the week and month
   totals and the rank summaries (`member_periods`, `score_counts`, migration 0003), the
   review card (migration 0005), the post's answer count and the daily streak.

So a click is all of that or nothing: a crash can no longer keep the answer and lose the
daily streak, and a click that reaches the database after its post closed scores nothing.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from bot.quiz.click import (
    ClickBefore,
    ClickDecision,
    DailyBefore,
    DailyStreak,
    Earlier,
    Totals,
    decide_click,
    reply_of,
)
from bot.quiz.model import Question
from bot.quiz.scoring import AnswerResult, MemberScore
from bot.storage.sqlite.cards import card_of, write_card
from bot.storage.sqlite.standings import period_buckets


@dataclass(frozen=True, slots=True)
class Click:
    """One member's click, as the service hands it to storage."""

    guild_id: int
    user_id: int
    name: str
    question: Question
    choice_index: int
    now_ms: int
    post_id: int | None = None
    test_run_id: int | None = None


class PostGone(LookupError):
    """The click's post is no longer in the database (its server's data was deleted)."""


def record_click(conn: sqlite3.Connection, click: Click) -> AnswerResult | None:
    """The whole click on the database thread; None when its post had closed (or its
    run had finished: `_BEFORE_TEST`).

    Raises PostGone when the post no longer exists (nothing is written)."""
    buckets = period_buckets(click.now_ms)
    before = read_before(conn, click, buckets)
    decision = decide(click, before)
    if decision.outcome == "closed":
        return None
    if decision.outcome == "recorded":
        apply(conn, click, buckets, before, decision)
    assert decision.score is not None
    rank = _rank(conn, click.guild_id, decision.score)
    return reply_of(
        decision, question_id=click.question.id, choice_index=click.choice_index, rank=rank
    )


def decide(click: Click, before: ClickBefore) -> ClickDecision:
    """`decide_click` for this click (both backends call it)."""
    return decide_click(
        before,
        choice_index=click.choice_index,
        correct_index=click.question.correct_index,
        user_id=click.user_id,
        name=click.name,
        now_ms=click.now_ms,
    )


_BEFORE = (
    "SELECT {closed}, p.id IS NULL, prev.choice_index, prev.correct, prev.points,"
    " NOT EXISTS (SELECT 1 FROM answers WHERE guild_id = :guild AND user_id = :user"
    "  AND question_id = :question AND first = 1),"
    " m.user_id, m.name, m.points, m.answered, m.correct, m.streak, m.best_streak,"
    " w.points, w.answered, w.correct, mo.points, mo.answered, mo.correct,"
    " c.state, c.step, c.stability, c.difficulty, c.due, c.last_review, c.reps, c.lapses,"
    " ds.local_date,"
    " (SELECT MAX(local_date) FROM daily_slots WHERE guild_id = :guild AND status = 'sent'"
    "  AND local_date < ds.local_date),"
    " st.last_date, st.streak, st.best"
    " FROM (SELECT 1) AS one"  # the alias: PostgreSQL 15 needs one (pg/clicks.py)
    " LEFT JOIN posts AS p ON p.id = :post"
    " LEFT JOIN answers AS prev ON {earlier}"
    " LEFT JOIN members AS m ON m.guild_id = :guild AND m.user_id = :user"
    " LEFT JOIN member_periods AS w ON w.guild_id = :guild AND w.period = :week"
    "  AND w.starts_at = :week_start AND w.user_id = :user"
    " LEFT JOIN member_periods AS mo ON mo.guild_id = :guild AND mo.period = :month"
    "  AND mo.starts_at = :month_start AND mo.user_id = :user"
    " LEFT JOIN cards AS c ON c.guild_id = :guild AND c.user_id = :user"
    "  AND c.question_id = :question"
    " LEFT JOIN daily_slots AS ds ON ds.post_id = :post"
    " LEFT JOIN daily_streaks AS st ON ds.local_date IS NOT NULL AND st.guild_id = :guild"
    "  AND st.user_id = :user"
)
_BEFORE_POST = _BEFORE.format(
    closed="p.closed_at IS NOT NULL OR p.id IS NULL",
    earlier="prev.post_id = :post AND prev.user_id = :user",
)
# A finished run (test or review round) takes no new answer; a question it holds an
# answer to still replies with that answer (a double click on the last one). Runs finish
# when every question is answered, except review rounds that migration 0011 closed
# because a newer one was open: their unanswered questions must not count a second time
# through that newer round (issue 31).
_BEFORE_TEST = _BEFORE.format(
    closed="prev.choice_index IS NULL"
    " AND (SELECT finished_at FROM test_runs WHERE id = :run) IS NOT NULL",
    earlier="prev.test_run_id = :run AND prev.question_id = :question",
)


def read_before(
    conn: sqlite3.Connection, click: Click, buckets: tuple[tuple[str, int], tuple[str, int]]
) -> ClickBefore:
    """What the rules need about `click`, in one statement (in the click's transaction)."""
    (week, week_start), (month, month_start) = buckets
    row = conn.execute(
        _BEFORE_POST if click.post_id is not None else _BEFORE_TEST,
        {
            "guild": click.guild_id,
            "user": click.user_id,
            "question": click.question.id,
            "post": click.post_id,
            "run": click.test_run_id,
            "week": week,
            "week_start": week_start,
            "month": month,
            "month_start": month_start,
        },
    ).fetchone()
    if click.post_id is not None and row[1]:
        raise PostGone(f"post {click.post_id} is gone")
    daily = None
    if row[27] is not None:
        streak = None if row[29] is None else DailyStreak(str(row[29]), int(row[30]), int(row[31]))
        daily = DailyBefore(str(row[27]), row[28], streak)
    return ClickBefore(
        closed=bool(row[0]),
        earlier=None if row[2] is None else Earlier(int(row[2]), bool(row[3]), int(row[4])),
        first_for_question=bool(row[5]),
        score=None if row[6] is None else MemberScore(*row[6:13]),
        week=None if row[13] is None else Totals(*row[13:16]),
        month=None if row[16] is None else Totals(*row[16:19]),
        card=None if row[19] is None else card_of(row[19:27]),
        daily=daily,
    )


def apply(
    conn: sqlite3.Connection,
    click: Click,
    buckets: tuple[tuple[str, int], tuple[str, int]],
    before: ClickBefore,
    decision: ClickDecision,
) -> None:
    """Write a "recorded" decision. Every value comes from the decision; the unique
    indexes (one answer per member per post or test question, one first answer per
    member per question) are the schema's own guard should two writers ever race."""
    answer, score, card = decision.answer, decision.score, decision.card
    assert answer is not None and score is not None and card is not None
    guild, user = click.guild_id, click.user_id
    conn.execute(
        "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
        " test_run_id, choice_index, correct, first, points, answered_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            guild,
            user,
            click.question.id,
            click.question.topic,
            click.post_id,
            click.test_run_id,
            answer.choice_index,
            int(answer.correct),
            int(answer.first),
            answer.points,
            click.now_ms,
        ),
    )
    write_card(conn, guild, user, click.question.id, card)
    conn.execute(
        "INSERT INTO members (guild_id, user_id, name, points, answered, correct,"
        " streak, best_streak) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name,"
        " points = excluded.points, answered = excluded.answered,"
        " correct = excluded.correct, streak = excluded.streak,"
        " best_streak = excluded.best_streak",
        (
            guild,
            user,
            score.name,
            score.points,
            score.answered,
            score.correct,
            score.streak,
            score.best_streak,
        ),
    )
    old = before.score
    _count_score(
        conn,
        guild,
        ("all", 0),
        (old.points, old.correct) if old else None,
        (score.points, score.correct),
    )
    # The week's and the month's totals, which the period leaderboards read (0003).
    for bucket, was, now in zip(
        buckets, (before.week, before.month), (decision.week, decision.month), strict=True
    ):
        assert now is not None
        conn.execute(
            "INSERT INTO member_periods (guild_id, period, starts_at, user_id, points,"
            " answered, correct) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (guild_id, period, starts_at, user_id) DO UPDATE SET"
            " points = excluded.points, answered = excluded.answered,"
            " correct = excluded.correct",
            (guild, *bucket, user, now.points, now.answered, now.correct),
        )
        _count_score(
            conn,
            guild,
            bucket,
            (was.points, was.correct) if was else None,
            (now.points, now.correct),
        )
    if click.post_id is not None:
        conn.execute(
            "UPDATE posts SET answer_count = answer_count + 1 WHERE id = ?", (click.post_id,)
        )
    if decision.daily is not None:
        new = decision.daily
        conn.execute(
            "INSERT INTO daily_streaks (guild_id, user_id, last_date, streak, best)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET"
            " last_date = excluded.last_date, streak = excluded.streak, best = excluded.best",
            (guild, user, new.last_date, new.streak, new.best),
        )


def _count_score(
    conn: sqlite3.Connection,
    guild_id: int,
    bucket: tuple[str, int],
    old: tuple[int, int] | None,
    new: tuple[int, int],
) -> None:
    """Move a member from their old (points, correct) pair to the new one in
    `score_counts` (None: they were not ranked in this period yet). Pairs left with no
    members keep a 0 row: there are only a few dozen per server and period."""
    if old == new:
        return
    key = (guild_id, *bucket)
    if old is not None:
        conn.execute(
            "UPDATE score_counts SET members = members - 1 WHERE guild_id = ? AND period = ?"
            " AND starts_at = ? AND points = ? AND correct = ?",
            (*key, *old),
        )
    conn.execute(
        "INSERT INTO score_counts (guild_id, period, starts_at, points, correct, members)"
        " VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (guild_id, period, starts_at, points, correct)"
        " DO UPDATE SET members = members + 1",
        (*key, *new),
    )


def _rank(conn: sqlite3.Connection, guild_id: int, score: MemberScore) -> int:
    """1 + members strictly ahead (more points, or as many points and more correct),
    summed over the server's few dozen (points, correct) pairs in `score_counts`."""
    row = conn.execute(
        "SELECT 1 + COALESCE(SUM(members), 0) FROM score_counts WHERE guild_id = ?"
        " AND period = 'all' AND starts_at = 0"
        " AND (points > ? OR (points = ? AND correct > ?))",
        (guild_id, score.points, score.points, score.correct),
    ).fetchone()
    return int(row[0])
