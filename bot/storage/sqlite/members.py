"""Everything stored about a member, or a server: exported, or deleted in one transaction.

Discord's Developer Policy expects a bot to delete a user's data on request and to say
what it keeps (docs/privacy.md). This module is the one place that knows which tables
hold a member's data and which summaries counted them, so `/tpquiz forget-me`,
`/tpquiz my-data`, `tpquiz forget-user`, `tpquiz export-user`, `tpquiz forget-guild` and
the retention loop all go through it.

It is built from lists of steps over the catalogue both backends share
(bot/storage/member_data.py: which tables, in which order, with a note of each field): a
table that stores something about a member is one `MemberStep` (the catalogue's entry,
how to export it, how to delete it) and one `GuildStep`; a module that adds a
member-keyed table adds its catalogue entry and its functions here, and nothing else
changes. Every step is a plain function of an `sqlite3.Connection` so that the
whole deletion runs as one transaction on the database thread
(`Database.run_transaction`): either everything about the member goes, or nothing.

Summaries are updated so that ranks and counts are exactly what they would be had the
member never played (tests/storage/test_members.py compares them with summaries rebuilt
from scratch, and with a twin database where the member never answered):

- `members` (all-time totals) and `member_periods` (week and month totals): their rows
  are deleted, and before that each one is taken out of `score_counts` (the number of
  members at each (points, right answers) pair, from which ranks are summed). Pairs left
  with no members are removed: the live code keeps such 0 rows (bot/storage/sqlite/answers.py),
  but here one could tell that somebody had held that score.
- `answers`: the member's answers go, and every post they answered has its
  `answer_count` lowered. Per-choice counts (the reveal's bars) are counted from the
  answers themselves (`PostStore.choice_counts`), so they drop the member's answer too;
  a message already posted shows the old count until it is next edited.
- `item_stats` (a server's item statistics, counts only, kept by a periodic refresh):
  marked stale (`itemstats.mark_stale`), so the admin view computes on demand without
  the member until the next refresh recomputes the summary.
- A member's answers never change another member's: whether an answer scores ("first")
  depends only on the same member's earlier answers, so nobody else's points move.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage.member_data import EXPORT_NOTE, GUILD_TABLES, MEMBER_DATA, MEMBER_TABLES
from bot.storage.sqlite import cards, itemstats, reminders, reports

__all__ = [
    "GUILD_STEPS",
    "MEMBER_STEPS",
    "GuildStep",
    "MemberStep",
    "delete_guild",
    "delete_member",
    "export_member",
]

Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class MemberStep:
    """One table (or group of tables) holding something about a member of a server."""

    #: The key in the export, normally the table's name.
    name: str
    #: What the table is, then one note per field, for the export's "_about".
    about: dict[str, str]
    export: Callable[[sqlite3.Connection, int, int], Rows]
    #: Deletes the member's rows (and updates the summaries that counted them); returns
    #: how many rows went.
    delete: Callable[[sqlite3.Connection, int, int], int]


@dataclass(frozen=True)
class GuildStep:
    """One table holding something about a server (or its members)."""

    name: str
    delete: Callable[[sqlite3.Connection, int], int]


def _select(conn: sqlite3.Connection, sql: str, params: Sequence[object]) -> Rows:
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _rows_of(table: str, order: str) -> Callable[[sqlite3.Connection, int, int], Rows]:
    def export(conn: sqlite3.Connection, guild_id: int, user_id: int) -> Rows:
        return _select(
            conn,
            f"SELECT * FROM {table} WHERE guild_id = ? AND user_id = ? ORDER BY {order}",
            (guild_id, user_id),
        )

    return export


def _delete_rows(table: str) -> Callable[[sqlite3.Connection, int, int], int]:
    def delete(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
        cur = conn.execute(
            f"DELETE FROM {table} WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
        )
        return cur.rowcount

    return delete


def _delete_answers(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    """The member's answers, first taken out of their posts' answer counts."""
    conn.execute(
        "UPDATE posts SET answer_count = MAX(0, answer_count - (SELECT COUNT(*) FROM answers"
        "  WHERE answers.post_id = posts.id AND answers.user_id = :user))"
        " WHERE id IN (SELECT post_id FROM answers WHERE guild_id = :guild"
        "  AND user_id = :user AND post_id IS NOT NULL)",
        {"guild": guild_id, "user": user_id},
    )
    return _delete_rows("answers")(conn, guild_id, user_id)


def _uncount(conn: sqlite3.Connection, guild_id: int, source: str, user_id: int) -> None:
    """Take the member's rows of `source` out of `score_counts`; drop emptied pairs."""
    if source == "members":
        pairs = "SELECT 'all' AS period, 0 AS starts_at, points, correct FROM members"
    else:
        pairs = "SELECT period, starts_at, points, correct FROM member_periods"
    for period, starts_at, points, correct in conn.execute(
        f"{pairs} WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    ).fetchall():
        conn.execute(
            "UPDATE score_counts SET members = members - 1 WHERE guild_id = ? AND period = ?"
            " AND starts_at = ? AND points = ? AND correct = ? AND members > 0",
            (guild_id, period, starts_at, points, correct),
        )
    conn.execute("DELETE FROM score_counts WHERE guild_id = ? AND members = 0", (guild_id,))


def _delete_totals(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    _uncount(conn, guild_id, "members", user_id)
    return _delete_rows("members")(conn, guild_id, user_id)


def _delete_periods(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    _uncount(conn, guild_id, "member_periods", user_id)
    return _delete_rows("member_periods")(conn, guild_id, user_id)


def _delete_reports(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    """The member's reports; and, where the member (an admin) resolved someone else's
    report, their id is taken off it (the report and its note stay the reporter's)."""
    deleted = reports.delete_member(conn, guild_id, user_id)
    conn.execute(
        "UPDATE reports SET resolved_by = NULL WHERE guild_id = ? AND resolved_by = ?",
        (guild_id, user_id),
    )
    return deleted


_HOSTED = (
    "SELECT id, channel_id, host_id, topic, question_count, status, created_at, ended_at"
    " FROM live_sessions WHERE guild_id = ? AND host_id = ? ORDER BY created_at, id"
)


def _export_hosted(conn: sqlite3.Connection, guild_id: int, user_id: int) -> Rows:
    return _select(conn, _HOSTED, (guild_id, user_id))


def _forget_host(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    """The member's id taken off the quiz nights they hosted (0: no host; Manage Server
    still controls a running one); the sessions stay the server's."""
    return conn.execute(
        "UPDATE live_sessions SET host_id = 0 WHERE guild_id = ? AND host_id = ?",
        (guild_id, user_id),
    ).rowcount


def _delete_suggestions(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    """The member's suggestions; their name is taken off the questions accepted from
    them (credited to "a member" from then on: credit_user_id 0), which stay the
    server's. The caller forgets the server's pool, so posts show it at once."""
    conn.execute(
        "UPDATE guild_questions SET credit_user_id = 0, credit_name = NULL"
        " WHERE guild_id = ? AND credit_user_id = ?",
        (guild_id, user_id),
    )
    return _delete_rows("suggestions")(conn, guild_id, user_id)


#: name -> (export, delete) of each table in the catalogue (bot/storage/member_data.py).
_MEMBER_FUNCTIONS: dict[
    str,
    tuple[
        Callable[[sqlite3.Connection, int, int], Rows],
        Callable[[sqlite3.Connection, int, int], int],
    ],
] = {
    "answers": (_rows_of("answers", "answered_at, id"), _delete_answers),
    "live_choices": (
        _rows_of("live_choices", "session_id, position"),
        _delete_rows("live_choices"),
    ),
    "live_players": (_rows_of("live_players", "session_id"), _delete_rows("live_players")),
    "live_sessions": (_export_hosted, _forget_host),
    "test_runs": (_rows_of("test_runs", "started_at, id"), _delete_rows("test_runs")),
    "members": (_rows_of("members", "user_id"), _delete_totals),
    "member_periods": (_rows_of("member_periods", "period, starts_at"), _delete_periods),
    "daily_streaks": (_rows_of("daily_streaks", "user_id"), _delete_rows("daily_streaks")),
    "cards": (cards.export_member, cards.delete_member),
    "review_reminders": (reminders.export_member, reminders.delete_member),
    "reports": (reports.export_member, _delete_reports),
    "suggestions": (_rows_of("suggestions", "id"), _delete_suggestions),
}

#: Every table that stores something about a member, in the catalogue's deletion order.
MEMBER_STEPS: list[MemberStep] = [
    MemberStep(table.name, table.about, *_MEMBER_FUNCTIONS[table.name]) for table in MEMBER_DATA
]


def _delete_guild_rows(table: str) -> Callable[[sqlite3.Connection, int], int]:
    def delete(conn: sqlite3.Connection, guild_id: int) -> int:
        return conn.execute(f"DELETE FROM {table} WHERE guild_id = ?", (guild_id,)).rowcount

    return delete


#: Tables whose server rows go through their own module's function.
_GUILD_FUNCTIONS: dict[str, Callable[[sqlite3.Connection, int], int]] = {
    "cards": cards.delete_guild,
    "review_reminders": reminders.delete_guild,
    "reports": reports.delete_guild,
}

#: Every table with a guild_id, in the catalogue's deletion order.
GUILD_STEPS: list[GuildStep] = [
    GuildStep(table, _GUILD_FUNCTIONS.get(table) or _delete_guild_rows(table))
    for table in GUILD_TABLES
]


def delete_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> dict[str, int]:
    """Delete everything about the member in the server; rows deleted per step.

    Run it inside one transaction (`Database.run_transaction`). The server's item
    statistics summary counted the member's answers: it is marked stale.
    """
    deleted = {step.name: step.delete(conn, guild_id, user_id) for step in MEMBER_STEPS}
    itemstats.mark_stale(conn, guild_id)
    return deleted


def delete_guild(conn: sqlite3.Connection, guild_id: int) -> dict[str, int]:
    """Delete everything about the server and its members; rows deleted per table."""
    return {step.name: step.delete(conn, guild_id) for step in GUILD_STEPS}


def export_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> dict[str, Any]:
    """Everything stored about the member in the server, with a note of each field."""
    data: dict[str, Any] = {
        "_about": {
            "_file": EXPORT_NOTE,
            **{step.name: step.about for step in MEMBER_STEPS},
        },
        "guild_id": guild_id,
        "user_id": user_id,
    }
    for step in MEMBER_STEPS:
        data[step.name] = step.export(conn, guild_id, user_id)
    return data


def member_guilds(conn: sqlite3.Connection, user_id: int) -> list[int]:
    """Every server in which a member step holds a row about the member."""
    found: set[int] = set()
    for table in MEMBER_TABLES:
        found.update(
            int(row[0])
            for row in conn.execute(
                f"SELECT DISTINCT guild_id FROM {table} WHERE user_id = ?", (user_id,)
            )
        )
    return sorted(found)
