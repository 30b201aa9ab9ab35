"""`/tpquiz review` as the Discord glue sees it: start or continue a round, answer it.

A round is a personal run (test_runs, kind 'review') of up to ten questions chosen by
`bot.quiz.review.pick_round` from the member's cards, so its buttons carry only the run,
the position and the choice, and keep working after a restart. Each answer is recorded
like any other (`QuizService.record_answer`): the first answer to a question earns its point,
a review of an answered one earns none and counts for accuracy, and the member's card is
rescheduled in the same transaction. A member has one open round per server, the
database's rule (migration 0011): two `/tpquiz review` at once both show it. Knows
nothing of Discord.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.quiz.memory import CardState, mean_retrievability
from bot.quiz.model import Question
from bot.quiz.picking import shuffled_order
from bot.quiz.review import Outlook, outlook, pick_round
from bot.quiz.scoring import AnswerResult
from bot.quiz.templates import TemplateError
from bot.services.quiz import QuizError, QuizService
from bot.storage.errors import WriteFailed
from bot.storage.records import TestRun

log = logging.getLogger(__name__)

WEEK_MS = 7 * 86_400_000


@dataclass(frozen=True, slots=True)
class ReviewQuestion:
    run: TestRun
    position: int
    question: Question

    @property
    def order(self) -> tuple[int, ...]:
        return self.run.orders[self.position]

    @property
    def total(self) -> int:
        return len(self.run.question_ids)


@dataclass(frozen=True, slots=True)
class ReviewOpening:
    """What `/tpquiz review` shows: the round's current question, or why there is none."""

    current: ReviewQuestion | None
    resumed: bool
    #: When nothing is due and nothing new is left: what is coming.
    outlook: Outlook | None = None


@dataclass(frozen=True, slots=True)
class ReviewSummary:
    right: int
    total: int
    outlook: Outlook


@dataclass(frozen=True, slots=True)
class ReviewStep:
    answered: ReviewQuestion
    result: AnswerResult
    #: The next question, or None when the round is over (then `summary` is set).
    next: ReviewQuestion | None
    summary: ReviewSummary | None


@dataclass(frozen=True, slots=True)
class MemoryReport:
    """The review part of `/tpquiz stats`."""

    due_now: int
    due_week: int
    #: FSRS's mean retrievability over the member's cards (None: no cards yet).
    retention: float | None


class ReviewService:
    def __init__(self, quiz: QuizService) -> None:
        self.quiz = quiz
        self.storage = quiz.storage

    def question_at(self, run: TestRun, position: int) -> Question:
        """The question at `position`, a template with the numbers drawn at the start."""
        qid = run.question_ids[position]
        params = run.params[position] if position < len(run.params) else None
        if qid in self.quiz.templates:
            try:
                return self.quiz.templates.question(qid, params)
            except TemplateError as exc:
                log.warning("review run %s: %s", run.id, exc)
                raise QuizError("question_removed", question_id=qid) from exc
        question = self.quiz.bank.get(qid) or self.quiz.own.known(run.guild_id, qid)
        if question is None:
            raise QuizError("question_removed", question_id=qid)
        return question

    async def _outlook(self, guild_id: int, user_id: int, now_ms: int) -> Outlook:
        cards = await self.storage.cards.member_cards(guild_id, user_id)
        return outlook([c.due_ms for c in cards.values()], now_ms)

    async def _remaining(self, run: TestRun) -> tuple[dict[str, int], list[int]]:
        answered = await self.storage.test_runs.answers(run.id)
        return answered, [i for i, q in enumerate(run.question_ids) if q not in answered]

    async def open(self, *, guild_id: int, user_id: int, from_dm: bool = False) -> ReviewOpening:
        """Continue the member's open round, or start one, or say nothing is due.

        `from_dm`: started by a reminder's button, outside the server. Only a member who
        turned reminders on in that server gets one there (a forged button naming another
        server would otherwise put a stranger on its leaderboard).
        """
        if from_dm and await self.storage.reminders.get(guild_id, user_id) is None:
            raise QuizError("unknown_review")
        run = await self.storage.test_runs.open_review(guild_id, user_id)
        if run is not None and (resumed := await self._resume(run)) is not None:
            return resumed
        now = self.quiz.now_ms()
        cards = await self.storage.cards.member_cards(guild_id, user_id)
        stats = await self.storage.standings.member_stats(guild_id, user_id)
        pool = await self.quiz.own.pool(guild_id)
        chosen = pick_round(
            due=[(qid, card.due_ms) for qid, card in cards.items()],
            answered=cards.keys(),
            per_topic=stats.per_topic if stats else {},
            pool=pool,
            now_ms=now,
            rng=self.quiz.rng,
        )
        if not chosen:
            return ReviewOpening(
                None, resumed=False, outlook=outlook([c.due_ms for c in cards.values()], now)
            )
        drawn = [self.quiz.draw(pool[qid]) for qid in chosen]
        orders = tuple(shuffled_order(len(q.choices), self.quiz.rng) for q, _ in drawn)
        for _ in range(3):
            run, created = await self.storage.test_runs.start_review(
                guild_id=guild_id,
                user_id=user_id,
                question_ids=tuple(q.id for q, _ in drawn),
                orders=orders,
                now_ms=now,
                params=tuple(params for _, params in drawn),
            )
            if created:
                return ReviewOpening(ReviewQuestion(run, 0, drawn[0][0]), resumed=False)
            # Another /tpquiz review of the member (a double tap, a second device) opened
            # a round first: this one continues it. Should its every question have been
            # answered meanwhile, it is finished and this plan is tried again.
            if (resumed := await self._resume(run)) is not None:
                return resumed
        raise QuizError("unknown_review")

    async def _resume(self, run: TestRun) -> ReviewOpening | None:
        """The open round's first unanswered question; None (the round finished) if none."""
        await self.quiz.own.load(run.guild_id, run.question_ids)
        answered, remaining = await self._remaining(run)
        if remaining:
            current = ReviewQuestion(run, remaining[0], self.question_at(run, remaining[0]))
            return ReviewOpening(current, resumed=True)
        await self._finish(run, answered)
        return None

    async def answer(
        self,
        *,
        run_id: int,
        guild_id: int | None,
        user_id: int,
        name: str,
        position: int,
        choice_index: int,
    ) -> ReviewStep:
        run = await self.storage.test_runs.get(run_id)
        # guild_id None: a round started from a reminder's DM, answered there.
        if run is None or guild_id not in (None, run.guild_id) or run.kind != "review":
            raise QuizError("unknown_review")
        guild_id = run.guild_id
        if run.user_id != user_id:
            raise QuizError("not_your_review")
        if not 0 <= position < len(run.question_ids):
            raise QuizError("bad_choice")
        await self.quiz.own.load(guild_id, run.question_ids)
        question = self.question_at(run, position)
        if not 0 <= choice_index < len(question.choices):
            raise QuizError("bad_choice")
        result = await self.quiz.record_answer(
            guild_id, user_id, name, question, choice_index, test_run_id=run_id
        )
        if result is None:
            # The round finished with this question unanswered: migration 0011 closed it
            # for a newer open round, which alone takes answers now.
            raise QuizError("review_closed")
        answered_now = ReviewQuestion(run, position, question)
        answered, remaining = await self._remaining(run)
        if remaining:
            later = [i for i in remaining if i > position]
            nxt = (later or remaining)[0]
            return ReviewStep(
                answered_now, result, ReviewQuestion(run, nxt, self.question_at(run, nxt)), None
            )
        right = await self._finish(run, answered)
        summary = ReviewSummary(
            right, len(run.question_ids), await self._outlook(guild_id, user_id, self.quiz.now_ms())
        )
        return ReviewStep(answered_now, result, None, summary)

    async def _finish(self, run: TestRun, answered: dict[str, int]) -> int:
        """Mark the round finished; returns its right answers."""
        right = 0
        for position, qid in enumerate(run.question_ids):
            try:
                question = self.question_at(run, position)
            except QuizError:
                continue
            right += int(answered.get(qid) == question.correct_index)
        try:
            await self.storage.test_runs.finish(run.id, score=right, now_ms=self.quiz.now_ms())
        except WriteFailed as exc:
            # Every answer is saved; the round is finished again by the next /tpquiz review.
            log.warning("review run %s not marked finished: %s", run.id, exc.reason)
        return right

    async def memory(self, *, guild_id: int, user_id: int) -> MemoryReport:
        """Due now, due within a week, and the retention estimate, for /tpquiz stats."""
        now = self.quiz.now_ms()
        cards: list[CardState] = list(
            (await self.storage.cards.member_cards(guild_id, user_id)).values()
        )
        return MemoryReport(
            due_now=sum(1 for c in cards if c.due_ms <= now),
            due_week=sum(1 for c in cards if c.due_ms <= now + WEEK_MS),
            retention=mean_retrievability(cards, now),
        )
