"""Reading what item statistics need (members' first answers), and the per-server
summary the admin view reads (issue #13).

Only first answers count (`answers.first = 1`: a member's first answer to a question in
a server, the one that can score; later posts of the same question and test retries are
`first = 0`). `answers.choice_index` is the choice in file order, whatever order the
buttons showed it in, and `correct` was decided when it was recorded.

These are plain `sqlite3` functions: the command line runs them on a read-only
connection of its own (`tpquiz questions report`), the bot on its database thread
(`Database.run_read`). The statistics themselves are `bot.quiz.itemstats`.

The summary (`item_stats`, `item_stats_refreshes`, migration 0009) holds each server's
figures as a periodic refresh computed them (cogs/item_refresh.py, bot/services/items.py),
so `/tpquiz-admin questions` reads a few hundred rows instead of computing over a big
server's answers (over a second at 130,000 first answers). Flags are not stored: they
come from the figures and the open reports when read. A member's deletion marks the
server's summary stale (`mark_stale`: the view computes on demand until the next
refresh) and bumps its generation, so a refresh computed from answers read before the
deletion is not written (`write_summary`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.quiz.itemstats import FirstAnswer, ItemStats
from bot.quiz.itemstats_fast import MemberRow
from bot.storage import problems
from bot.storage.records import (
    ITEM_STATS_COLUMNS,
    REFRESH_COLUMNS,
    Chunk,
    Refresh,
    item_stats_of,
    refresh_of,
    summary_rows,
)
from bot.storage.sqlite import preflight


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


#: One server's first answers through the partial index on them, (guild, user,
#: question) WHERE first = 1: it has them in member order and counts them without the
#: table. SQLite's planner may pick `answers_member` instead (every answer of the
#: server, first or not, then the table: 450 ms against 13 ms to count the biggest
#: server's at a million answers, after migration 0008 rebuilt the table).
_FIRST = "INDEXED BY answers_first"

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


def member_rows(conn: sqlite3.Connection, guild_id: int | None = None) -> list[MemberRow]:
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
    sql = _MEMBER_ROWS.format(where=f"{_FIRST} WHERE guild_id = ? AND first = 1")
    return conn.execute(sql, (guild_id,)).fetchall()


def member_rows_chunk(
    conn: sqlite3.Connection, guild_id: int, after_user: int | None, rows: int
) -> Chunk:
    """One server's `member_rows` for the members after `after_user` (None: from the
    first), about `rows` rows of whole members; and the last member read (None when
    there is nobody after). Chunks read one after another give `member_rows(conn,
    guild_id)` in the same order, so the refresh holds the database thread a short
    while at a time; a member's answers are all in one chunk, read from one snapshot.
    """
    after = -(2**63) if after_user is None else after_user
    last = conn.execute(
        f"SELECT user_id FROM answers {_FIRST} WHERE guild_id = ? AND first = 1"
        " AND user_id > ? ORDER BY user_id LIMIT 1 OFFSET ?",
        (guild_id, after, max(rows - 1, 0)),
    ).fetchone()
    if last is None:
        last = conn.execute(
            f"SELECT MAX(user_id) FROM answers {_FIRST} WHERE guild_id = ? AND first = 1"
            " AND user_id > ?",
            (guild_id, after),
        ).fetchone()
    upto = last[0] if last else None
    if upto is None:
        return [], None
    sql = _MEMBER_ROWS.format(
        where=f"{_FIRST} WHERE guild_id = ? AND first = 1 AND user_id > ? AND user_id <= ?"
    )
    return conn.execute(sql, (guild_id, after, upto)).fetchall(), int(upto)


def first_answer_counts(conn: sqlite3.Connection) -> dict[int, int]:
    """First answers per server (one pass over the `answers_first` index: about 0.1 s
    at a million answers), for the refresh to see which servers grew."""
    return {
        int(g): int(n)
        for g, n in conn.execute(
            f"SELECT guild_id, COUNT(*) FROM answers {_FIRST} WHERE first = 1 GROUP BY guild_id"
        )
    }


def first_answer_count(conn: sqlite3.Connection, guild_id: int) -> int:
    row = conn.execute(
        f"SELECT COUNT(*) FROM answers {_FIRST} WHERE guild_id = ? AND first = 1", (guild_id,)
    ).fetchone()
    return int(row[0])


def refreshes(conn: sqlite3.Connection, guild_id: int | None = None) -> dict[int, Refresh]:
    """Every server's summary state (or one server's)."""
    sql = f"SELECT {REFRESH_COLUMNS} FROM item_stats_refreshes"
    cur = (
        conn.execute(sql)
        if guild_id is None
        else conn.execute(f"{sql} WHERE guild_id = ?", (guild_id,))
    )
    return {int(row[0]): refresh_of(row) for row in cur}


def claim(conn: sqlite3.Connection, guild_id: int) -> None:
    """Give a server about to be refreshed for the first time its state row (stale, so
    the view does not read it), so that a member's deletion during the refresh is seen
    (`mark_stale` only marks existing rows)."""
    conn.execute(
        "INSERT INTO item_stats_refreshes (guild_id, refreshed_at, first_answers, pool_key,"
        " stale) VALUES (?, 0, 0, '', 1) ON CONFLICT (guild_id) DO NOTHING",
        (guild_id,),
    )


def write_summary(
    conn: sqlite3.Connection,
    guild_id: int,
    stats: list[ItemStats],
    *,
    now_ms: int,
    first_answers: int,
    pool_key: str,
    generation: int,
) -> bool:
    """Replace the server's summary with `stats` (run it in one write transaction).

    Not written (False) when the server's state row is gone (the server was deleted) or
    its generation moved since the answers were read (a member was deleted): the next
    refresh computes it again.
    """
    row = conn.execute(
        "SELECT generation FROM item_stats_refreshes WHERE guild_id = ?", (guild_id,)
    ).fetchone()
    if row is None or int(row[0]) != generation:
        return False
    conn.execute("DELETE FROM item_stats WHERE guild_id = ?", (guild_id,))
    conn.executemany(
        "INSERT INTO item_stats (guild_id, question_id, answers, correct, discrimination,"
        " ranked, key_index, picks, top_picks, bottom_picks, refreshed_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        summary_rows(guild_id, stats, now_ms),
    )
    conn.execute(
        "UPDATE item_stats_refreshes SET refreshed_at = ?, first_answers = ?, pool_key = ?,"
        " stale = 0 WHERE guild_id = ?",
        (now_ms, first_answers, pool_key, guild_id),
    )
    return True


def read_summary(conn: sqlite3.Connection, guild_id: int) -> dict[str, ItemStats]:
    """The server's stored figures per question (no flags, no reports: the caller adds
    them for the pool it has)."""
    rows = conn.execute(
        f"SELECT {ITEM_STATS_COLUMNS} FROM item_stats WHERE guild_id = ?", (guild_id,)
    )
    return {str(row[0]): item_stats_of(row) for row in rows}


def mark_stale(conn: sqlite3.Connection, guild_id: int) -> int:
    """A member of the server was deleted: its summary counted them. The view computes
    on demand until the next refresh, which recomputes it; a refresh under way when
    this ran does not write (its generation moved). Rows changed (0 or 1)."""
    return conn.execute(
        "UPDATE item_stats_refreshes SET stale = 1, generation = generation + 1 WHERE guild_id = ?",
        (guild_id,),
    ).rowcount


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
