"""`LiveService` (bot/services/live.py) over a real SQLite file, a clock the test moves
and an announcer that records what it is told: a whole session step by step, the
reveal early when everyone answered, the host's reveal and skip, a late click, session
answers recorded as real answers, and a restart (a new service over the same file)
that keeps the locked-in choices and reveals at once a deadline that passed."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.quiz.live import LiveSettings
from bot.quiz.live_state import LiveSession
from bot.quiz.model import Question
from bot.services.live import Final, LiveService, Reveal
from bot.services.quiz import QuizError, QuizService
from bot.storage.sqlite import Storage
from tests.factories import make_bank

G, CH, HOST = 1, 2, 10


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class Recorder:
    def __init__(self) -> None:
        self.questions: list[int] = []
        self.reveals: list[Reveal] = []
        self.finals: list[Final] = []
        self.timers: list[str] = []

    async def question(self, session: LiveSession, live: object, question: Question) -> None:
        self.questions.append(session.position)

    async def timer(self, session: LiveSession, live: object, question: Question) -> None:
        self.timers.append(session.status)

    async def reveal(self, reveal: Reveal) -> None:
        self.reveals.append(reveal)

    async def finished(self, final: Final) -> None:
        self.finals.append(final)


async def _service(path: Path, clock: Clock) -> tuple[LiveService, Recorder, Storage]:
    storage = await Storage.open(path)
    quiz = QuizService(make_bank(), storage, clock, random.Random(4))
    live = LiveService(quiz)
    live.announcer = recorder = Recorder()
    return live, recorder, storage


@pytest.fixture
async def setup(tmp_path: Path) -> AsyncIterator[tuple[LiveService, Recorder, Clock, Path]]:
    clock = Clock()
    live, recorder, storage = await _service(tmp_path / "l.sqlite3", clock)
    try:
        yield live, recorder, clock, tmp_path / "l.sqlite3"
    finally:
        await storage.close()


async def _steps(live: LiveService, sid: int, n: int = 1) -> None:
    live._nudges.setdefault(sid, asyncio.Event())
    for _ in range(n):
        await live.step(sid)


async def _session(live: LiveService) -> LiveSession:
    session, created = await live.create(
        guild_id=G, channel_id=CH, host_id=HOST, language="en",
        settings=LiveSettings("mixed", 3, 20, "speed"),
    )  # fmt: skip
    assert created
    return session


async def test_a_whole_session(setup: tuple[LiveService, Recorder, Clock, Path]) -> None:
    live, rec, clock, _ = setup
    session = await _session(live)
    again, created = await live.create(
        guild_id=G, channel_id=CH, host_id=5, language="en",
        settings=LiveSettings("mixed", 3, None, "accuracy"),
    )  # fmt: skip
    assert (again.id, created) == (session.id, False)
    for user in (1, 2, 3):
        assert await live.join(session.id, G, user, f"u{user}")
    await live.host_action(session.id, G, "start")
    await _steps(live, session.id)  # running -> question 0 opens
    assert rec.questions == [0]
    questions = await live.store.questions(session.id)
    q0 = live.question(questions[0])
    right, wrong = q0.correct_index, (q0.correct_index + 1) % len(q0.choices)
    clock.advance(2)
    await live.lock_in(session.id, G, 0, 3, "u3", right)
    await live.lock_in(session.id, G, 0, 1, "u1", wrong)
    clock.advance(2)
    await live.lock_in(session.id, G, 0, 1, "u1", right)  # changed: the last one counts
    assert not rec.reveals
    await live.lock_in(session.id, G, 0, 2, "u2", wrong)
    await _steps(live, session.id, 2)  # all answered: revealed early, then recorded
    reveal = rec.reveals[-1]
    assert reveal.counts == {right: 2, wrong: 1}
    verdicts = {v.user_id: (v.correct, v.place) for v in reveal.verdicts}
    assert verdicts[1][0] and verdicts[3][0] and not verdicts[2][0]
    assert [r.user_id for r in reveal.standings][:2] == [3, 1]  # 3 answered faster
    late, *_ = await live.lock_in(session.id, G, 0, 2, "u2", right)
    assert late == "late"
    # Real answers: u1's point is in the server's leaderboard.
    stats = await live.quiz.storage.standings.member_stats(G, 1)
    assert stats is not None and stats.score.points == 1
    # Between two questions, Reveal now and Skip have nothing to act on.
    for action in ("reveal", "skip"):
        with pytest.raises(QuizError) as err:
            await live.host_action(session.id, G, action)
        assert err.value.key == "live_not_now"
    # Question 1: paused and resumed (the countdown re-announced), the host reveals
    # now; question 2: skipped; then the podium.
    clock.advance(5)
    await _steps(live, session.id)
    await live.host_action(session.id, G, "pause")
    clock.advance(100)  # paused: the clock runs, the question's time does not
    await live.host_action(session.id, G, "resume")
    assert rec.timers == ["paused", "running"]
    resumed = await live.store.get(session.id)
    assert resumed is not None and resumed.deadline_at == live.quiz.now_ms() + 20_000
    await live.lock_in(session.id, G, 1, 2, "u2", 0)
    await live.host_action(session.id, G, "reveal")
    await _steps(live, session.id, 2)
    assert len(rec.reveals) == 2
    clock.advance(5)
    await _steps(live, session.id)
    await live.host_action(session.id, G, "skip")
    await _steps(live, session.id)
    assert rec.reveals[-1].live.skipped
    clock.advance(5)
    await _steps(live, session.id, 2)
    final = rec.finals[-1]
    assert final.session.status == "ended"
    assert final.most_missed is not None
    assert set(final.per_player) == {1, 2, 3}
    with pytest.raises(QuizError):
        await live.host_action(session.id, G, "pause")


async def test_restart_keeps_choices_and_reveals_a_passed_deadline(
    setup: tuple[LiveService, Recorder, Clock, Path],
) -> None:
    live, rec, clock, path = setup
    session = await _session(live)
    await live.host_action(session.id, G, "start")
    await _steps(live, session.id)
    await live.lock_in(session.id, G, 0, 1, "u1", 1)
    await live.join(session.id, G, 2, "u2")
    # The bot stops; the deadline passes while it is down; a new process starts.
    clock.advance(60)
    second, rec2, storage2 = await _service(path, clock)
    try:
        await _steps(second, session.id, 2)
        assert rec2.reveals and rec2.reveals[0].counts == {1: 1}
        assert {v.user_id: v.choice_index for v in rec2.reveals[0].verdicts} == {1: 1, 2: None}
    finally:
        await storage2.close()


async def test_forged_positions_and_other_servers(
    setup: tuple[LiveService, Recorder, Clock, Path],
) -> None:
    live, *_ = setup
    session = await _session(live)
    with pytest.raises(QuizError) as err:
        await live.lock_in(session.id, 999, 0, 1, "u1", 0)
    assert err.value.key == "live_unknown"
    with pytest.raises(QuizError) as err:
        await live.lock_in(session.id, G, 7, 1, "u1", 0)
    assert err.value.key == "bad_choice"
    outcome, *_ = await live.lock_in(session.id, G, 0, 1, "u1", 0)
    assert outcome == "late"  # the lobby: no question open yet


async def test_lobby_starts_by_itself_after_60_seconds(
    setup: tuple[LiveService, Recorder, Clock, Path],
) -> None:
    live, rec, clock, _ = setup
    session = await _session(live)
    clock.advance(60)
    await _steps(live, session.id, 2)  # the lobby's time is up: started, question 1 opens
    assert rec.questions == [0]
    got = await live.store.get(session.id)
    assert got is not None and (got.status, got.position) == ("running", 0)


async def test_only_the_owner_of_the_servers_shard_runs_its_timers(
    setup: tuple[LiveService, Recorder, Clock, Path],
) -> None:
    live, *_ = setup
    session = await _session(live)
    live.owns = lambda guild_id: guild_id != G
    live.launch(session)
    assert await live.resume_all() == 1 and live.tasks == {}
    live.owns = lambda guild_id: True
    live.launch(session)
    assert set(live.tasks) == {session.id}
    await live.stop()
    assert live.tasks == {}


async def test_two_processes_on_postgresql_reveal_a_question_once(pg_url: str) -> None:
    """Two services (two processes' worth) over one PostgreSQL database step the same
    session at the same moment: exactly one reveals and records each question."""
    from bot.storage.pg.storage import PgStorage

    clock = Clock()
    first, second = await PgStorage.open(pg_url), await PgStorage.open(pg_url)
    try:
        services = []
        for storage in (first, second):
            service = LiveService(QuizService(make_bank(), storage, clock, random.Random(4)))
            service.announcer = Recorder()
            services.append(service)
        a, b = services
        session = await _session(a)
        await a.join(session.id, G, 1, "u1")
        await a.host_action(session.id, G, "start")
        await _steps(a, session.id)
        await a.lock_in(session.id, G, 0, 1, "u1", 1)
        for service in services:
            service._nudges.setdefault(session.id, asyncio.Event())
        for _ in range(2):
            await asyncio.gather(a.step(session.id), b.step(session.id))
        reveals = [len(s.announcer.reveals) for s in services]  # type: ignore[attr-defined]
        assert sorted(reveals) == [0, 1]
        assert await first.standings.member_stats(G, 1) is not None
        counted = await first.db.fetch("SELECT COUNT(*) FROM answers")
        assert counted[0][0] == 1
    finally:
        await first.close()
        await second.close()


async def test_joining_by_answering_does_not_reveal_for_everyone(
    setup: tuple[LiveService, Recorder, Clock, Path],
) -> None:
    """Nobody pressed Join: the first click must not reveal question 1 at once."""
    live, rec, clock, _ = setup
    session = await _session(live)
    await live.host_action(session.id, G, "start")
    await _steps(live, session.id)
    clock.advance(1)
    await live.lock_in(session.id, G, 0, 1, "u1", 0)
    live.nudge(session.id)
    await asyncio.wait_for(live.step(session.id), 1)  # the nudge wakes it; no reveal
    assert not rec.reveals
    clock.advance(20)
    await _steps(live, session.id, 2)  # the deadline
    assert len(rec.reveals) == 1


async def test_computed_questions_are_drawn_once_per_session_question(tmp_path: Path) -> None:
    """A session of computed questions only: each session question has one set of
    numbers, stored, which every reader (and a restarted service) shows the same."""
    from bot.bank.template_files import load_templates
    from bot.quiz.model import Bank

    clock = Clock()
    templates = load_templates()
    storage = await Storage.open(tmp_path / "t.sqlite3")
    try:
        quiz = QuizService(Bank.of([]), storage, clock, random.Random(9), templates)
        live = LiveService(quiz)
        session, _ = await live.create(
            guild_id=G, channel_id=CH, host_id=HOST, language="tr",
            settings=LiveSettings("mixed", 5, None, "accuracy"),
        )  # fmt: skip
        questions = await live.store.questions(session.id)
        assert all(q.params for q in questions)
        texts = [live.question(q).text.en for q in questions]
        other = LiveService(QuizService(Bank.of([]), storage, clock, random.Random(1), templates))
        assert [other.question(q).text.en for q in questions] == texts
        assert all(q.seconds >= 20 for q in questions)  # by length and difficulty
    finally:
        await storage.close()


async def test_forget_me_recounts_a_running_sessions_standings(
    setup: tuple[LiveService, Recorder, Clock, Path],
) -> None:
    live, rec, clock, _ = setup
    session = await _session(live)
    for user in (1, 2):
        await live.join(session.id, G, user, f"u{user}")
    await live.host_action(session.id, G, "start")
    await _steps(live, session.id)
    question = live.question((await live.store.questions(session.id))[0])
    clock.advance(1)
    for user in (1, 2):
        await live.lock_in(session.id, G, 0, user, f"u{user}", question.correct_index)
    await _steps(live, session.id, 2)
    assert [r.user_id for r in await live.standings(session)] == [1, 2]
    deleted = await live.quiz.storage.privacy.forget_member(G, 1)
    assert deleted["live_choices"] == 1 and deleted["answers"] == 1
    assert [r.user_id for r in await live.standings(session)] == [2]
