"""The quiz as the Discord glue sees it: one call per user action.

`QuizService` joins the domain rules (`bot.quiz`) to storage (`bot.storage`). It knows
nothing of Discord: the cogs read ids and locales off an interaction, call a method here
and render what comes back. The clock and the random source are passed in.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from bot.bank.topic_names import topic_list, topic_text
from bot.quiz.model import Bank, Lang, Question, lang_for_locale
from bot.quiz.periods import Period, period_start
from bot.quiz.picking import pick_question, shuffled_order
from bot.quiz.scoring import AnswerResult, weakest_topics
from bot.quiz.templates import TemplateError, TemplateSet, encode_params
from bot.quiz.testrun import TestAnswer, plan_test, score_run
from bot.services.own_pool import OwnPools
from bot.storage.contract import StorageContract
from bot.storage.errors import PostGone, WriteFailed
from bot.storage.records import MemberStats, Post, RankedScore, TestRun

Clock = Callable[[], datetime]
log = logging.getLogger(__name__)

log = logging.getLogger(__name__)

#: How many recent posts of a server to avoid repeating.
RECENT_WINDOW = 20
LEADERBOARD_PAGE = 10


class QuizError(Exception):
    """A user action that cannot be done; `key` names the message in bot.i18n."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class AnswerNotSaved(QuizError):
    """The member's answer did not commit (storage fault); `reason` is for the log."""

    def __init__(self, reason: str) -> None:
        super().__init__("answer_not_saved")
        self.reason = reason


def to_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


@dataclass(frozen=True, slots=True)
class PostAnswer:
    post: Post
    question: Question
    result: AnswerResult | None  # None when the post had closed
    closed: bool = False


@dataclass(frozen=True, slots=True)
class TestStep:
    __test__ = False  # not a pytest test class

    run: TestRun
    result: AnswerResult
    question: Question
    #: The next question and its position, or None when the run is over.
    next_position: int | None
    summary: list[TestAnswer] | None


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    period: Period
    page: int
    pages: int
    total: int
    rows: list[RankedScore]
    caller: RankedScore | None  # the caller's own row when not on this page
    #: user id -> current daily-question streak, for the members shown (issue #3)
    daily_streaks: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StatsReport:
    stats: MemberStats
    weakest: list[str]
    #: (current, best) daily-question streak (issue #3)
    daily_streak: tuple[int, int] = (0, 0)


class QuizService:
    def __init__(
        self,
        bank: Bank,
        storage: StorageContract,
        clock: Clock,
        rng: random.Random,
        templates: TemplateSet | None = None,
    ) -> None:
        self.bank = bank
        self.storage = storage
        self.clock = clock
        self.rng = rng
        self.templates = templates or TemplateSet()
        #: What `/tpquiz question` and the daily schedule pick from: the bank's questions
        #: and the templates, each template counting as one question (issue #9 4).
        self.pool = self.templates.pool(bank) if len(self.templates) else bank
        #: Each server's own questions (issue 27), joined to `pool` by its settings.
        self.own = OwnPools(storage.guild_bank, self.pool, self.now_ms)

    def now_ms(self) -> int:
        return to_ms(self.clock())

    # -- computed questions ----------------------------------------------------------

    def draw(self, question: Question) -> tuple[Question, str | None]:
        """A picked question as it will be posted, with the parameters to store: a
        template's stand-in gets new numbers; a fixed question stays as it is."""
        template = self.templates.get(question.id)
        if template is None:
            return question, None
        params = template.draw(self.rng)
        return template.materialize(params), encode_params(params)

    def question_of(self, post: Post) -> Question | None:
        """The question a post shows: from the bank, or its template with the stored
        numbers. None when it left the bank (or its stored numbers no longer fit)."""
        if post.question_id in self.templates:
            try:
                return self.templates.question(post.question_id, post.params)
            except TemplateError as exc:
                log.warning("post %s: %s", post.id, exc)
                return None
        return self.bank.get(post.question_id) or self.own.known(post.guild_id, post.question_id)

    # -- posts -----------------------------------------------------------------------

    async def post_language(self, guild_id: int, guild_locale: str | None) -> Lang:
        """The server's chosen language for public posts, else its preferred locale's."""
        chosen = await self.storage.guilds.language(guild_id)
        if chosen in ("tr", "en"):
            return chosen  # type: ignore[return-value]
        return lang_for_locale(guild_locale)

    async def new_post(
        self,
        *,
        guild_id: int,
        channel_id: int,
        language: Lang,
        topic: str | None = None,
        kind: str = "question",
        question: Question | None = None,
        closes_at: int | None = None,
    ) -> tuple[Post, Question]:
        """Choose a question (unless given) and a choice order, and record the post."""
        if question is None:
            pool = await self.own.pool(guild_id)
            if topic is not None and topic not in pool.topics():
                raise QuizError(
                    "unknown_topic", topic=topic_text(topic), topics=topic_list(pool.topics())
                )
            recent = await self.storage.posts.recent_question_ids(guild_id, RECENT_WINDOW)
            question = pick_question(pool, self.rng, topic=topic, recent=recent)
        question, params = self.draw(question)
        post = await self.storage.posts.create(
            guild_id=guild_id,
            channel_id=channel_id,
            question_id=question.id,
            order=shuffled_order(len(question.choices), self.rng),
            language=language,
            now_ms=self.now_ms(),
            kind=kind,
            closes_at=closes_at,
            params=params,
        )
        return post, question

    async def attach_message(self, post_id: int, message_id: int) -> None:
        await self.storage.posts.set_message(post_id, message_id)

    async def discard_post(self, post_id: int) -> None:
        """Forget a post whose message never reached Discord."""
        await self.storage.posts.delete(post_id)

    async def post_for_render(self, post_id: int) -> tuple[Post, Question] | None:
        post = await self.storage.posts.get(post_id)
        if post is not None:
            await self.own.load(post.guild_id, (post.question_id,))
        question = self.question_of(post) if post is not None else None
        if post is None or question is None:
            return None
        return post, question

    async def load_post(
        self, post_id: int, guild_id: int, *, for_click: bool = False
    ) -> tuple[Post, Question]:
        """The post and its question; QuizError when it is unknown here or left the
        bank. `for_click` reads an open post from memory (`PostStore.for_click`)."""
        posts = self.storage.posts
        post = await (posts.for_click(post_id) if for_click else posts.get(post_id))
        # A post of another server is treated as unknown: one server never sees another's.
        if post is None or post.guild_id != guild_id:
            raise QuizError("unknown_post")
        await self.own.load(guild_id, (post.question_id,))
        question = self.question_of(post)
        if question is None:
            raise QuizError("question_removed", question_id=post.question_id)
        return post, question

    async def answer_post(
        self, *, post_id: int, guild_id: int, user_id: int, name: str, choice_index: int
    ) -> PostAnswer:
        """Record a click on a post. Whether the post is closed is decided inside the
        click's transaction (bot/storage/sqlite/clicks.py), which also holds the daily streak
        of a daily post, so a click that arrives as the post closes scores nothing and
        the reveal's counts match what was recorded. A database that cannot be read is
        AnswerNotSaved too: the member hears that the click was not saved."""
        try:
            post, question = await self.load_post(post_id, guild_id, for_click=True)
        except WriteFailed as exc:
            raise AnswerNotSaved(exc.reason) from exc
        if post.kind == "live":
            # A quiz night's question (issue 26) is answered through its own buttons,
            # which lock a choice in until the reveal; a forged post button is refused.
            raise QuizError("unknown_post")
        if not 0 <= choice_index < len(question.choices):
            raise QuizError("bad_choice")
        if post.closed_at is not None:
            return PostAnswer(post, question, None, closed=True)
        try:
            result = await self.record_answer(
                guild_id, user_id, name, question, choice_index, post_id=post_id
            )
        except PostGone:
            self.storage.posts.forget(post_id)
            raise QuizError("unknown_post") from None
        if result is None:
            self.storage.posts.forget(post_id)
            return PostAnswer(post, question, None, closed=True)
        return PostAnswer(post, question, result)

    async def record_answer(
        self,
        guild_id: int,
        user_id: int,
        name: str,
        question: Question,
        choice_index: int,
        **belongs_to: int,
    ) -> AnswerResult | None:
        """Record the answer (to `post_id` or `test_run_id`); None if its post had
        closed; AnswerNotSaved if it did not commit, so the member is told it was not
        saved rather than that it was."""
        try:
            return await self.storage.answers.record(
                guild_id=guild_id,
                user_id=user_id,
                name=name,
                question=question,
                choice_index=choice_index,
                now_ms=self.now_ms(),
                **belongs_to,
            )
        except WriteFailed as exc:
            raise AnswerNotSaved(exc.reason) from exc

    # -- the personal test -----------------------------------------------------------

    async def start_test(self, *, guild_id: int, user_id: int) -> tuple[TestRun, Question]:
        plan = plan_test(self.bank, self.rng)
        run = await self.storage.test_runs.create(
            guild_id=guild_id,
            user_id=user_id,
            question_ids=plan.question_ids,
            orders=plan.orders,
            now_ms=self.now_ms(),
        )
        return run, self.bank[run.question_ids[0]]

    async def load_test(self, run_id: int, guild_id: int, user_id: int) -> TestRun:
        run = await self.storage.test_runs.get(run_id)
        # A review round is a run too (issue #12), but not one the test's buttons answer.
        if run is None or run.guild_id != guild_id or run.kind != "test":
            raise QuizError("unknown_test")
        if run.user_id != user_id:
            raise QuizError("not_your_test")
        return run

    async def answer_test(
        self,
        *,
        run_id: int,
        guild_id: int,
        user_id: int,
        name: str,
        position: int,
        choice_index: int,
    ) -> TestStep:
        try:
            run = await self.load_test(run_id, guild_id, user_id)
        except WriteFailed as exc:  # the database cannot be read: the click is not saved
            raise AnswerNotSaved(exc.reason) from exc
        if not 0 <= position < len(run.question_ids):
            raise QuizError("bad_choice")
        question = self.bank.get(run.question_ids[position])
        if question is None:
            raise QuizError("question_removed", question_id=run.question_ids[position])
        if not 0 <= choice_index < len(question.choices):
            raise QuizError("bad_choice")
        result = await self.record_answer(
            guild_id, user_id, name, question, choice_index, test_run_id=run_id
        )
        if result is None:  # a finished run takes no new answer; a test finishes when full
            raise QuizError("unknown_test")
        answered = await self.storage.test_runs.answers(run_id)
        remaining = [i for i, qid in enumerate(run.question_ids) if qid not in answered]
        if remaining:
            later = [i for i in remaining if i > position]
            return TestStep(run, result, question, (later or remaining)[0], None)
        summary = self.test_summary(run, answered)
        right, _ = score_run(summary)
        try:
            await self.storage.test_runs.finish(run_id, score=right, now_ms=self.now_ms())
        except WriteFailed as exc:
            # Every answer is saved; the run is finished again by its next click.
            log.warning("test run %s not marked finished: %s", run_id, exc.reason)
        return TestStep(run, result, question, None, summary)

    def test_summary(self, run: TestRun, answered: dict[str, int]) -> list[TestAnswer]:
        return [
            TestAnswer(self.bank[qid], order, answered.get(qid))
            for qid, order in zip(run.question_ids, run.orders, strict=True)
            if qid in self.bank
        ]

    # -- standings -------------------------------------------------------------------

    async def leaderboard(
        self, *, guild_id: int, user_id: int, period: Period, page: int
    ) -> LeaderboardPage:
        start = period_start(period, self.clock())
        since = to_ms(start) if start else None
        page = max(page, 0)
        rows, total = await self.storage.standings.page(
            guild_id, since, offset=page * LEADERBOARD_PAGE, limit=LEADERBOARD_PAGE
        )
        pages = max(1, -(-total // LEADERBOARD_PAGE))
        if page >= pages:  # a Next button on an old message, past the last page now
            page = pages - 1
            rows, total = await self.storage.standings.page(
                guild_id, since, offset=page * LEADERBOARD_PAGE, limit=LEADERBOARD_PAGE
            )
        caller = None
        if all(r.score.user_id != user_id for r in rows):
            found = await self.storage.standings.position(guild_id, user_id, since)
            caller = found[0] if found else None
        shown = [r.score.user_id for r in rows] + ([caller.score.user_id] if caller else [])
        daily = await self.storage.daily.current_streaks(guild_id, shown)
        streaks = {user: current for user, (current, _) in daily.items()}
        return LeaderboardPage(period, page, pages, total, rows, caller, streaks)

    async def answers_per_week(self, guild_id: int, user_id: int) -> list[tuple[int, int, int]]:
        """The member's answers per week, for the stats picture (storage.progress)."""
        return await self.storage.progress.weeks(guild_id, user_id, self.now_ms())

    async def stats(self, *, guild_id: int, user_id: int) -> StatsReport | None:
        stats = await self.storage.standings.member_stats(guild_id, user_id)
        if stats is None:
            return None
        daily = await self.storage.daily.current_streaks(guild_id, [user_id])
        return StatsReport(stats, weakest_topics(stats.per_topic), daily.get(user_id, (0, 0)))
