"""The storage contract: what each store offers, whichever database is behind it.

Why: issue 15 adds PostgreSQL beside SQLite, and the services, cogs and operations code
must not know which one they run on. Each Protocol here is one store's public methods,
written from the SQLite stores as they were; a PostgreSQL store satisfies the same
Protocol, and a store both backends share (bot/storage/stores/, over the `Executor` of
bot/storage/sql.py) satisfies it over either. mypy checks every side: `_conforms` in
bot/storage/factory.py (where the backends are chosen, so it imports both) assigns every
shared, SQLite and PostgreSQL store, and both bundles, to its Protocol, so a store whose
methods drift from the contract fails `make lint` at that line. This module imports
neither backend: the records and errors it speaks of are bot/storage/records.py's and
bot/storage/errors.py's.

Item statistics (sqlite/itemstats.py's plain-sqlite3 functions) are behind
`ItemStatsContract` (`ItemStatsStore` in sqlite/items.py, `PgItemStatsStore` in
pg/itemstats.py). The click path's own (sqlite/clicks.py, sqlite/cards.py's write_card)
have their PostgreSQL twin in bot/storage/pg/clicks.py, behind `AnswersContract`;
sqlite/members.py's steps (a member's export and deletion) theirs in
bot/storage/pg/members.py, behind `PrivacyContract`. Reports are one store for both
(`ReportStore` in bot/storage/stores/reports.py), whose statements sqlite/reports.py's
plain functions also run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from bot.quiz.click import DailyStreak
    from bot.quiz.itemstats import ItemStats
    from bot.quiz.itemstats_fast import MemberRow
    from bot.quiz.live_state import LiveChoice, LiveQuestion, LiveSession, LockIn
    from bot.quiz.memory import CardState
    from bot.quiz.model import Lang, Question
    from bot.quiz.own_questions import BankSettings, OwnQuestion, PutResult
    from bot.quiz.reports import Refusal
    from bot.quiz.scoring import AnswerResult
    from bot.quiz.suggestions import Draft, Outcome, Saved, Suggestion
    from bot.storage.records import (
        Chunk,
        DailySettings,
        MemberStats,
        PendingRemoval,
        Post,
        RankedScore,
        Refresh,
        ReminderRow,
        Report,
        StorageHealth,
        SummaryRead,
        TestRun,
    )

__all__ = [
    "AnswersContract",
    "CardsContract",
    "DailyContract",
    "GuildBankContract",
    "GuildsContract",
    "ItemStatsContract",
    "LiveContract",
    "MetaContract",
    "PostsContract",
    "PrivacyContract",
    "ProgressContract",
    "RemindersContract",
    "ReportsContract",
    "StandingsContract",
    "StorageContract",
    "SuggestionsContract",
    "TestRunsContract",
]


class GuildsContract(Protocol):
    """Per-server settings (bot/storage/stores/guilds.py GuildSettingsStore)."""

    async def language(self, guild_id: int) -> str | None: ...

    async def set_language(self, guild_id: int, language: str) -> None: ...


class MetaContract(Protocol):
    """Bot-wide key/value metadata (bot/storage/stores/guilds.py MetaStore)."""

    async def get(self, key: str) -> str | None: ...

    async def set(self, key: str, value: str) -> None: ...


class PostsContract(Protocol):
    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        question_id: str,
        order: tuple[int, ...],
        language: str,
        now_ms: int,
        kind: str = "question",
        closes_at: int | None = None,
        params: str | None = None,
    ) -> Post: ...

    async def set_message(self, post_id: int, message_id: int) -> None: ...

    async def delete(self, post_id: int) -> None: ...

    async def for_click(self, post_id: int) -> Post | None: ...

    def forget(self, post_id: int) -> None: ...

    async def get(self, post_id: int) -> Post | None: ...

    async def recent_question_ids(self, guild_id: int, limit: int) -> list[str]: ...

    async def choice_counts(self, post_id: int) -> dict[int, int]: ...


class AnswersContract(Protocol):
    """The click: one answer, its scoring and summaries, in one transaction."""

    async def record(
        self,
        *,
        guild_id: int,
        user_id: int,
        name: str,
        question: Question,
        choice_index: int,
        now_ms: int,
        post_id: int | None = None,
        test_run_id: int | None = None,
    ) -> AnswerResult | None: ...

    def give_up_queued(self) -> int:
        """At shutdown: take no more clicks, fail those still waiting to be written
        (`WriteFailed`), and return how many (0 where clicks never wait in a queue)."""
        ...


class StandingsContract(Protocol):
    async def page(
        self, guild_id: int, since_ms: int | None, *, offset: int, limit: int
    ) -> tuple[list[RankedScore], int]: ...

    async def position(
        self, guild_id: int, user_id: int, since_ms: int | None
    ) -> tuple[RankedScore, int] | None: ...

    async def member_stats(self, guild_id: int, user_id: int) -> MemberStats | None: ...

    async def all_rows(self, guild_id: int, since_ms: int | None) -> list[RankedScore]: ...


class TestRunsContract(Protocol):
    async def create(
        self,
        *,
        guild_id: int,
        user_id: int,
        question_ids: tuple[str, ...],
        orders: tuple[tuple[int, ...], ...],
        now_ms: int,
        kind: str = "test",
        params: tuple[str | None, ...] | None = None,
    ) -> TestRun: ...

    async def start_review(
        self,
        *,
        guild_id: int,
        user_id: int,
        question_ids: tuple[str, ...],
        orders: tuple[tuple[int, ...], ...],
        now_ms: int,
        params: tuple[str | None, ...],
    ) -> tuple[TestRun, bool]:
        """Open a review round with this plan (True), or return the member's open one in
        the server unchanged (False): one open round per member and server, the unique
        index of migration 0011, however many `/tpquiz review` race."""
        ...

    async def get(self, run_id: int) -> TestRun | None: ...

    async def open_review(self, guild_id: int, user_id: int) -> TestRun | None: ...

    async def answers(self, run_id: int) -> dict[str, int]: ...

    async def finish(self, run_id: int, *, score: int, now_ms: int) -> None: ...


class DailyContract(Protocol):
    async def get(self, guild_id: int) -> DailySettings | None: ...

    async def enabled(self) -> list[DailySettings]: ...

    async def set_schedule(
        self,
        guild_id: int,
        *,
        channel_id: int,
        post_time: str,
        timezone: str,
        now_ms: int,
        open_closes_at: int | None = None,
    ) -> None: ...

    async def disable(self, guild_id: int, *, close_after_ms: int) -> bool: ...

    async def set_role(self, guild_id: int, role_id: int | None) -> None: ...

    async def history(self, guild_id: int) -> list[tuple[str, int]]: ...

    async def claim(
        self,
        guild_id: int,
        local_date: str,
        *,
        channel_id: int,
        question_id: str,
        round_: int,
        order: tuple[int, ...],
        language: str,
        now_ms: int,
        closes_at: int,
        params: str | None = None,
    ) -> Post | None: ...

    async def delivered(self, post: Post, message_id: int) -> list[Post]: ...

    async def failed(
        self, post: Post, *, code: int | None, status: int | None, text: str, now_ms: int
    ) -> None: ...

    async def slot(self, guild_id: int, local_date: str) -> tuple[str, int | None] | None: ...

    async def due_to_close(self, now_ms: int) -> list[Post]: ...

    async def close(self, post_id: int, now_ms: int) -> tuple[Post, dict[int, int]] | None: ...

    async def latest_open(self, guild_id: int) -> Post | None: ...

    async def streak(self, guild_id: int, user_id: int) -> DailyStreak | None: ...

    async def streaks(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, DailyStreak]: ...

    async def current_streaks(
        self, guild_id: int, user_ids: Iterable[int]
    ) -> dict[int, tuple[int, int]]: ...

    async def last_closed_date(self, guild_id: int) -> str | None: ...


class CardsContract(Protocol):
    async def member_cards(self, guild_id: int, user_id: int) -> dict[str, CardState]: ...


class ProgressContract(Protocol):
    async def weeks(
        self, guild_id: int, user_id: int, now_ms: int, count: int = 12
    ) -> list[tuple[int, int, int]]: ...


class RemindersContract(Protocol):
    async def set(
        self,
        guild_id: int,
        user_id: int,
        *,
        enabled: bool,
        remind_time: str | None,
        language: str,
        now_ms: int,
    ) -> None: ...

    async def get(self, guild_id: int, user_id: int) -> tuple[bool, str | None] | None: ...

    async def enabled(self) -> list[ReminderRow]: ...

    async def due_cards(self, guild_id: int, user_id: int, now_ms: int) -> int: ...

    async def claim(self, guild_id: int, user_id: int, local_date: str) -> bool: ...

    async def refused(self, guild_id: int, user_id: int, now_ms: int) -> None: ...

    async def take_refusal(self, guild_id: int, user_id: int) -> bool: ...


class PrivacyContract(Protocol):
    async def forget_member(self, guild_id: int, user_id: int) -> dict[str, int]: ...

    async def export_member(self, guild_id: int, user_id: int) -> dict[str, Any]: ...

    async def member_guilds(self, user_id: int) -> list[int]: ...

    async def forget_guild(self, guild_id: int) -> dict[str, int]: ...

    async def mark_removed(self, guild_id: int, now_ms: int, due_ms: int) -> None: ...

    async def cancel_removal(self, guild_id: int) -> bool: ...

    async def pending_removals(self) -> list[PendingRemoval]: ...

    async def delete_due(
        self, now_ms: int, *, owns: Callable[[int], bool] | None = None
    ) -> list[int]:
        """Delete every server whose removal is due at `now_ms`, skipping those `owns`
        says another process deletes (its shards); the servers deleted."""
        ...


class ReportsContract(Protocol):
    """Members' problem reports (bot/storage/stores/reports.py ReportStore)."""

    async def add(
        self,
        *,
        guild_id: int,
        user_id: int,
        question_id: str,
        language: str,
        reason: str,
        body: str | None,
        now_ms: int,
    ) -> Report | Refusal: ...

    async def find(
        self,
        guild_id: int | None = None,
        *,
        open_only: bool = False,
        question_id: str | None = None,
        limit: int = -1,
        offset: int = 0,
    ) -> list[Report]: ...

    async def count_open(self, guild_id: int | None = None) -> int: ...

    async def open_counts(self, guild_id: int | None = None) -> dict[str, int]: ...

    async def resolve(
        self,
        report_id: int,
        *,
        now_ms: int,
        note: str | None = None,
        by: int | None = None,
        guild_id: int | None = None,
    ) -> Report | None: ...

    async def resolve_open(
        self, report_id: int, *, guild_id: int, now_ms: int, by: int
    ) -> Report | None: ...


class ItemStatsContract(Protocol):
    """Members' first answers as the item statistics read them, and each server's summary
    a periodic refresh keeps (bot/services/items.py; the rules in bot/storage/sqlite/itemstats.py:
    `summary` reads state, figures and open reports at once, `stats` None unless fresh
    for `pool_key`; `member_rows[_chunk]` in (guild, user) order, chunks of whole members;
    `write_summary` False when the generation moved since `refresh_start`)."""

    async def summary(self, guild_id: int, pool_key: str) -> SummaryRead: ...

    async def member_rows(self, guild_id: int | None = None) -> list[MemberRow]: ...

    async def first_answer_counts(self) -> dict[int, int]: ...

    async def refreshes(self, guild_id: int | None = None) -> dict[int, Refresh]: ...

    async def refresh_start(self, guild_id: int) -> tuple[int, int | None]: ...

    async def claim(self, guild_id: int) -> None: ...

    async def member_rows_chunk(
        self, guild_id: int, after_user: int | None, rows: int
    ) -> Chunk: ...

    async def write_summary(
        self,
        guild_id: int,
        stats: list[ItemStats],
        *,
        now_ms: int,
        first_answers: int,
        pool_key: str,
        generation: int,
    ) -> bool: ...

    async def mark_stale(self, guild_id: int) -> int: ...


class LiveContract(Protocol):
    """Quiz night sessions (issue 26, migration 0012; bot/storage/sqlite/live.py, bot/storage/pg/live.py).

    Every change of state is a conditional write that says whether it happened, so a
    second process, a double press or a restart never does a step twice: `start`,
    `open_question` (the session's position only moves forward), `claim_reveal` (once per
    question), `pause`/`resume`, `end`. `lock_in` saves a player's choice only while the
    question is open and not revealed, in the same transaction as the check."""

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        language: str,
        topic: str,
        seconds: int | None,
        scoring: str,
        now_ms: int,
        starts_at: int,
        questions: Sequence[tuple[str, tuple[int, ...], str | None, int]],
    ) -> tuple[LiveSession, bool]: ...

    async def set_lobby_message(self, session_id: int, message_id: int) -> None: ...

    async def get(self, session_id: int) -> LiveSession | None: ...

    async def in_channel(self, channel_id: int) -> LiveSession | None: ...

    async def open_sessions(self) -> list[LiveSession]: ...

    async def questions(self, session_id: int) -> list[LiveQuestion]: ...

    async def join(self, session_id: int, *, user_id: int, name: str, now_ms: int) -> bool: ...

    async def players(self, session_id: int) -> dict[int, str]: ...

    async def joined_by(self, session_id: int, at_ms: int) -> set[int]:
        """The players who had joined by `at_ms` (a question's opening)."""
        ...

    async def roll_call(
        self, session_id: int, position: int, at_ms: int
    ) -> tuple[set[int], set[int]]:
        """The players who had joined by `at_ms`, and those of them with a choice locked
        in for the question at `position` (the early reveal's check, in one statement)."""
        ...

    async def lock_in(
        self,
        session_id: int,
        position: int,
        *,
        user_id: int,
        name: str,
        choice_index: int,
        now_ms: int,
    ) -> LockIn: ...

    async def choices(self, session_id: int) -> list[LiveChoice]: ...

    async def start(self, session_id: int) -> bool: ...

    async def open_question(
        self, session_id: int, position: int, *, now_ms: int, deadline_at: int
    ) -> bool: ...

    async def claim_reveal(
        self, session_id: int, position: int, *, now_ms: int, next_at: int, skipped: bool = False
    ) -> bool: ...

    async def recorded(
        self, session_id: int, position: int, post_id: int, *, now_ms: int
    ) -> bool: ...

    async def pause(self, session_id: int, *, now_ms: int) -> bool: ...

    async def resume(self, session_id: int, *, now_ms: int) -> int | None: ...

    async def end(self, session_id: int, *, now_ms: int, reason: str) -> bool: ...


class GuildBankContract(Protocol):
    """A server's own questions and bank settings (bot/storage/stores/guild_bank.py
    GuildBankStore; issue 27): every method names the server."""

    async def put(
        self,
        guild_id: int,
        questions: Sequence[tuple[Question, tuple[Lang, ...]]],
        *,
        now_ms: int,
        limit: int = ...,
        credits: Mapping[str, tuple[int, str]] | None = None,
    ) -> PutResult: ...

    async def current(self, guild_id: int, *, retired: bool = False) -> list[OwnQuestion]: ...

    async def get(
        self, guild_id: int, question_id: str, version: int | None = None
    ) -> OwnQuestion | None: ...

    async def versions(self, guild_id: int) -> list[OwnQuestion]: ...

    async def retire(self, guild_id: int, question_id: str, *, now_ms: int) -> bool: ...

    async def uncredit(self, guild_id: int, user_id: int) -> int: ...

    async def count(self, guild_id: int) -> int: ...

    async def settings(self, guild_id: int) -> BankSettings: ...

    async def set_settings(self, guild_id: int, settings: BankSettings) -> None: ...


class SuggestionsContract(Protocol):
    """Members' suggested questions and each server's review settings
    (bot/storage/stores/suggestions.py SuggestionStore; issue 27): every method names
    the server."""

    async def submit(
        self,
        guild_id: int,
        user_id: int,
        *,
        name: str,
        lang: Lang,
        draft: Draft,
        ok: bool,
        now_ms: int,
        limit: int = ...,
    ) -> Saved: ...

    async def resubmit(
        self,
        guild_id: int,
        suggestion_id: int,
        user_id: int,
        *,
        name: str,
        lang: Lang,
        draft: Draft,
        ok: bool,
        now_ms: int,
        limit: int = ...,
    ) -> Saved: ...

    async def get(self, guild_id: int, suggestion_id: int) -> Suggestion | None: ...

    async def queue(self, guild_id: int, *, offset: int, limit: int) -> list[Suggestion]: ...

    async def queue_size(self, guild_id: int) -> int: ...

    async def decide(
        self,
        guild_id: int,
        suggestion_id: int,
        outcome: Outcome,
        *,
        reviewer_id: int,
        now_ms: int,
        reason: str | None = None,
        question_id: str | None = None,
        edited: Draft | None = None,
    ) -> bool: ...

    async def reopen(self, guild_id: int, suggestion_id: int) -> bool: ...

    async def set_post(
        self, guild_id: int, suggestion_id: int, channel_id: int, message_id: int
    ) -> None: ...

    async def claim_notices(
        self, guild_id: int, user_id: int, *, now_ms: int
    ) -> list[Suggestion]: ...

    async def mine(self, guild_id: int, user_id: int) -> list[Suggestion]: ...

    async def settings(self, guild_id: int) -> tuple[int | None, int | None]: ...

    async def set_settings(
        self, guild_id: int, *, channel_id: int | None, reviewer_role_id: int | None
    ) -> None: ...


class StorageContract(Protocol):
    """The bundle of every store over one database: `bot.storage.sqlite.Storage` and
    `bot.storage.pg.storage.PgStorage`, as `open_storage(settings)` returns them.
    Read-only properties, so each backend's own store classes satisfy them.

    Besides the stores, the three hooks the runtime and the heartbeat need of the
    database as a whole, so that no code outside bot/storage/ reads a backend's
    database object or asks which backend it has: `observe` (the commit metrics),
    `health` and `file` (the heartbeat)."""

    @property
    def posts(self) -> PostsContract: ...
    @property
    def answers(self) -> AnswersContract: ...
    @property
    def standings(self) -> StandingsContract: ...
    @property
    def test_runs(self) -> TestRunsContract: ...
    @property
    def guilds(self) -> GuildsContract: ...
    @property
    def meta(self) -> MetaContract: ...
    @property
    def daily(self) -> DailyContract: ...
    @property
    def cards(self) -> CardsContract: ...
    @property
    def progress(self) -> ProgressContract: ...
    @property
    def reminders(self) -> RemindersContract: ...
    @property
    def privacy(self) -> PrivacyContract: ...
    @property
    def reports(self) -> ReportsContract: ...
    @property
    def items(self) -> ItemStatsContract: ...
    @property
    def live(self) -> LiveContract: ...
    @property
    def guild_bank(self) -> GuildBankContract: ...
    @property
    def suggestions(self) -> SuggestionsContract: ...

    @property
    def file(self) -> Path | None:
        """The database file (SQLite: the heartbeat is written beside it); None for a
        database on a server (PostgreSQL)."""
        ...

    def health(self) -> StorageHealth:
        """The last committed write and the fault, if any, for the heartbeat."""
        ...

    def observe(
        self,
        *,
        on_commit: Callable[[float], None] | None = None,
        on_click_batch: Callable[[int], None] | None = None,
    ) -> None:
        """Call `on_commit(seconds)` after each committed write transaction and
        `on_click_batch(clicks)` after each batch of clicks written together (the group
        commit of either backend; 1 = a lone click). None stops the call."""
        ...

    async def close(self) -> None: ...
