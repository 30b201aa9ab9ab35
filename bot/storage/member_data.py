"""What tpquiz stores about a member, or a server: the one catalogue both backends follow.

Why a neutral module: `/tpquiz my-data`, `/tpquiz forget-me`, `tpquiz export-user`,
`tpquiz forget-user`, `tpquiz forget-guild` and the retention loop must export and delete
the same tables with the same notes whichever database is behind them. The catalogue is
written once, here: each table that stores something about a member is one
`MemberTable` (its name, what it is and a note of each field, for the export's "_about"),
and `GUILD_TABLES` lists every table with a guild_id in deletion order. Each backend
keys its own export and delete functions by table name (bot/storage/sqlite/members.py,
bot/storage/pg/members.py), and tests/storage/test_pg_privacy.py fails when one of them
misses a table. A new member-keyed table adds its entry here, then its functions there.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EXPORT_NOTE", "GUILD_TABLES", "MEMBER_DATA", "MEMBER_TABLES", "MemberTable"]


@dataclass(frozen=True)
class MemberTable:
    """One table (or group of tables) holding something about a member of a server."""

    #: The key in the export, normally the table's name.
    name: str
    #: What the table is, then one note per field, for the export's "_about".
    about: dict[str, str]
    #: The column that holds the member's id (a quiz night's host is `host_id`).
    member_column: str = "user_id"


#: Every table that stores something about a member, in deletion order (answers before
#: the test runs they reference).
MEMBER_DATA: tuple[MemberTable, ...] = (
    MemberTable(
        "answers",
        {
            "_table": "every answer you gave: to a question posted in the server, or in a test",
            "id": "the answer's number in the database",
            "guild_id": "the server",
            "user_id": "your Discord id",
            "question_id": "which question of the bank",
            "topic": "the question's topic",
            "post_id": "the posted question you answered (null for a test answer)",
            "test_run_id": "the test it belongs to (null for a posted question)",
            "choice_index": "the choice you picked (0 = the bank's first choice)",
            "correct": "1 if right",
            "first": "1 if it was your first answer to that question in this server",
            "points": "the points it gave (only a first right answer scores)",
            "answered_at": "when, in Unix milliseconds UTC",
        },
    ),
    MemberTable(
        "live_choices",
        {
            "_table": "your choices in quiz nights (/tpquiz live): the last one per question"
            " counts, and is also recorded as an answer (above) when the question is revealed",
            "session_id": "the quiz night",
            "position": "the question's number in it (0 = the first)",
            "guild_id": "the server",
            "user_id": "your Discord id",
            "choice_index": "the choice you locked in (0 = the bank's first choice)",
            "locked_at": "when (Unix ms UTC)",
        },
    ),
    MemberTable(
        "live_players",
        {
            "_table": "the quiz nights you joined",
            "session_id": "the quiz night",
            "guild_id": "the server",
            "user_id": "your Discord id",
            "name": "your display name in it",
            "joined_at": "when you joined (Unix ms UTC)",
        },
    ),
    MemberTable(
        "live_sessions",
        {
            "_table": "the quiz nights you hosted; deleting your data takes your id off them"
            " (a session stays the server's: its questions and other players' answers)",
            "id": "the quiz night",
            "channel_id": "the channel it ran in",
            "host_id": "your Discord id",
            "topic": "mixed, group-weakest or a topic",
            "question_count": "how many questions",
            "status": "lobby, question, reveal, paused or ended",
            "created_at": "when you started it (Unix ms UTC)",
            "ended_at": "when it ended (Unix ms UTC), or null",
        },
        member_column="host_id",
    ),
    MemberTable(
        "test_runs",
        {
            "_table": "the tests (/tpquiz test) and review rounds (/tpquiz review) you started",
            "kind": "'test' or 'review'",
            "params": "the numbers drawn for computed questions (JSON), or null",
            "id": "the test's number",
            "question_ids": "the questions it asked (JSON list)",
            "orders": "the order its choices were shown in (JSON)",
            "started_at": "when it started (Unix ms UTC)",
            "finished_at": "when it ended (Unix ms UTC), or null",
            "score": "right answers, once finished",
        },
    ),
    MemberTable(
        "members",
        {
            "_table": "your running totals in this server, which the leaderboard reads",
            "name": "your display name when you last answered",
            "points": "points in all",
            "answered": "answers in all",
            "correct": "right answers in all",
            "streak": "right answers in a row now",
            "best_streak": "the longest such run",
        },
    ),
    MemberTable(
        "member_periods",
        {
            "_table": "your totals per week and per month, for the period leaderboards",
            "period": "'week' (from Monday 00:00 UTC) or 'month' (from the 1st)",
            "starts_at": "when the week or month starts (Unix ms UTC)",
            "points": "points in it",
            "answered": "answers in it",
            "correct": "right answers in it",
        },
    ),
    MemberTable(
        "daily_streaks",
        {
            "_table": "your streak of daily questions answered on consecutive days",
            "last_date": "the last local date you answered the daily question",
            "streak": "consecutive days up to then",
            "best": "the longest such run",
        },
    ),
    MemberTable(
        "cards",
        {
            "_table": "your review cards (/tpquiz review): when each question is due again",
            "question_id": "the question",
            "state": "1 learning, 2 review, 3 relearning (FSRS)",
            "step": "the learning step, while learning",
            "stability": "days until recall drops to 90% (FSRS)",
            "difficulty": "how hard the question is for you, 1-10 (FSRS)",
            "due": "when it is due (Unix ms UTC)",
            "last_review": "when you last answered it (Unix ms UTC)",
            "reps": "times reviewed",
            "lapses": "times forgotten after learning it",
        },
    ),
    MemberTable(
        "review_reminders",
        {
            "_table": "your opt-in reminder of due review cards",
            "enabled": "1 if on",
            "remind_time": "the time of day (server time), or null for the daily post's",
            "language": "the reminder's language",
            "set_at": "when you set it (Unix ms UTC)",
            "last_date": "the last local date a reminder was sent",
            "refused_at": "when Discord last refused to deliver it (DMs closed), or null",
        },
    ),
    MemberTable(
        "reports",
        {
            "_table": "the problems you reported on questions (the Report a problem button)",
            "id": "the report's number",
            "question_id": "the question",
            "language": "the language you saw it in",
            "reason": "wrong_answer, unclear, typo, outdated or other",
            "body": "your own words",
            "created_at": "when (Unix ms UTC)",
            "resolved_at": "when an admin or maintainer resolved it, or null",
            "resolved_by": "the admin's id, or null",
            "note": "what was done",
        },
    ),
    MemberTable(
        "suggestions",
        {
            "_table": "the questions you suggested (/tpquiz suggest), as you typed them;"
            " deleting your data deletes them and takes your name off accepted ones, which"
            " stay the server's questions (credited to 'a member')",
            "id": "the suggestion's number",
            "user_id": "your Discord id",
            "author_name": "your display name when you submitted it (the credit)",
            "language": "the language it is written in",
            "text": "the question",
            "right_answer": "the right answer",
            "wrong_answers": "the wrong answers, one per line: answer | why it is wrong",
            "explanation": "the explanation",
            "source": "the source",
            "state": "draft (had problems), open, changes (asked for changes), accepted"
            " or rejected",
            "created_at": "when you first submitted it (Unix ms UTC)",
            "updated_at": "when it last changed (Unix ms UTC)",
            "decided_at": "when a moderator decided (Unix ms UTC), or null",
            "reviewer_id": "the moderator who decided, or null",
            "reason": "the moderator's reason (asked for changes, rejected), or null",
            "question_id": "the server question it became, once accepted",
            "notified_at": "when you were told the decision in the server, or null",
            "post_channel_id": "the review channel it was posted in, or null",
            "post_message_id": "the review post, or null",
        },
    ),
)

#: The tables a member's rows are read from (for `member_guilds`).
MEMBER_TABLES: tuple[str, ...] = (
    "answers",
    "live_choices",
    "live_players",
    "test_runs",
    "members",
    "member_periods",
    "daily_streaks",
    "cards",
    "review_reminders",
    "reports",
    "suggestions",
)

#: Every table with a guild_id, in deletion order (rows referencing others first).
GUILD_TABLES: tuple[str, ...] = (
    "cards",
    "review_reminders",
    "reports",
    "live_choices",
    "live_players",
    "live_questions",
    "live_sessions",
    "answers",
    "test_runs",
    "members",
    "member_periods",
    "score_counts",
    "daily_streaks",
    "daily_slots",
    "posts",
    "daily_settings",
    "guild_settings",
    "guild_removals",
    "item_stats",
    "item_stats_refreshes",
    "suggestions",
    "suggestion_settings",
    "guild_questions",
    "guild_bank_settings",
)

#: The export's "_about"/"_file" note.
EXPORT_NOTE = (
    "Everything tpquiz stores about you in this server. Times are Unix"
    " milliseconds UTC. docs/privacy.md says why and for how long;"
    " /tpquiz forget-me deletes it."
)
