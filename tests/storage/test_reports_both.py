"""The report store on SQLite and PostgreSQL: the same tests on both (`backend`).

tests/storage/test_reports.py tests the SQLite functions one by one; these test the
store of the contract, and that the limits hold against filings racing each other (on
PostgreSQL several processes may file at once, and READ COMMITTED alone would let two
filings both read a count below the limit).
"""

from __future__ import annotations

import asyncio

from bot.quiz.reports import DAILY_LIMIT, DAY_MS, MAX_BODY
from bot.storage.records import Report
from tests.storage.conftest import Backend

GUILD, OTHER = 111, 222
ALICE, BOB = 1001, 1002
T0 = 1_700_000_000_000


async def _add(b: Backend, qid: str = "q1", *, user: int = ALICE, guild: int = GUILD,
               now: int = T0, body: str | None = "the key is B", reason: str = "wrong_answer"):  # fmt: skip
    return await b.reports.add(guild_id=guild, user_id=user, question_id=qid, language="tr",
                               reason=reason, body=body, now_ms=now)  # fmt: skip


async def test_limits_one_per_question_and_five_a_day(backend: Backend) -> None:
    first = await _add(backend, body="  <@123> **bold**  ")
    assert isinstance(first, Report) and first.body == "<@123> **bold**" and first.open
    assert await _add(backend, now=T0 + 1) == "report_already"
    await backend.reports.resolve(first.id, now_ms=T0 + 2, note="fixed")
    assert await _add(backend, now=T0 + 3) == "report_already"
    for i in range(1, DAILY_LIMIT):
        assert isinstance(await _add(backend, f"q{i + 1}", now=T0 + 10 + i), Report)
    assert await _add(backend, "q-extra", now=T0 + 20) == "report_daily_limit"
    assert isinstance(await _add(backend, "q-extra", user=BOB, now=T0 + 20), Report)
    assert isinstance(await _add(backend, "q-extra", now=T0 + DAY_MS), Report)
    long = await _add(backend, "q-long", guild=OTHER, body="x" * (MAX_BODY + 50))
    empty = await _add(backend, "q-empty", guild=OTHER, body=None, reason="typo")
    assert isinstance(long, Report) and isinstance(empty, Report)
    assert len(long.body) == MAX_BODY and empty.body == ""


async def test_racing_filings_keep_the_limits(backend: Backend) -> None:
    same = await asyncio.gather(*(_add(backend, now=T0 + i) for i in range(4)))
    assert sum(isinstance(r, Report) for r in same) == 1
    many = await asyncio.gather(
        *(_add(backend, f"r{i}", user=BOB, now=T0 + i) for i in range(DAILY_LIMIT + 3))
    )
    assert sum(isinstance(r, Report) for r in many) == DAILY_LIMIT
    assert many.count("report_daily_limit") == 3


async def test_listing_counting_and_resolving(backend: Backend) -> None:
    r = backend.reports
    a = await _add(backend)
    b = await _add(backend, user=BOB, now=T0 + 1)
    c = await _add(backend, guild=OTHER, now=T0 + 2)
    assert isinstance(a, Report) and isinstance(b, Report) and isinstance(c, Report)
    assert await r.open_counts(GUILD) == {"q1": 2} and await r.open_counts() == {"q1": 3}
    assert [x.id for x in await r.find()] == [c.id, b.id, a.id]  # newest first
    assert [x.id for x in await r.find(GUILD, limit=1, offset=1)] == [a.id]
    assert [x.id for x in await r.find(question_id="q1", limit=2)] == [c.id, b.id]
    assert await r.resolve(a.id, now_ms=T0 + 5, by=77, guild_id=OTHER) is None
    done = await r.resolve(a.id, now_ms=T0 + 5, by=77, note="fixed in 1.2", guild_id=GUILD)
    assert done is not None and (done.resolved_at, done.resolved_by, done.note) == (
        T0 + 5, 77, "fixed in 1.2")  # fmt: skip
    again = await r.resolve(a.id, now_ms=T0 + 9, note="other")
    assert again is not None and again.note == "fixed in 1.2"
    assert await r.resolve(999_999, now_ms=T0) is None
    assert await r.count_open(GUILD) == 1 and await r.count_open() == 2
    assert [x.id for x in await r.find(GUILD, open_only=True)] == [b.id]
    assert await r.resolve_open(c.id, guild_id=GUILD, now_ms=T0 + 6, by=5) is None
    closed = await r.resolve_open(c.id, guild_id=OTHER, now_ms=T0 + 6, by=5)
    assert closed is not None and closed.resolved_by == 5 and not closed.open
    assert await r.resolve_open(c.id, guild_id=OTHER, now_ms=T0 + 7, by=6) is None


async def test_a_members_reports_are_exported_and_forgotten(backend: Backend) -> None:
    await _add(backend)
    await _add(backend, "q2", now=T0 + 1)
    bobs = await _add(backend, user=BOB)
    assert isinstance(bobs, Report)
    await backend.reports.resolve_open(bobs.id, guild_id=GUILD, now_ms=T0 + 3, by=ALICE)
    await _add(backend, guild=OTHER)
    exported = await backend.privacy.export_member(GUILD, ALICE)
    assert [x["question_id"] for x in exported["reports"]] == ["q1", "q2"]
    deleted = await backend.privacy.forget_member(GUILD, ALICE)
    assert deleted["reports"] == 2
    assert (await backend.privacy.export_member(GUILD, ALICE))["reports"] == []
    (kept,) = await backend.reports.find(GUILD)
    assert kept.id == bobs.id and kept.resolved_by is None and not kept.open
    assert await backend.privacy.member_guilds(ALICE) == [OTHER]
    counts = await backend.privacy.forget_guild(OTHER)
    assert counts["reports"] == 1 and await backend.reports.find(OTHER) == []
