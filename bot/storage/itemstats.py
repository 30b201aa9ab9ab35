"""Reading what item statistics need: members' first answers (issue #13).

Only first answers count (`answers.first = 1`: a member's first answer to a question in
a server, the one that can score; later posts of the same question and test retries are
`first = 0`). `answers.choice_index` is the choice in file order, whatever order the
buttons showed it in, and `correct` was decided when it was recorded.

These are plain `sqlite3` functions: the command line runs them on a read-only
connection of its own (`tpquiz questions report`), the bot on its database thread
(`Database.run_read`). The statistics themselves are `bot.quiz.itemstats`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.quiz.itemstats import FirstAnswer

from . import preflight, problems


def first_answers(conn: sqlite3.Connection, guild_id: int | None = None) -> list[FirstAnswer]:
    """Every first answer, of one server or (None) of every server the bot serves.

    One pass over the table: reading rows is the cost (about a second per million), so
    no index is asked for when every server is wanted.
    """
    columns = "SELECT guild_id, user_id, question_id, choice_index, correct FROM answers"
    if guild_id is None:
        cursor = conn.execute(f"{columns} NOT INDEXED WHERE first = 1")
    else:
        cursor = conn.execute(f"{columns} WHERE guild_id = ? AND first = 1", (guild_id,))
    return [FirstAnswer(g, u, q, c, bool(r)) for g, u, q, c, r in cursor]


def first_answer_rows(
    conn: sqlite3.Connection, guild_id: int | None = None
) -> list[tuple[int, int, str, int, int]]:
    """The same first answers as `first_answers`, in the same order, as plain tuples
    (guild, user, question, choice, correct 0/1) for `bot.quiz.itemstats_fast`.

    At a million answers, building a `FirstAnswer` per row was a third of the report's
    time; the tuples sqlite3 returns are used as they come.
    """
    columns = "SELECT guild_id, user_id, question_id, choice_index, correct != 0 FROM answers"
    if guild_id is None:
        cursor = conn.execute(f"{columns} NOT INDEXED WHERE first = 1")
    else:
        cursor = conn.execute(f"{columns} WHERE guild_id = ? AND first = 1", (guild_id,))
    return cursor.fetchall()


#: Each first answer with its member's accuracy on their other first answers (None with
#: no other), in (guild, user) order: the window's partition is that sort (of the whole
#: table for every server; for one server the `answers_first` index already gives it).
_MEMBER_ROWS = (
    "SELECT question_id, hit, CASE WHEN answered > 1"
    " THEN (hits - hit) * 1.0 / (answered - 1) END, choice_index"
    " FROM (SELECT question_id, choice_index, correct != 0 AS hit, guild_id, user_id,"
    "  COUNT(*) OVER member AS answered, SUM(correct != 0) OVER member AS hits"
    "  FROM answers {where}"
    "  WINDOW member AS (PARTITION BY guild_id, user_id))"
    " ORDER BY guild_id, user_id"
)


def member_rows(
    conn: sqlite3.Connection, guild_id: int | None = None
) -> list[tuple[str, int, float | None, int]]:
    """Every first answer (of one server, or of every server) as (question, correct 0/1,
    the member's accuracy on their other first answers or None, choice), in (guild,
    user) order, for `bot.quiz.itemstats_fast.bank_stats_member_rows`.

    SQLite does the per-member pass (a window over each member's first answers) in one
    scan and one sort; the division is SQLite's IEEE double division of the same
    integers Python divides, so the accuracy is the same float
    (tests/storage/test_itemstats_read.py checks it against
    `bot.quiz.itemstats_fast.member_rows`).
    """
    if guild_id is None:
        sql = _MEMBER_ROWS.format(where="NOT INDEXED WHERE first = 1")
        return conn.execute(sql).fetchall()
    sql = _MEMBER_ROWS.format(where="WHERE guild_id = ? AND first = 1")
    return conn.execute(sql, (guild_id,)).fetchall()


def open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection to the database at `path` for the reporting commands;
    DatabaseUnusable (one sentence) when it cannot be read or is not tpquiz's.

    Only the cheap checks (`preflight.path_problem`), not `quick_check`: the report must
    stay fast on a file of millions of answers, and it changes nothing.
    """
    problem = preflight.path_problem(path, write=False)
    if problem:
        raise problems.DatabaseUnusable(problem)
    try:
        conn = sqlite3.connect(preflight.readonly_uri(path), uri=True)
        conn.execute("PRAGMA busy_timeout = 5000")
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if not has_table(conn, "answers"):
            conn.close()
            raise problems.DatabaseUnusable(problems.not_tpquiz(path, version))
    except sqlite3.DatabaseError as exc:
        raise problems.DatabaseUnusable(problems.unreadable_sqlite(path, exc)) from None
    return conn


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the file has table `name` (an older schema may lack the reports)."""
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None
