"""Daily question posts as the Discord glue sees them: one call per step.

`DailyService` joins the scheduling rules (`bot.quiz.schedule`) to storage. It knows
nothing of Discord: `cogs/daily.py` asks it which servers are due, claims a server's
slot for the day here *before* sending, and reports back whether the message went out.
`cogs/admin.py` changes the settings through it. The clock and the random source come
from the `QuizService` it wraps, so tests drive both with a fixed clock.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

from bot.quiz.model import Bank, Lang, Question
from bot.quiz.own_questions import parse_runtime_id
from bot.quiz.picking import shuffled_order
from bot.quiz.schedule import (
    CLOSE_AFTER_OFF,
    DEFAULT_TIME,
    DEFAULT_TIMEZONE,
    DailyConfig,
    ScheduleError,
    canonical_zone,
    closes_at,
    due_date,
    format_time,
    local_date,
    next_post_at,
    parse_time,
    pick_daily,
    zone,
)
from bot.services.quiz import QuizError, QuizService, to_ms
from bot.storage.records import DailySettings, Post

log = logging.getLogger(__name__)


def _from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def config_of(settings: DailySettings | None) -> DailyConfig:
    """The scheduling view of a stored row (daily posts off when there is none)."""
    if settings is None:
        return DailyConfig(enabled=False)
    return DailyConfig(
        enabled=settings.enabled and settings.channel_id is not None,
        post_time=parse_time(settings.post_time),
        timezone=settings.timezone,
        set_at=_from_ms(settings.schedule_set_at) if settings.schedule_set_at else None,
    )


def _last_date(settings: DailySettings | None) -> date | None:
    return date.fromisoformat(settings.last_date) if settings and settings.last_date else None


@dataclass(frozen=True, slots=True)
class DailyClaim:
    """A day's slot, taken: the post row exists; the message is still to be sent."""

    post: Post
    question: Question
    day: date
    role_id: int | None


@dataclass(frozen=True, slots=True)
class Reveal:
    """A daily post just closed, with what its reveal shows."""

    post: Post
    question: Question
    #: choice index -> members who chose it
    counts: dict[int, int]


@dataclass(frozen=True, slots=True)
class DailyOverview:
    """Everything `/tpquiz-admin settings` shows about one server."""

    settings: DailySettings | None
    language: Lang
    #: True when an admin chose the language; False when it follows the server locale.
    language_chosen: bool
    timezone: str
    post_time: time
    next_at: datetime | None

    @property
    def enabled(self) -> bool:
        return bool(self.settings and self.settings.enabled and self.settings.channel_id)

    @property
    def next_local(self) -> datetime | None:
        return self.next_at.astimezone(ZoneInfo(self.timezone)) if self.next_at else None


class DailyService:
    def __init__(self, quiz: QuizService) -> None:
        self.quiz = quiz
        self.storage = quiz.storage
        self.store = quiz.storage.daily

    def now(self) -> datetime:
        return self.quiz.clock()

    # -- settings (admin commands) ---------------------------------------------------

    async def configure(
        self,
        guild_id: int,
        *,
        channel_id: int,
        time_text: str | None = None,
        timezone: str | None = None,
        guild_locale: str | None = None,
    ) -> DailyOverview:
        """Turn daily posts on in a channel. Nothing changes when the time or zone is
        invalid: both are checked before anything is written."""
        current = await self.store.get(guild_id)
        try:
            at = parse_time(time_text) if time_text else DEFAULT_TIME
            tz_name = canonical_zone(
                timezone or (current.timezone if current else DEFAULT_TIMEZONE)
            )
            zone(tz_name)
        except ScheduleError as exc:
            raise QuizError(exc.key, **exc.params) from None
        now = self.now()
        config = DailyConfig(enabled=True, post_time=at, timezone=tz_name, set_at=now)
        following = next_post_at(config, _last_date(current), now)
        await self.store.set_schedule(
            guild_id,
            channel_id=channel_id,
            post_time=format_time(at),
            timezone=tz_name,
            now_ms=to_ms(now),
            open_closes_at=to_ms(following) if following else None,
        )
        log.info(
            "daily posts on in guild %s: channel %s at %s %s",
            guild_id,
            channel_id,
            format_time(at),
            tz_name,
        )
        return await self.overview(guild_id, guild_locale)

    async def turn_off(self, guild_id: int) -> bool:
        """Stop daily posts; an open one still closes (24 hours after it was posted)."""
        changed = await self.store.disable(
            guild_id, close_after_ms=int(CLOSE_AFTER_OFF.total_seconds() * 1000)
        )
        if changed:
            log.info("daily posts off in guild %s", guild_id)
        return changed

    async def open_post(self, guild_id: int) -> Post | None:
        """The server's open daily post (its closing time changes with the settings)."""
        return await self.store.latest_open(guild_id)

    async def set_role(self, guild_id: int, role_id: int | None) -> None:
        await self.store.set_role(guild_id, role_id)

    async def set_language(self, guild_id: int, language: Lang) -> None:
        await self.storage.guilds.set_language(guild_id, language)

    async def overview(self, guild_id: int, guild_locale: str | None = None) -> DailyOverview:
        settings = await self.store.get(guild_id)
        chosen = await self.storage.guilds.language(guild_id)
        language = await self.quiz.post_language(guild_id, guild_locale)
        next_at = next_post_at(config_of(settings), _last_date(settings), self.now())
        return DailyOverview(
            settings=settings,
            language=language,
            language_chosen=chosen in ("tr", "en"),
            timezone=settings.timezone if settings else DEFAULT_TIMEZONE,
            post_time=parse_time(settings.post_time) if settings else DEFAULT_TIME,
            next_at=next_at,
        )

    # -- posting (the tick) ----------------------------------------------------------

    async def due(self, now: datetime) -> list[tuple[int, date]]:
        """(server, local date) for every server whose daily post is due at `now`.

        One server's broken row (a zone tzdata no longer knows, say) is logged and
        skipped, so it cannot stop the others.
        """
        found = []
        for settings in await self.store.enabled():
            try:
                day = due_date(config_of(settings), _last_date(settings), now)
            except (ScheduleError, ValueError):
                log.error("guild %s has unusable daily settings: %r", settings.guild_id, settings)
                continue
            if day is not None:
                found.append((settings.guild_id, day))
        return found

    async def claim(
        self, guild_id: int, day: date, now: datetime, guild_locale: str | None = None
    ) -> DailyClaim | None:
        """Take (server, day) and create its post; None when it was already taken or
        daily posts are off. The question is one the server has not had this round."""
        settings = await self.store.get(guild_id)
        config = config_of(settings)
        if settings is None or settings.channel_id is None or not config.enabled:
            return None
        last = _last_date(settings)
        if last is not None and last >= day:
            return None  # cheap early exit; the claim below is what guarantees it
        pool = await self.quiz.own.pool(guild_id, daily=True, rng=self.quiz.rng)
        pick = pick_daily(
            pool, _history_of(pool, await self.store.history(guild_id)), self.quiz.rng
        )
        question, params = self.quiz.draw(pick.question)
        language = await self.quiz.post_language(guild_id, guild_locale)
        post = await self.store.claim(
            guild_id,
            day.isoformat(),
            channel_id=settings.channel_id,
            question_id=question.id,
            round_=pick.round,
            order=shuffled_order(len(question.choices), self.quiz.rng),
            language=language,
            now_ms=to_ms(now),
            closes_at=to_ms(closes_at(config, day, now)),
            params=params,
        )
        if post is None:
            return None
        return DailyClaim(post, question, day, settings.role_id)

    async def claim_now(self, guild_id: int, guild_locale: str | None = None) -> DailyClaim:
        """`daily now`: take today's slot at once (today on the server's clocks)."""
        settings = await self.store.get(guild_id)
        config = config_of(settings)
        if settings is None or not config.enabled:
            raise QuizError("daily_not_on")
        now = self.now()
        today = local_date(now, zone(config.timezone))
        claim = await self.claim(guild_id, today, now, guild_locale)
        if claim is None:
            following = next_post_at(config, today, now)
            raise QuizError(
                "daily_already_today",
                when=f"<t:{int(following.timestamp())}:R>" if following else "-",
            )
        return claim

    async def delivered(self, claim: DailyClaim, message_id: int) -> list[Post]:
        """The message went out; returns the server's older open daily posts to close."""
        return await self.store.delivered(claim.post, message_id)

    async def failed(
        self, claim: DailyClaim, *, code: int | None, status: int | None, text: str
    ) -> None:
        """The message did not go out: the day stays claimed (no second try today, so
        never a double post), the error is kept for `settings`, tomorrow tries again."""
        await self.store.failed(
            claim.post, code=code, status=status, text=text, now_ms=to_ms(self.now())
        )

    # -- closing ---------------------------------------------------------------------

    async def due_to_close(self, now: datetime) -> list[Post]:
        return await self.store.due_to_close(to_ms(now))

    async def close(self, post_id: int, now: datetime) -> Reveal | None:
        """Close a daily post. None when another closer got there first (only one of
        them edits the message) or the question left the bank."""
        closed = await self.store.close(post_id, to_ms(now))
        if closed is None:
            return None
        post, counts = closed
        await self.quiz.own.load(post.guild_id, (post.question_id,))
        question = self.quiz.question_of(post)
        if question is None:
            log.warning(
                "daily post %s closed; its question %s left the bank", post_id, post.question_id
            )
            return None
        return Reveal(post, question, counts)


def _history_of(pool: Bank, history: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The daily history that counts for a pick from `pool` (issue 27): a server drawing
    its own questions on some days and the bundled on others keeps a round per pool, so
    one's ids never end or start the other's round. Without own questions in the
    history, the history as it was."""
    if not any(parse_runtime_id(qid) for qid, _ in history):
        return history
    return [(qid, round_) for qid, round_ in history if qid in pool]
