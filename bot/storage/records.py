"""The records the stores return, and the column lists and row mappers both backends share.

Why a neutral module: the contract (contract.py) promises these types whichever database
is behind it, the services and the UI read them, and the SQLite and PostgreSQL stores
build them from the same columns. Written once here, both backends return equal objects
for equal rows, and neither backend imports the other. Nothing here touches a database:
a mapper takes a row as a sequence (an `sqlite3.Row`, an asyncpg `Record` or a tuple)
whose columns come in the order of the matching column list.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bot.quiz.itemstats import ItemStats
from bot.quiz.itemstats_fast import MemberRow
from bot.quiz.memory import CardState
from bot.quiz.scoring import MemberScore

__all__ = [
    "CARD_COLUMNS",
    "CLICK_CACHE_SIZE",
    "DAILY_SETTINGS_COLUMNS",
    "ITEM_STATS_COLUMNS",
    "LEADERBOARD_ORDER",
    "OPEN_REVIEW",
    "POST_COLUMNS",
    "REFRESH_COLUMNS",
    "REPORT_COLUMNS",
    "TEST_RUN_COLUMNS",
    "Chunk",
    "DailySettings",
    "MemberStats",
    "PendingRemoval",
    "Post",
    "RankedScore",
    "Refresh",
    "ReminderRow",
    "Report",
    "StorageHealth",
    "SummaryRead",
    "TestRun",
    "card_of",
    "card_values",
    "counts_of",
    "daily_settings_of",
    "item_stats_of",
    "post_of",
    "refresh_of",
    "reports_of",
    "summary_rows",
    "test_run_of",
]

# -- the database as a whole ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StorageHealth:
    """What the heartbeat reports of the database (`StorageContract.health`)."""

    #: Wall-clock time of the last committed write still in the database; None before the
    #: first, and on SQLite once its file was lost (what was committed went with it).
    last_write_at: float | None
    #: Why the database takes no more writes (SQLite: its file was deleted or replaced);
    #: None while it does. A failing server shows as `WriteFailed` on each write instead.
    fault: str | None


# -- posts -------------------------------------------------------------------------------

#: Open posts kept in memory for the click path (a post's fields that a click reads
#: never change; see `PostStore.for_click`). A few thousand open posts at most.
CLICK_CACHE_SIZE = 4_096


@dataclass(frozen=True, slots=True)
class Post:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    question_id: str
    order: tuple[int, ...]
    language: str
    kind: str
    created_at: int
    closes_at: int | None
    closed_at: int | None
    answer_count: int
    #: Local date ('YYYY-MM-DD') of a daily post (kind 'daily'); None for other posts.
    daily_date: str | None = None
    #: Drawn parameters of a computed question (JSON, see bot.quiz.templates); else None.
    params: str | None = None


POST_COLUMNS = (
    "id, guild_id, channel_id, message_id, question_id, choice_order, language, kind,"
    " created_at, closes_at, closed_at, answer_count, daily_date, params"
)


def post_of(row: object) -> Post:
    """A post from its `POST_COLUMNS`."""
    values = list(row)  # type: ignore[call-overload]
    values[5] = tuple(int(i) for i in values[5].split(","))
    return Post(*values)


# -- test and review runs ----------------------------------------------------------------

#: The conflict target of the unique index test_runs_one_open_review (migration 0011):
#: a member's open review round in a server. Both backends' `start_review` use it.
OPEN_REVIEW = "(guild_id, user_id) WHERE kind = 'review' AND finished_at IS NULL"


@dataclass(frozen=True, slots=True)
class TestRun:
    __test__ = False  # not a pytest test class

    id: int
    guild_id: int
    user_id: int
    question_ids: tuple[str, ...]
    orders: tuple[tuple[int, ...], ...]
    started_at: int
    finished_at: int | None
    score: int | None
    kind: str = "test"
    params: tuple[str | None, ...] = ()


TEST_RUN_COLUMNS = (
    "id, guild_id, user_id, question_ids, orders, started_at, finished_at, score, kind, params"
)


def test_run_of(row: Sequence[Any]) -> TestRun:
    """A run from its `TEST_RUN_COLUMNS` (the plan is stored as JSON text)."""
    return TestRun(
        id=row[0],
        guild_id=row[1],
        user_id=row[2],
        question_ids=tuple(json.loads(row[3])),
        orders=tuple(tuple(o) for o in json.loads(row[4])),
        started_at=row[5],
        finished_at=row[6],
        score=row[7],
        kind=row[8],
        params=tuple(json.loads(row[9])) if row[9] else (),
    )


# -- daily posts -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DailySettings:
    guild_id: int
    channel_id: int | None
    enabled: bool
    post_time: str
    timezone: str
    role_id: int | None
    schedule_set_at: int
    last_date: str | None
    error_code: int | None
    error_status: int | None
    error_text: str | None
    error_channel: int | None
    error_at: int | None


DAILY_SETTINGS_COLUMNS = (
    "guild_id, channel_id, enabled, post_time, timezone, role_id, schedule_set_at, last_date,"
    " error_code, error_status, error_text, error_channel, error_at"
)


def daily_settings_of(row: object) -> DailySettings:
    """A server's daily settings from its `DAILY_SETTINGS_COLUMNS`."""
    values = list(row)  # type: ignore[call-overload]
    values[2] = bool(values[2])
    return DailySettings(*values)


# -- standings ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RankedScore:
    rank: int
    score: MemberScore


@dataclass(frozen=True, slots=True)
class MemberStats:
    score: MemberScore
    rank: int
    #: topic -> (answered, correct)
    per_topic: dict[str, tuple[int, int]]
    best_test: tuple[int, int] | None  # (score, total)


#: Leaderboard order: competition ranks over (points, correct), then fewer answers, then
#: the lower user id (the order of the `members_rank` and `member_periods_rank` indexes).
LEADERBOARD_ORDER = "points DESC, correct DESC, answered ASC, user_id ASC"


# -- reminders and server removals -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReminderRow:
    guild_id: int
    user_id: int
    #: 'HH:MM' chosen by the member, or None for the server's daily post time.
    remind_time: str | None
    language: str
    set_at: int
    last_date: str | None
    #: The server's daily settings (defaults when it never set them).
    timezone: str
    post_time: str


@dataclass(frozen=True, slots=True)
class PendingRemoval:
    """A server that removed the bot: its data goes at `due_at` (Unix ms UTC)."""

    guild_id: int
    removed_at: int
    due_at: int


# -- problem reports ---------------------------------------------------------------------

REPORT_COLUMNS = (
    "id, guild_id, user_id, question_id, language, reason, body, created_at,"
    " resolved_at, resolved_by, note"
)


@dataclass(frozen=True)
class Report:
    id: int
    guild_id: int
    user_id: int
    question_id: str
    language: str
    reason: str
    body: str
    created_at: int
    resolved_at: int | None
    resolved_by: int | None
    note: str | None

    @property
    def open(self) -> bool:
        return self.resolved_at is None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def reports_of(rows: Sequence[Sequence[object]]) -> list[Report]:
    """Reports from rows of `REPORT_COLUMNS`."""
    return [Report(*row) for row in rows]  # type: ignore[arg-type]


# -- item statistics ---------------------------------------------------------------------

#: A chunk of `member_rows` and the last member in it.
Chunk = tuple[list[MemberRow], int | None]


@dataclass(frozen=True)
class Refresh:
    """A server's summary: when it was computed, from how many first answers, for which
    pool of questions (`pool_key`), and whether a member's deletion made it stale."""

    guild_id: int
    refreshed_at: int
    first_answers: int
    pool_key: str
    stale: bool
    generation: int


@dataclass(frozen=True)
class SummaryRead:
    """What the admin view reads of a server: its stored figures per question (None when
    there is no summary to read: never computed, stale, or for another pool of
    questions), when they were computed, and its open reports per question."""

    stats: dict[str, ItemStats] | None
    refreshed_at: int
    open_reports: dict[str, int]


REFRESH_COLUMNS = "guild_id, refreshed_at, first_answers, pool_key, stale, generation"


def refresh_of(row: Sequence[Any]) -> Refresh:
    """A server's summary state from its `REFRESH_COLUMNS`."""
    g, at, n, key, stale, gen = row
    return Refresh(int(g), int(at), int(n), str(key), bool(stale), int(gen))


ITEM_STATS_COLUMNS = (
    "question_id, answers, correct, discrimination, ranked, key_index, picks,"
    " top_picks, bottom_picks"
)


def item_stats_of(row: Sequence[Any]) -> ItemStats:
    """One question's stored figures from its `ITEM_STATS_COLUMNS` (no flags: the reader
    adds them for the pool it has)."""
    q, n, right, disc, ranked, key, picks, top, bottom = row
    return ItemStats(
        question_id=str(q),
        answers=int(n),
        correct=int(right),
        facility=int(right) / int(n) if n else None,
        discrimination=None if disc is None else float(disc),
        ranked=int(ranked),
        picks=counts_of(picks),
        top_picks=counts_of(top),
        bottom_picks=counts_of(bottom),
        key_index=int(key),
    )


def counts_of(text: str) -> tuple[int, ...]:
    """Per-choice counts from their stored text ('3,0,1'; '' for none)."""
    return tuple(int(x) for x in text.split(",")) if text else ()


def _text(counts: tuple[int, ...]) -> str:
    return ",".join(str(c) for c in counts)


def summary_rows(
    guild_id: int, stats: Sequence[ItemStats], now_ms: int
) -> list[tuple[object, ...]]:
    """The `item_stats` rows of a server's refresh, in the INSERT's column order (both
    backends write the same rows)."""
    return [
        (
            guild_id,
            s.question_id,
            s.answers,
            s.correct,
            s.discrimination,
            s.ranked,
            s.key_index,
            _text(s.picks),
            _text(s.top_picks),
            _text(s.bottom_picks),
            now_ms,
        )
        for s in stats
    ]


# -- review cards ------------------------------------------------------------------------

CARD_COLUMNS = "state, step, stability, difficulty, due, last_review, reps, lapses"


def card_of(row: Sequence[object]) -> CardState:
    """A card from its stored columns (`CARD_COLUMNS`, in that order)."""
    state, step, stability, difficulty, due, last, reps, lapses = tuple(row)
    return CardState(
        state=int(state),  # type: ignore[call-overload]
        step=None if step is None else int(step),  # type: ignore[call-overload]
        stability=float(stability),  # type: ignore[arg-type]
        difficulty=float(difficulty),  # type: ignore[arg-type]
        due_ms=int(due),  # type: ignore[call-overload]
        last_review_ms=int(last),  # type: ignore[call-overload]
        reps=int(reps),  # type: ignore[call-overload]
        lapses=int(lapses),  # type: ignore[call-overload]
    )


def card_values(card: CardState) -> tuple[object, ...]:
    """A card's columns in `CARD_COLUMNS` order, for an INSERT (both backends)."""
    return (
        card.state,
        card.step,
        card.stability,
        card.difficulty,
        card.due_ms,
        card.last_review_ms,
        card.reps,
        card.lapses,
    )
