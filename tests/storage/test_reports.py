"""Problem reports on a real SQLite file: limits, listing, resolving, member deletion."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.quiz.reports import DAILY_LIMIT, DAY_MS, MAX_BODY
from bot.storage.migration_files import bundled
from bot.storage.records import Report
from bot.storage.sqlite import Storage
from bot.storage.sqlite.reports import (
    add_report,
    count_open,
    delete_guild,
    delete_member,
    export_member,
    list_reports,
    open_counts,
    resolve,
)

GUILD, OTHER = 111, 222
ALICE, BOB = 1001, 1002
T0 = 1_700_000_000_000


@pytest.fixture
async def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "quiz.sqlite3"
    storage = await Storage.open(path)  # every bundled migration, as the bot opens it
    await storage.close()
    connection = sqlite3.connect(path, isolation_level=None)
    yield connection
    connection.close()


def _add(conn: sqlite3.Connection, qid: str = "q1", *, user: int = ALICE, guild: int = GUILD,
         now: int = T0, body: str | None = "the key is B", reason: str = "wrong_answer"):  # fmt: skip
    return add_report(conn, guild_id=guild, user_id=user, question_id=qid, language="tr",
                      reason=reason, body=body, now_ms=now)  # fmt: skip


def test_the_reports_table_comes_from_a_bundled_migration() -> None:
    assert any("CREATE TABLE reports" in m.sql for m in bundled())


def test_a_report_is_stored_with_question_language_member_and_server(conn) -> None:
    report = _add(conn, body="  <@123> **bold**  ")
    assert isinstance(report, Report)
    assert (report.guild_id, report.user_id, report.question_id) == (GUILD, ALICE, "q1")
    assert (report.language, report.reason, report.body) == (
        "tr",
        "wrong_answer",
        "<@123> **bold**",
    )
    assert report.open and list_reports(conn, GUILD) == [report]


def test_one_report_per_member_per_question_even_once_resolved(conn) -> None:
    first = _add(conn)
    assert isinstance(first, Report)
    assert _add(conn, now=T0 + 1) == "report_already"
    resolve(conn, first.id, now_ms=T0 + 2, note="fixed")
    assert _add(conn, now=T0 + 3) == "report_already"
    # Another member, or the same member in another server, may report it.
    assert isinstance(_add(conn, user=BOB), Report)
    assert isinstance(_add(conn, guild=OTHER), Report)


def test_at_most_five_reports_per_member_in_a_day(conn) -> None:
    for i in range(DAILY_LIMIT):
        assert isinstance(_add(conn, f"q{i}", now=T0 + i), Report)
    assert _add(conn, "q-extra", now=T0 + 10) == "report_daily_limit"
    assert isinstance(_add(conn, "q-extra", user=BOB, now=T0 + 10), Report)
    # 24 hours after the first, one more is allowed.
    assert isinstance(_add(conn, "q-extra", now=T0 + DAY_MS), Report)


def test_a_long_body_is_cut_and_a_missing_one_is_empty(conn) -> None:
    long = _add(conn, body="x" * (MAX_BODY + 50))
    empty = _add(conn, "q2", body=None, reason="typo")
    assert isinstance(long, Report) and isinstance(empty, Report)
    assert len(long.body) == MAX_BODY and empty.body == ""


def test_open_counts_and_resolving(conn) -> None:
    a = _add(conn)
    b = _add(conn, user=BOB)
    c = _add(conn, guild=OTHER)
    assert isinstance(a, Report) and isinstance(b, Report) and isinstance(c, Report)
    assert open_counts(conn, GUILD) == {"q1": 2}
    assert open_counts(conn) == {"q1": 3}
    # An admin of OTHER cannot resolve GUILD's report.
    assert resolve(conn, a.id, now_ms=T0 + 5, by=77, guild_id=OTHER) is None
    done = resolve(conn, a.id, now_ms=T0 + 5, by=77, note="fixed in 1.2", guild_id=GUILD)
    assert done is not None and (done.resolved_at, done.resolved_by, done.note) == (
        T0 + 5, 77, "fixed in 1.2")  # fmt: skip
    again = resolve(conn, a.id, now_ms=T0 + 9, note="other")
    assert again is not None and again.note == "fixed in 1.2"  # the first resolution stays
    assert resolve(conn, 999_999, now_ms=T0) is None
    assert open_counts(conn, GUILD) == {"q1": 1}
    assert count_open(conn, GUILD) == 1 and count_open(conn) == 2
    assert [r.id for r in list_reports(conn, GUILD, open_only=True)] == [b.id]


def test_member_and_server_deletion_and_export(conn) -> None:
    _add(conn)
    _add(conn, "q2", now=T0 + 1)
    _add(conn, user=BOB)
    _add(conn, guild=OTHER)
    exported = export_member(conn, GUILD, ALICE)
    assert [r["question_id"] for r in exported] == ["q1", "q2"]
    assert exported[0]["body"] == "the key is B" and exported[0]["guild_id"] == GUILD
    assert delete_member(conn, GUILD, ALICE) == 2
    assert export_member(conn, GUILD, ALICE) == []
    assert len(export_member(conn, OTHER, ALICE)) == 1  # another server's stay
    assert delete_guild(conn, GUILD) == 1
    assert list_reports(conn, GUILD) == [] and len(list_reports(conn)) == 1
