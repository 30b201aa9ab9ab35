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

from bot.quiz.itemstats import FirstAnswer


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
