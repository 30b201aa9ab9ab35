"""A quiz night session's state as the database holds it (issue 26), as plain records.

Why here and not in bot/storage/records.py: these are the session's own terms (its
status, its current question, a player's locked-in choice), which the rules in
bot/quiz/live.py, the service and both storage backends all speak; being pure data they
sit beside the rules, and storage maps its rows onto them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["LiveChoice", "LiveQuestion", "LiveSession", "LockIn", "Status"]

Status = Literal["lobby", "running", "paused", "ended"]
#: A lock-in's outcome: saved; too late (the question was revealed, or never opened);
#: the session ended.
LockIn = Literal["locked", "late", "ended"]


@dataclass(frozen=True, slots=True)
class LiveSession:
    id: int
    guild_id: int
    channel_id: int
    host_id: int
    language: str
    topic: str
    question_count: int
    #: The host's seconds per question, or None (each question's own).
    seconds: int | None
    scoring: Literal["accuracy", "speed"]
    status: Status
    lobby_message_id: int | None
    created_at: int
    #: The current question (-1 in the lobby).
    position: int
    #: Lobby: when it starts by itself. A question open: its deadline. Revealed: when
    #: the next question opens. None while paused.
    deadline_at: int | None
    #: Paused: what was left of the deadline.
    remaining_ms: int | None
    ended_at: int | None
    end_reason: str | None


@dataclass(frozen=True, slots=True)
class LiveQuestion:
    """One question of a session: its post (the question, choice order, drawn numbers
    and message) and its timing."""

    session_id: int
    position: int
    post_id: int
    question_id: str
    order: tuple[int, ...]
    params: str | None
    message_id: int | None
    seconds: int
    opened_at: int | None
    revealed_at: int | None
    #: When its final choices were recorded as real answers.
    recorded_at: int | None
    skipped: bool


@dataclass(frozen=True, slots=True)
class LiveChoice:
    """A player's locked-in choice (a choice index in the question's file order)."""

    session_id: int
    position: int
    user_id: int
    choice_index: int
    locked_at: int
