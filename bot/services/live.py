"""Quiz night (`/tpquiz live`, issue 26) as the Discord glue sees it; no Discord here.

A session's state lives in the database (bot/storage/contract.py `LiveContract`); each
open session is driven by one `asyncio` task (`LiveService.run`), as Red-DiscordBot's
trivia session is, with a done-callback that forgets it. The task only ever reads the
state, waits for the next moment (the lobby's start, a question's deadline, the pause
before the next question) or a nudge (host button, every player answered), and asks the
store to make the next step, each a conditional write: so a restart, a second process
or a double press never does one twice, and `resume_all` at start re-arms every open
session from what was saved (a deadline passed while the bot was down reveals at once).

Session answers become real answers at the reveal, not at the lock-in: a player may
change their choice until then and only the last one counts, while the answers table
holds one answer per member per post (the database's rule) and each answer moves the
member's FSRS card and totals once. Recording the final choice at the reveal through the
ordinary answer path (`AnswersContract.record`, on the session question's own post)
gives it the card, the item statistics and the first-answer leaderboard rule unchanged.
A lock-in is saved at once (`live_choices`), so nothing acknowledged is lost before.

What appears on Discord is the `Announcer`'s business (bot/ui/live_announcer.py), called
at each step; the command and the buttons are cogs/live/ and bot/ui/buttons/live.py.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.quiz.live import (
    LOBBY_MS,
    NEXT_PAUSE_MS,
    LiveSettings,
    Standing,
    auto_seconds,
    final_choices,
    pick_questions,
    reveal_reason,
)
from bot.quiz.live import Click as LiveClick
from bot.quiz.live_state import LiveQuestion, LiveSession, LockIn
from bot.quiz.model import Question
from bot.quiz.picking import shuffled_order
from bot.services import live_results as results
from bot.services.live_results import Final, Reveal, Verdict
from bot.services.quiz import QuizError, QuizService
from bot.storage.errors import WriteFailed

log = logging.getLogger(__name__)

#: A server's share right per question (item statistics), for `group-weakest`.
Facility = Callable[[int], Awaitable[dict[str, float]]]


class Announcer(Protocol):
    """What the Discord side shows at each step (bot/ui/live_announcer.py); the lobby
    is the command's own reply (cogs/live/)."""

    async def question(
        self, session: LiveSession, live: LiveQuestion, question: Question
    ) -> None: ...

    async def timer(self, session: LiveSession, live: LiveQuestion, question: Question) -> None:
        """The open question's countdown changed (paused, or resumed with a new deadline)."""
        ...

    async def reveal(self, reveal: Reveal) -> None: ...

    async def finished(self, final: Final) -> None: ...


class LiveService:
    def __init__(self, quiz: QuizService, facility: Facility | None = None) -> None:
        self.quiz = quiz
        self.store = quiz.storage.live
        self.facility = facility
        self.announcer: Announcer | None = None
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self._nudges: dict[int, asyncio.Event] = {}
        self._host_reveal: set[int] = set()
        #: session -> (its server, its questions): what never changes (`plan`).
        self._plans: dict[int, tuple[int, list[tuple[LiveQuestion, Question]]]] = {}
        #: Sessions this process ended (its write did), which it announces the end of.
        self._ended: set[int] = set()
        #: Whether this process runs a server's timers (its shards; all on SQLite).
        self.owns: Callable[[int], bool] = lambda guild_id: True

    # -- starting ---------------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        language: str,
        settings: LiveSettings,
    ) -> tuple[LiveSession, bool]:
        """A new session in the lobby (True), or the channel's running one (False)."""
        running = await self.store.in_channel(channel_id)
        if running is not None:
            return running, False
        facility = {}
        if settings.topic == "group-weakest" and self.facility is not None:
            facility = await self.facility(guild_id)
        recent = await self.quiz.storage.posts.recent_question_ids(guild_id, 20)
        picked = pick_questions(
            self.quiz.pool, self.quiz.rng, mode=settings.topic, count=settings.questions,
            facility=facility, recent=recent,
        )  # fmt: skip
        if len(picked) < 3:
            raise QuizError("live_too_few_questions")
        plan = []
        for chosen in picked:
            question, params = self.quiz.draw(chosen)
            order = shuffled_order(len(question.choices), self.quiz.rng)
            plan.append((question.id, order, params, settings.seconds or auto_seconds(question)))
        now = self.quiz.now_ms()
        return await self.store.create(
            guild_id=guild_id, channel_id=channel_id, host_id=host_id, language=language,
            topic=settings.topic, seconds=settings.seconds, scoring=settings.scoring,
            now_ms=now, starts_at=now + LOBBY_MS, questions=plan,
        )  # fmt: skip

    def question(self, live: LiveQuestion) -> Question:
        """The session question with its stored numbers (QuizError if it left the bank)."""
        if live.question_id in self.quiz.templates:
            return self.quiz.templates.question(live.question_id, live.params)
        found = self.quiz.bank.get(live.question_id)
        if found is None:
            raise QuizError("question_removed", question_id=live.question_id)
        return found

    # -- members' clicks ----------------------------------------------------------------

    async def plan(
        self, session_id: int, guild_id: int | None
    ) -> list[tuple[LiveQuestion, Question]]:
        """The session's questions as first read, with their questions (a template with
        the stored numbers): what a lock-in needs of them never changes, so it is kept in
        memory and a lock-in costs one trip to the database, not three. Their times
        (opened, revealed) are as first read: not for decisions."""
        found = self._plans.get(session_id)
        if found is None or found[0] != guild_id:
            session = await self.session_of(session_id, guild_id)
            lives = await self.store.questions(session_id)
            found = (session.guild_id, [(live, self.question(live)) for live in lives])
            if len(self._plans) >= 10_000:
                self._plans.pop(next(iter(self._plans)))
            self._plans[session_id] = found
        return found[1]

    async def session_of(self, session_id: int, guild_id: int | None) -> LiveSession:
        session = await self.store.get(session_id)
        if session is None or session.guild_id != guild_id:
            raise QuizError("live_unknown")
        return session

    async def join(self, session_id: int, guild_id: int | None, user_id: int, name: str) -> bool:
        session = await self.session_of(session_id, guild_id)
        if session.status == "ended":
            raise QuizError("live_ended")
        return await self.store.join(
            session_id, user_id=user_id, name=name, now_ms=self.quiz.now_ms()
        )

    async def lock_in(
        self,
        session_id: int,
        guild_id: int | None,
        position: int,
        user_id: int,
        name: str,
        choice_index: int,
        *,
        nudge: bool = True,
    ) -> tuple[LockIn, LiveQuestion, Question]:
        """Save the member's choice (the last one counts); 'late' after the reveal."""
        plan = await self.plan(session_id, guild_id)
        if not 0 <= position < len(plan):
            raise QuizError("bad_choice")
        live, question = plan[position]
        if not 0 <= choice_index < len(question.choices):
            raise QuizError("bad_choice")
        outcome = await self.store.lock_in(
            session_id, position, user_id=user_id, name=name, choice_index=choice_index,
            now_ms=self.quiz.now_ms(),
        )  # fmt: skip
        if outcome == "locked" and nudge:
            # Every player may have answered now. The glue nudges after its reply
            # instead, so that the reveal can edit that reply into the verdict.
            self.nudge(session_id)
        return outcome, live, question

    async def host_action(self, session_id: int, guild_id: int | None, action: str) -> LiveSession:
        """Start, reveal now, pause, resume, skip or end; the caller checked the host."""
        session = await self.session_of(session_id, guild_id)
        now = self.quiz.now_ms()
        done = False
        if action == "start":
            done = await self.store.start(session_id)
        elif action == "cancel" or action == "end":
            done = await self.store.end(session_id, now_ms=now, reason=action)
            if done:
                self._ended.add(session_id)
        elif action == "pause":
            done = await self.store.pause(session_id, now_ms=now)
        elif action == "resume":
            done = await self.store.resume(session_id, now_ms=now) is not None
        elif action in ("reveal", "skip") and session.status == "running":
            current = await self._current(session)
            # Only an open question: pressed between two questions, it would otherwise
            # reveal the next one the moment it opens.
            if current is not None and current.opened_at and current.revealed_at is None:
                if action == "skip":
                    done = await self.store.claim_reveal(
                        session_id, session.position, now_ms=now, next_at=now, skipped=True
                    )
                else:
                    self._host_reveal.add(session_id)
                    done = True
        if not done:
            raise QuizError("live_not_now")
        self.nudge(session_id)
        if action in ("pause", "resume") and self.announcer is not None:
            fresh = await self.store.get(session_id)
            current = None if fresh is None else await self._current(fresh)
            if fresh is not None and current is not None and current.revealed_at is None:
                await self.announcer.timer(fresh, current, self.question(current))
        return session

    async def _current(self, session: LiveSession) -> LiveQuestion | None:
        """The session's current question as stored now (None in the lobby)."""
        if session.position < 0:
            return None
        return (await self.store.questions(session.id))[session.position]

    # -- the session's task ---------------------------------------------------------------

    def nudge(self, session_id: int) -> None:
        event = self._nudges.get(session_id)
        if event is not None:
            event.set()

    def launch(self, session: LiveSession) -> None:
        """Run the session's task here unless it runs already (or another process owns it)."""
        if session.id in self.tasks or not self.owns(session.guild_id):
            return
        self._nudges[session.id] = asyncio.Event()
        task = asyncio.get_running_loop().create_task(
            self.run(session.id), name=f"live-{session.id}"
        )
        self.tasks[session.id] = task

        def done(finished: asyncio.Task[None]) -> None:
            self.tasks.pop(session.id, None)
            self._nudges.pop(session.id, None)
            self._host_reveal.discard(session.id)
            self._plans.pop(session.id, None)
            if not finished.cancelled() and finished.exception() is not None:
                log.error("live session %s stopped", session.id, exc_info=finished.exception())

        task.add_done_callback(done)

    async def resume_all(self) -> int:
        """At start: every open session this process owns runs again from its saved state."""
        sessions = await self.store.open_sessions()
        for session in sessions:
            self.launch(session)
        return len(sessions)

    async def stop(self) -> None:
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _wait(self, session_id: int, until_ms: int | None) -> None:
        event = self._nudges[session_id]
        timeout = None if until_ms is None else max(0.0, (until_ms - self.quiz.now_ms()) / 1000)
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            pass
        event.clear()

    async def run(self, session_id: int) -> None:
        """Drive the session from its saved state until it ends."""
        while True:
            try:
                if not await self.step(session_id):
                    return
            except WriteFailed as exc:
                log.warning("live session %s: nothing saved, retrying: %s", session_id, exc.reason)
                await asyncio.sleep(1)

    async def step(self, session_id: int) -> bool:
        """One step of the session (or one wait); False once it has ended."""
        session = await self.store.get(session_id)
        if session is None or session.status == "ended":
            # The podium once: by the process whose write ended the session.
            if session is not None and session_id in self._ended and self.announcer is not None:
                self._ended.discard(session_id)
                await self.announcer.finished(await self.final(session))
            return False
        now = self.quiz.now_ms()
        if session.status == "paused":
            await self._wait(session_id, None)
            return True
        if session.status == "lobby":
            if session.deadline_at is not None and now < session.deadline_at:
                await self._wait(session_id, session.deadline_at)
            elif await self.store.start(session_id):
                self.nudge(session_id)
            return True
        questions = await self.store.questions(session_id)
        current = questions[session.position] if session.position >= 0 else None
        if current is None or current.recorded_at is not None:
            next_at = session.deadline_at if current is not None else now
            if next_at is not None and now < next_at:
                await self._wait(session_id, next_at)
                return True
            nxt = session.position + 1
            if nxt >= len(questions):
                if await self.store.end(session_id, now_ms=now, reason="done"):
                    self._ended.add(session_id)
                return True
            deadline = now + questions[nxt].seconds * 1000
            if await self.store.open_question(session_id, nxt, now_ms=now, deadline_at=deadline):
                opened = (await self.store.questions(session_id))[nxt]
                fresh = await self.store.get(session_id)
                if self.announcer is not None and fresh is not None:
                    await self.announcer.question(fresh, opened, self.question(opened))
            return True
        if current.revealed_at is None:
            # Only those who had joined when the question opened: a member who joins by
            # answering it must not end it for everyone at once (the first click would).
            players, answered = await self.store.roll_call(
                session_id, current.position, current.opened_at or now
            )
            reason = reveal_reason(
                now_ms=now, deadline_ms=session.deadline_at or now, players=players,
                answered=answered, host_pressed=session_id in self._host_reveal,
            )  # fmt: skip
            if reason is None:
                await self._wait(session_id, session.deadline_at)
                return True
            self._host_reveal.discard(session_id)
            await self.store.claim_reveal(
                session_id, current.position, now_ms=now, next_at=now + NEXT_PAUSE_MS
            )
            return True
        await self._record(session, current)
        return True

    async def _record(self, session: LiveSession, current: LiveQuestion) -> None:
        """Record the revealed question's final choices as real answers, then announce."""
        question = self.question(current)
        choices = [
            c for c in await self.store.choices(session.id) if c.position == current.position
        ]
        final = final_choices(
            (LiveClick(c.user_id, c.choice_index, c.locked_at) for c in choices),
            current.revealed_at,
        )
        players = await self.store.players(session.id)
        if not current.skipped:
            results = await asyncio.gather(
                *(
                    self.quiz.storage.answers.record(
                        guild_id=session.guild_id,
                        user_id=user,
                        name=players.get(user, "?"),
                        question=question,
                        choice_index=click.choice,
                        now_ms=click.at_ms,
                        post_id=current.post_id,
                    )  # fmt: skip
                    for user, click in final.items()
                ),
                return_exceptions=True,
            )
            failed = [r for r in results if isinstance(r, BaseException)]
            if failed:
                raise (
                    failed[0] if isinstance(failed[0], WriteFailed) else WriteFailed(str(failed[0]))
                )
        # Recording is idempotent (one answer per member per post); marking it is not,
        # and only the process whose mark took announces the reveal.
        marked = await self.store.recorded(
            session.id, current.position, current.post_id, now_ms=self.quiz.now_ms()
        )
        if not marked or self.announcer is None:
            return
        table = await self.standings(session)
        places = {row.user_id: row for row in table}
        counts: dict[int, int] = {}
        for click in final.values():
            counts[click.choice] = counts.get(click.choice, 0) + 1
        verdicts = [
            Verdict(
                user,
                final[user].choice if user in final else None,
                user in final and final[user].choice == question.correct_index,
                places[user].points if user in places else 0,
                places[user].place if user in places else 0,
            )  # fmt: skip
            for user in players
        ]
        fresh = await self.store.get(session.id) or session
        done = [q for q in await self.store.questions(session.id) if q.position == current.position]
        await self.announcer.reveal(Reveal(fresh, done[0], question, counts, verdicts, table))

    async def standings(self, session: LiveSession) -> list[Standing]:
        return await results.standings_of(self.store, session, self.question)

    async def final(self, session: LiveSession) -> Final:
        return await results.final_of(self.store, session, self.question)
