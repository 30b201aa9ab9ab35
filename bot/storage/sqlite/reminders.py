"""Members' review reminders as plain `sqlite3` functions: member deletion and export.

The reminder store itself is bot/storage/stores/reminders.py, shared with PostgreSQL;
these run on the database thread inside bot/storage/sqlite/members.py's deletion and
export (PostgreSQL's are in bot/storage/pg/members.py), under the catalogue of
bot/storage/member_data.py.
"""

from __future__ import annotations

import sqlite3


def delete_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    return conn.execute(
        "DELETE FROM review_reminders WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    ).rowcount


def delete_guild(conn: sqlite3.Connection, guild_id: int) -> int:
    return conn.execute("DELETE FROM review_reminders WHERE guild_id = ?", (guild_id,)).rowcount


def export_member(conn: sqlite3.Connection, guild_id: int, user_id: int) -> list[dict[str, object]]:
    cur = conn.execute(
        "SELECT enabled, remind_time, language, set_at, last_date, refused_at"
        " FROM review_reminders WHERE guild_id = ? AND user_id = ?",
        (guild_id, user_id),
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, tuple(row), strict=True)) for row in cur.fetchall()]
