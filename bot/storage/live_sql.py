"""Quiz night's SQL and row mappings, the same on both backends (issue 26, migration 0012).

Why a neutral module: the session tables are the same on SQLite and PostgreSQL, and so
is nearly every statement on them; each is written once here with `?` placeholders,
SQLite's form, and bot/storage/pg/live.py numbers them ($1, $2, ...) once at import
(`numbered`). What differs stays in each backend's store: SQLite serialises writers
(BEGIN IMMEDIATE), PostgreSQL locks the question's row FOR SHARE in a lock-in so that a
reveal, which updates that row, waits for the lock-ins under way and every lock-in after
it sees the question revealed. So an acknowledged "locked in" is always counted, and a
click after the reveal never is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.quiz.live_state import LiveChoice, LiveQuestion, LiveSession, LockIn

__all__ = [
    "CHOICES",
    "CLAIM_REVEAL",
    "CLOSE_POST",
    "CLOSE_SESSION_POSTS",
    "END",
    "GET",
    "IN_CHANNEL",
    "INSERT_POST",
    "INSERT_QUESTION",
    "INSERT_SESSION",
    "JOIN",
    "JOINED_BY",
    "LOCK_READ",
    "OPEN_QUESTION",
    "OPEN_SESSIONS",
    "PAUSE",
    "PLAYERS",
    "QUESTIONS",
    "RECORDED",
    "RESUME",
    "ROLL_CALL",
    "SESSION_NEXT_AT",
    "SESSION_POSITION",
    "SET_LOBBY",
    "START",
    "UPSERT_CHOICE",
    "UPSERT_PLAYER",
    "choice_of",
    "lock_verdict",
    "numbered",
    "question_of",
    "session_of",
]

SESSION_COLUMNS = (
    "id, guild_id, channel_id, host_id, language, topic, question_count, seconds, scoring,"
    " status, lobby_message_id, created_at, position, deadline_at, remaining_ms, ended_at,"
    " end_reason"
)

INSERT_SESSION = (
    "INSERT INTO live_sessions (guild_id, channel_id, host_id, language, topic,"
    " question_count, seconds, scoring, created_at, deadline_at, position)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, -1)"
    " ON CONFLICT (channel_id) WHERE status <> 'ended' DO NOTHING"
    f" RETURNING {SESSION_COLUMNS}"
)
INSERT_POST = (
    "INSERT INTO posts (guild_id, channel_id, question_id, choice_order, language, kind,"
    " created_at, params) VALUES (?, ?, ?, ?, ?, 'live', ?, ?) RETURNING id"
)
INSERT_QUESTION = (
    "INSERT INTO live_questions (session_id, position, guild_id, post_id, seconds)"
    " VALUES (?, ?, ?, ?, ?)"
)
GET = f"SELECT {SESSION_COLUMNS} FROM live_sessions WHERE id = ?"
IN_CHANNEL = (
    f"SELECT {SESSION_COLUMNS} FROM live_sessions WHERE channel_id = ? AND status <> 'ended'"
)
OPEN_SESSIONS = f"SELECT {SESSION_COLUMNS} FROM live_sessions WHERE status <> 'ended' ORDER BY id"
SET_LOBBY = "UPDATE live_sessions SET lobby_message_id = ? WHERE id = ?"
QUESTIONS = (
    "SELECT q.session_id, q.position, q.post_id, p.question_id, p.choice_order, p.params,"
    " p.message_id, q.seconds, q.opened_at, q.revealed_at, q.recorded_at, q.skipped"
    " FROM live_questions AS q JOIN posts AS p ON p.id = q.post_id"
    " WHERE q.session_id = ? ORDER BY q.position"
)
JOIN = (
    "INSERT INTO live_players (session_id, guild_id, user_id, name, joined_at)"
    " SELECT id, guild_id, CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BIGINT) FROM live_sessions WHERE id = ? AND status <> 'ended'"
    " ON CONFLICT (session_id, user_id) DO NOTHING"
)
PLAYERS = "SELECT user_id, name FROM live_players WHERE session_id = ? ORDER BY joined_at, user_id"
#: The players who had joined by `?` (a question's opening): the early reveal waits for them.
JOINED_BY = (
    "SELECT user_id FROM live_players WHERE session_id = ? AND joined_at <= ? ORDER BY user_id"
)
#: Those players, and whether each has a choice locked in for the question: one statement
#: for the early reveal's check, which every lock-in's nudge may ask.
ROLL_CALL = (
    "SELECT p.user_id, c.user_id IS NOT NULL FROM live_players AS p"
    " LEFT JOIN live_choices AS c ON c.session_id = p.session_id AND c.position = ?"
    " AND c.user_id = p.user_id WHERE p.session_id = ? AND p.joined_at <= ?"
)
#: The lock-in's check: the session's status and the question's times ({lock}: FOR SHARE).
LOCK_READ = (
    "SELECT s.status, q.opened_at, q.revealed_at, s.guild_id"
    " FROM live_questions AS q JOIN live_sessions AS s ON s.id = q.session_id"
    " WHERE q.session_id = ? AND q.position = ?{lock}"
)
UPSERT_PLAYER = (
    "INSERT INTO live_players (session_id, guild_id, user_id, name, joined_at)"
    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, user_id) DO UPDATE SET name = excluded.name"
)
UPSERT_CHOICE = (
    "INSERT INTO live_choices (session_id, position, guild_id, user_id, choice_index, locked_at)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, position, user_id) DO UPDATE SET"
    " choice_index = excluded.choice_index, locked_at = excluded.locked_at"
)
CHOICES = (
    "SELECT session_id, position, user_id, choice_index, locked_at FROM live_choices"
    " WHERE session_id = ? ORDER BY position, user_id"
)
START = "UPDATE live_sessions SET status = 'running' WHERE id = ? AND status = 'lobby'"
OPEN_QUESTION = (
    "UPDATE live_questions SET opened_at = ? WHERE session_id = ? AND position = ?"
    " AND opened_at IS NULL"
)
SESSION_POSITION = (
    "UPDATE live_sessions SET position = ?, deadline_at = ? WHERE id = ? AND status = 'running'"
    " AND position < ?"
)
CLAIM_REVEAL = (
    "UPDATE live_questions SET revealed_at = ?, skipped = ? WHERE session_id = ?"
    " AND position = ? AND opened_at IS NOT NULL AND revealed_at IS NULL"
)
SESSION_NEXT_AT = "UPDATE live_sessions SET deadline_at = ? WHERE id = ? AND status = 'running'"
RECORDED = (
    "UPDATE live_questions SET recorded_at = ? WHERE session_id = ? AND position = ?"
    " AND recorded_at IS NULL"
)
CLOSE_POST = "UPDATE posts SET closed_at = ? WHERE id = ? AND closed_at IS NULL"
PAUSE = (
    "UPDATE live_sessions SET status = 'paused',"
    " remaining_ms = CASE WHEN deadline_at > ? THEN deadline_at - ? ELSE 0 END,"
    " deadline_at = NULL WHERE id = ? AND status = 'running'"
)
RESUME = (
    "UPDATE live_sessions SET status = 'running', deadline_at = ? + remaining_ms,"
    " remaining_ms = NULL WHERE id = ? AND status = 'paused' RETURNING deadline_at"
)
END = (
    "UPDATE live_sessions SET status = 'ended', ended_at = ?, end_reason = ?,"
    " deadline_at = NULL, remaining_ms = NULL WHERE id = ? AND status <> 'ended'"
)
CLOSE_SESSION_POSTS = (
    "UPDATE posts SET closed_at = ? WHERE closed_at IS NULL"
    " AND id IN (SELECT post_id FROM live_questions WHERE session_id = ?)"
)


def numbered(sql: str) -> str:
    """`?` placeholders as PostgreSQL's $1, $2, ... (none of these statements has a '?'
    inside a literal)."""
    parts = sql.split("?")
    return parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], 1))


def session_of(row: Sequence[Any]) -> LiveSession:
    return LiveSession(
        id=int(row[0]),
        guild_id=int(row[1]),
        channel_id=int(row[2]),
        host_id=int(row[3]),
        language=str(row[4]),
        topic=str(row[5]),
        question_count=int(row[6]),
        seconds=None if row[7] is None else int(row[7]),
        scoring=row[8],
        status=row[9],
        lobby_message_id=None if row[10] is None else int(row[10]),
        created_at=int(row[11]),
        position=int(row[12]),
        deadline_at=None if row[13] is None else int(row[13]),
        remaining_ms=None if row[14] is None else int(row[14]),
        ended_at=None if row[15] is None else int(row[15]),
        end_reason=row[16],
    )


def question_of(row: Sequence[Any]) -> LiveQuestion:
    def opt(value: Any) -> int | None:
        return None if value is None else int(value)

    return LiveQuestion(
        session_id=int(row[0]),
        position=int(row[1]),
        post_id=int(row[2]),
        question_id=str(row[3]),
        order=tuple(int(x) for x in str(row[4]).split(",")),
        params=row[5],
        message_id=opt(row[6]),
        seconds=int(row[7]),
        opened_at=opt(row[8]),
        revealed_at=opt(row[9]),
        recorded_at=opt(row[10]),
        skipped=bool(row[11]),
    )


def choice_of(row: Sequence[Any]) -> LiveChoice:
    return LiveChoice(int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]))


def lock_verdict(row: Sequence[Any] | None) -> LockIn | None:
    """What a lock-in's check says: None (go ahead), or why it changes nothing."""
    if row is None:
        return "late"
    if row[0] == "ended":
        return "ended"
    if row[1] is None or row[2] is not None or row[0] == "lobby":
        return "late"
    return None
