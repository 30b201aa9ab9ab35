"""One click inside the database: read what the rules need, write what they decided.

This is the busiest write of the bot (a daily question in a big server: hundreds of
clicks a minute). Each click is one function of a plain `sqlite3.Connection`, run on the
database thread inside the batch transaction of `bot/storage/sqlite/group_commit.py`:

1. `read_before`: one statement (bot/storage/click_read.py, shared with PostgreSQL) reads
   everything `bot.quiz.click.decide_click` needs, inside the transaction, so a post
   closed a moment ago is seen closed and two clicks by one member never build on the
   same old totals;
2. `decide_click` (pure) decides;
3. `apply` writes the decision: the answer, the member's totals, the week and month
   totals and the rank summaries (`member_periods`, `score_counts`, migration 0003), the
   review card (migration 0005), the post's answer count and the daily streak.

So a click is all of that or nothing: a crash can no longer keep the answer and lose the
daily streak, and a click that reaches the database after its post closed scores nothing.
"""

from __future__ import annotations

import sqlite3

from bot.quiz.click import ClickBefore, ClickDecision, reply_of
from bot.quiz.scoring import AnswerResult, MemberScore
from bot.storage.click_read import (
    BEFORE_POST,
    BEFORE_TEST,
    Buckets,
    Click,
    before_of,
    before_values,
    decide,
)
from bot.storage.periods import period_buckets
from bot.storage.sqlite.cards import write_card


def record_click(conn: sqlite3.Connection, click: Click) -> AnswerResult | None:
    """The whole click on the database thread; None when its post had closed (or its
    run had finished: `BEFORE_TEST` in bot/storage/click_read.py).

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


def read_before(conn: sqlite3.Connection, click: Click, buckets: Buckets) -> ClickBefore:
    """What the rules need about `click`, in one statement (in the click's transaction)."""
    row = conn.execute(
        BEFORE_POST if click.post_id is not None else BEFORE_TEST, before_values(click, buckets)
    ).fetchone()
    return before_of(click, row)


def apply(
    conn: sqlite3.Connection,
    click: Click,
    buckets: Buckets,
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
