"""Quiz night sessions on both backends (issue 26, migration 0012): state round-trips,
lock-ins only while a question is open, one reveal, a locked-in choice kept across a
reopened database, and the members' data rules (export, forget-me, a server's deletion)."""

from __future__ import annotations

from typing import Any

from bot.storage.pg.db import PgDatabase
from bot.storage.pg.live import PgLiveStore
from bot.storage.pg.privacy import PgPrivacyStore
from bot.storage.sqlite.db import Database
from bot.storage.sqlite.live import LiveStore
from bot.storage.sqlite.privacy import PrivacyStore
from tests.factories import make_question
from tests.storage.conftest import Backend

G, CH, HOST = 10, 20, 1
PLAN = [
    ("basics-01", (2, 0, 1, 3), None, 20),
    ("tpl-x", (1, 0, 2, 3), '{"n": "8"}', 30),
    ("basics-02", (0, 1, 2, 3), None, 25),
]


async def _create(live: Any, channel: int = CH, now: int = 1_000) -> Any:
    session, created = await live.create(
        guild_id=G,
        channel_id=channel,
        host_id=HOST,
        language="tr",
        topic="mixed",
        seconds=None,
        scoring="speed",
        now_ms=now,
        starts_at=now + 60_000,
        questions=PLAN,
    )
    assert created
    return session


async def test_session_round_trips_and_one_per_channel(backend: Backend) -> None:
    live = backend.live
    session = await _create(live)
    assert (session.status, session.position, session.deadline_at) == ("lobby", -1, 61_000)
    assert await live.get(session.id) == session
    assert await live.in_channel(CH) == session
    again, created = await live.create(
        guild_id=G, channel_id=CH, host_id=2, language="en", topic="basics", seconds=30,
        scoring="accuracy", now_ms=5, starts_at=6, questions=PLAN,
    )  # fmt: skip
    assert (again, created) == (session, False)
    questions = await live.questions(session.id)
    assert [(q.question_id, q.order, q.params, q.seconds) for q in questions] == PLAN
    kinds = await backend.rows("SELECT kind, closed_at FROM posts ORDER BY id", ())
    assert kinds == [("live", None)] * 3
    other = await _create(live, channel=CH + 1)
    assert other.id != session.id
    assert [s.id for s in await live.open_sessions()] == [session.id, other.id]


async def test_lock_in_only_while_open_last_choice_counts_one_reveal(backend: Backend) -> None:
    live = backend.live
    session = await _create(live)
    assert (
        await live.lock_in(session.id, 0, user_id=5, name="a", choice_index=1, now_ms=2) == "late"
    )
    assert await live.join(session.id, user_id=6, name="b", now_ms=3)
    assert not await live.join(session.id, user_id=6, name="b", now_ms=4)
    assert await live.start(session.id)
    assert not await live.start(session.id)
    assert await live.open_question(session.id, 0, now_ms=10_000, deadline_at=30_000)
    assert not await live.open_question(session.id, 0, now_ms=10_001, deadline_at=30_001)
    for user, choice, at in ((5, 1, 11_000), (6, 2, 12_000), (5, 3, 13_000)):
        got = await live.lock_in(
            session.id, 0, user_id=user, name=f"u{user}", choice_index=choice, now_ms=at
        )
        assert got == "locked"
    assert await live.players(session.id) == {6: "u6", 5: "u5"}  # the latest name
    assert [(c.user_id, c.choice_index, c.locked_at) for c in await live.choices(session.id)] == [
        (5, 3, 13_000),
        (6, 2, 12_000),
    ]
    assert await live.claim_reveal(session.id, 0, now_ms=14_000, next_at=19_000)
    assert not await live.claim_reveal(session.id, 0, now_ms=14_001, next_at=19_001)
    late = await live.lock_in(session.id, 0, user_id=6, name="b", choice_index=0, now_ms=14_500)
    assert late == "late"
    assert (await live.choices(session.id))[1].choice_index == 2
    got = await live.get(session.id)
    assert (got.position, got.deadline_at) == (0, 19_000)
    post_id = (await live.questions(session.id))[0].post_id
    assert await live.recorded(session.id, 0, post_id, now_ms=15_000)
    assert not await live.recorded(session.id, 0, post_id, now_ms=15_001)  # once
    first = (await live.questions(session.id))[0]
    assert (first.revealed_at, first.recorded_at, first.skipped) == (14_000, 15_000, False)
    assert await backend.scalar("SELECT closed_at FROM posts WHERE id = ?", (post_id,)) == 15_000


async def test_pause_resume_end(backend: Backend) -> None:
    live = backend.live
    session = await _create(live)
    await live.start(session.id)
    await live.open_question(session.id, 0, now_ms=0, deadline_at=20_000)
    assert await live.pause(session.id, now_ms=5_000)
    paused = await live.get(session.id)
    assert (paused.status, paused.deadline_at, paused.remaining_ms) == ("paused", None, 15_000)
    assert await live.resume(session.id, now_ms=100_000) == 115_000
    assert await live.resume(session.id, now_ms=100_001) is None
    assert await live.end(session.id, now_ms=120_000, reason="host")
    assert not await live.end(session.id, now_ms=120_001, reason="host")
    assert await live.lock_in(session.id, 0, user_id=5, name="a", choice_index=1, now_ms=1) == (
        "ended"
    )
    assert await live.in_channel(CH) is None
    assert await backend.scalar("SELECT COUNT(*) FROM posts WHERE closed_at IS NULL", ()) == 0
    await _create(live)  # the channel is free again


async def test_locked_in_choice_survives_reopening(backend_target: tuple[str, str]) -> None:
    """An acknowledged lock-in is committed: a process that dies and a new one that opens
    the database finds it (SQLite file closed and opened; PostgreSQL pool likewise)."""
    name, target = backend_target

    async def opened() -> tuple[Any, Any]:
        if name == "sqlite":
            db = await Database.open(target)
            return db, LiveStore(db)
        pg = await PgDatabase.open(target)
        return pg, PgLiveStore(pg)

    db, live = await opened()
    session = await _create(live)
    await live.start(session.id)
    await live.open_question(session.id, 0, now_ms=0, deadline_at=20_000)
    await live.lock_in(session.id, 0, user_id=7, name="c", choice_index=2, now_ms=500)
    await db.close()
    db, live = await opened()
    try:
        assert [(c.user_id, c.choice_index) for c in await live.choices(session.id)] == [(7, 2)]
        resumed = await live.get(session.id)
        assert (resumed.status, resumed.position, resumed.deadline_at) == ("running", 0, 20_000)
    finally:
        await db.close()


async def test_session_answer_follows_the_first_answer_rule(backend: Backend) -> None:
    """A session answer is a real answer: recorded on the session question's post, it
    takes the member's first-answer point; a later post of the same question earns none."""
    live = backend.live
    session = await _create(live)
    first_post = (await live.questions(session.id))[0].post_id
    question = make_question("basics-01", correct=1)
    result = await backend.answers.record(
        guild_id=G, user_id=5, name="a", question=question, choice_index=1, now_ms=10,
        post_id=first_post,
    )  # fmt: skip
    assert result is not None and result.points_awarded == 1
    other = await backend.posts.create(
        guild_id=G, channel_id=CH, question_id="basics-01", order=(0, 1, 2, 3), language="tr",
        now_ms=20,
    )  # fmt: skip
    later = await backend.answers.record(
        guild_id=G, user_id=5, name="a", question=question, choice_index=1, now_ms=30,
        post_id=other.id,
    )  # fmt: skip
    assert later is not None and later.points_awarded == 0
    cards = await backend.cards.member_cards(G, 5)
    assert "basics-01" in cards


async def test_members_data_rules(backend: Backend) -> None:
    live = backend.live
    session = await _create(live)
    await live.start(session.id)
    await live.open_question(session.id, 0, now_ms=0, deadline_at=20_000)
    for user in (5, 6):
        await live.lock_in(session.id, 0, user_id=user, name=f"u{user}", choice_index=1, now_ms=9)
    data = await backend.privacy.export_member(G, 5)
    assert [r["choice_index"] for r in data["live_choices"]] == [1]
    assert [r["name"] for r in data["live_players"]] == ["u5"]
    assert "live_choices" in data["_about"]
    assert G in await backend.privacy.member_guilds(5)
    deleted = await backend.privacy.forget_member(G, 5)
    assert (deleted["live_choices"], deleted["live_players"]) == (1, 1)
    assert [c.user_id for c in await live.choices(session.id)] == [6]
    assert await live.players(session.id) == {6: "u6"}
    gone = await backend.privacy.forget_guild(G)
    assert gone["live_sessions"] == 1 and gone["live_questions"] == 3
    assert await live.get(session.id) is None
    assert isinstance(backend.privacy, PrivacyStore | PgPrivacyStore)


async def test_a_host_is_exported_and_forgotten_and_the_session_stays(backend: Backend) -> None:
    live = backend.live
    session = await _create(live)
    await live.start(session.id)
    data = await backend.privacy.export_member(G, HOST)
    assert [(r["id"], r["host_id"]) for r in data["live_sessions"]] == [(session.id, HOST)]
    assert "live_sessions" in data["_about"]
    deleted = await backend.privacy.forget_member(G, HOST)
    assert deleted["live_sessions"] == 1
    kept = await live.get(session.id)
    assert kept is not None and kept.host_id == 0
    assert (await backend.privacy.export_member(G, HOST))["live_sessions"] == []


async def test_joined_by_a_questions_opening(backend: Backend) -> None:
    live = backend.live
    session = await _create(live)
    await live.join(session.id, user_id=5, name="a", now_ms=100)
    await live.start(session.id)
    await live.open_question(session.id, 0, now_ms=200, deadline_at=20_000)
    await live.lock_in(session.id, 0, user_id=6, name="b", choice_index=0, now_ms=300)
    assert await live.joined_by(session.id, 200) == {5}
    assert await live.joined_by(session.id, 300) == {5, 6}


async def test_roll_call(backend: Backend) -> None:
    live = backend.live
    session = await _create(live)
    for user in (5, 6):
        await live.join(session.id, user_id=user, name="x", now_ms=100)
    await live.start(session.id)
    await live.open_question(session.id, 0, now_ms=200, deadline_at=20_000)
    await live.lock_in(session.id, 0, user_id=6, name="b", choice_index=0, now_ms=300)
    await live.lock_in(session.id, 0, user_id=7, name="c", choice_index=0, now_ms=300)
    assert await live.roll_call(session.id, 0, 200) == ({5, 6}, {6})
    assert await live.roll_call(session.id, 1, 200) == ({5, 6}, set())
