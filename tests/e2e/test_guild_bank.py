"""End to end: `/tpquiz-admin bank ...`, a server's own questions (issue 27), with the
unmodified discord.py client against the loopback Discord, which serves the uploaded
attachment's bytes at its URL (tests/loopback/server.py `attachment`).

An upload with errors names file and line and stores nothing; a good one is listed and
shown; an export uploads back to the same questions (new versions, same content); a
member without Manage Server is refused; a file over the limit is refused from its size
before any download; another server sees none of it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from typing import Any

import pytest

from bot.storage.sqlite.reports import add_report
from tests.e2e.conftest import CHANNEL_ID, GUILD_ID, QuizHarness, callback_message
from tests.loopback.server import ALL_PERMISSIONS, FOLLOWUP_ROUTE, RecordedRequest
from tests.quiz.test_own_upload import BOTH, GOOD_EN

ADMIN, ALICE = 1_300_000_000_000_027_001, 1_300_000_000_000_027_002
OTHER_GUILD = 1_300_000_000_000_027_999
EPHEMERAL = 64


async def _followup(quiz: QuizHarness, deferred: RecordedRequest) -> RecordedRequest:
    assert deferred.body["type"] == 5 and deferred.body["data"]["flags"] & EPHEMERAL
    return await quiz.loopback.wait_for(
        lambda r: r.route == FOLLOWUP_ROUTE and r.method == "POST", since=deferred.index
    )


async def _bank(
    quiz: QuizHarness, member: dict[str, Any], sub: str, guild_id: int = GUILD_ID, **options: Any
) -> RecordedRequest:
    payload = quiz.command(
        member,
        f"bank {sub}",
        options or None,
        command="tpquiz-admin",
        guild_id=guild_id,
        channel_id=guild_id + 1 if guild_id != GUILD_ID else CHANNEL_ID,
    )
    return await quiz.loopback.interact(payload)


async def _upload(
    quiz: QuizHarness,
    member: dict[str, Any],
    filename: str,
    data: bytes,
    guild_id: int = GUILD_ID,
    **options: Any,
) -> RecordedRequest:
    attachment = quiz.loopback.attachment(filename, data)
    deferred = await _bank(quiz, member, "upload", guild_id, file=attachment, **options)
    return await _followup(quiz, deferred)


def _stored(quiz: QuizHarness, guild_id: int = GUILD_ID) -> list[tuple[str, int, int]]:
    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute(
            "SELECT question_id, version, current FROM guild_questions WHERE guild_id = ?"
            " ORDER BY question_id, version",
            (guild_id,),
        ).fetchall()


def _attached(quiz: QuizHarness, request: RecordedRequest) -> bytes:
    [attachment] = request.response["attachments"]
    return quiz.loopback.uploads[int(attachment["id"])]


async def test_an_upload_with_errors_names_file_and_line_and_stores_nothing(
    quiz: QuizHarness,
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    broken = BOTH + "\n" + GOOD_EN.replace("difficulty: 2", "difficulty: 7")
    async with quiz.bot():
        reply = await _upload(quiz, admin, "ours.yaml", broken.encode())
    content = reply.body["content"]
    assert reply.body["flags"] & EPHEMERAL
    assert reply.body["allowed_mentions"] == {"parse": []}
    assert "1 problem(s); nothing was stored" in content
    assert "ours.yaml:21: our-01: difficulty: difficulty 7 is out of range" in content
    assert _stored(quiz) == []


async def test_a_good_upload_is_listed_shown_and_exported_back_to_the_same_questions(
    quiz: QuizHarness,
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        checked = await _upload(quiz, admin, "ours.yaml", GOOD_EN.encode(), **{"check-only": True})
        assert "Checked only; nothing was stored" in checked.body["content"]
        assert _stored(quiz) == []

        reply = await _upload(quiz, admin, "ours.yaml", (GOOD_EN + "\n" + BOTH).encode())
        assert "2 added, 0 replaced" in reply.body["content"], reply.body["content"]
        assert _stored(quiz) == [("our-01", 1, 1), ("our-02", 1, 1)]

        listed = callback_message(await _bank(quiz, admin, "list"))
        description = listed["embeds"][0]["description"]
        assert "`our-01` v1" in description and "`our-02` v1" in description
        shown = callback_message(await _bank(quiz, admin, "show", id="our-02"))
        embed = shown["embeds"][0]
        assert (
            embed["description"]
            == "In our reading group, which resource does tensor parallelism divide?"
        )
        assert embed["fields"][0]["name"].startswith("✅")

        exported = await _followup(quiz, await _bank(quiz, admin, "export"))
        data = _attached(quiz, exported)
        assert data.count(b"\n- id: ") == 2 and b"only-en" not in data  # as uploaded
        again = await _upload(quiz, admin, "tpquiz-export.yaml", data)
        assert "0 added, 2 replaced" in again.body["content"], again.body["content"]
    assert _stored(quiz) == [("our-01", 1, 0), ("our-01", 2, 1), ("our-02", 1, 0), ("our-02", 2, 1)]
    with sqlite3.connect(quiz.db_path) as conn:
        bodies = conn.execute(
            "SELECT question_id, version, body FROM guild_questions ORDER BY 1, 2"
        ).fetchall()
    assert bodies[0][2] == bodies[1][2] and bodies[2][2] == bodies[3][2]


async def test_a_member_without_manage_server_is_refused(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        attachment = quiz.loopback.attachment("ours.yaml", GOOD_EN.encode())
        refused = callback_message(await _bank(quiz, alice, "upload", file=attachment))
        listed = callback_message(await _bank(quiz, alice, "list"))
    assert refused["flags"] & EPHEMERAL
    assert refused["content"] == (
        "Only members with the **Manage Server** permission can use these commands."
    )
    assert listed["content"] == refused["content"]
    assert quiz.loopback.downloads == []
    assert _stored(quiz) == []


async def test_a_file_over_the_limit_is_refused_before_any_download(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        attachment = quiz.loopback.attachment("big.yaml", b"- id: x\n", size=2 * 1024 * 1024)
        deferred = await _bank(quiz, admin, "upload", file=attachment)
        reply = await _followup(quiz, deferred)
    assert "the limit is 1024 KiB" in reply.body["content"]
    assert quiz.loopback.downloads == []


async def test_another_server_sees_none_of_them(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    quiz.loopback.add_guild(OTHER_GUILD, name="Another group")
    async with quiz.bot():
        await _upload(quiz, admin, "ours.yaml", GOOD_EN.encode())
        assert _stored(quiz) == [("our-01", 1, 1)]
        listed = callback_message(await _bank(quiz, admin, "list", guild_id=OTHER_GUILD))
        shown = callback_message(
            await _bank(quiz, admin, "show", guild_id=OTHER_GUILD, id="our-01")
        )
    assert listed["embeds"][0]["description"].startswith("No questions yet")
    assert shown["content"] == "This server has no question `our-01`."
    assert _stored(quiz, OTHER_GUILD) == []


async def test_show_autocompletes_the_servers_ids_and_retire_stops_the_picks(
    quiz: QuizHarness,
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    alice = quiz.member(ALICE, "alice")
    quiz.loopback.add_guild(OTHER_GUILD, name="Another group")
    async with quiz.bot():
        await _upload(quiz, admin, "ours.yaml", (GOOD_EN + "\n" + BOTH).encode())
        for guild, channel, expected in (
            (GUILD_ID, CHANNEL_ID, ["our-01", "our-02"]),
            (OTHER_GUILD, OTHER_GUILD + 1, []),
        ):
            payload = quiz.loopback.autocomplete(
                guild, channel, admin, "tpquiz-admin", "bank show", {"id": "our"}, "id"
            )
            await quiz.loopback.interact(payload)
            assert [c["value"] for c in quiz.loopback.interaction(payload).choices] == expected
        payload = quiz.loopback.autocomplete(
            GUILD_ID, CHANNEL_ID, alice, "tpquiz-admin", "bank show", {"id": "our"}, "id"
        )
        await quiz.loopback.interact(payload)
        assert quiz.loopback.interaction(payload).choices == []  # not for members

        retired = callback_message(await _bank(quiz, admin, "retire", id="our-01"))
        assert retired["content"].startswith("`our-01` is retired: it is no longer picked.")
        again = callback_message(await _bank(quiz, admin, "retire", id="our-01"))
        assert again["content"] == "`our-01` is already retired."
        listed = callback_message(await _bank(quiz, admin, "list"))
        assert "`our-01` v1 · " in listed["embeds"][0]["description"]
        assert " · retired" in listed["embeds"][0]["description"]
        assert listed["embeds"][0]["footer"]["text"] == "Page 1/1 · 2 questions (1 in use)"
        exported = await _followup(quiz, await _bank(quiz, admin, "export"))
        assert b"our-01" not in _attached(quiz, exported)  # only the questions in use


async def test_many_problems_come_as_a_text_attachment_in_turkish(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    broken = "\n".join(
        BOTH.replace("our-02", f"our-{i:02d}").replace("difficulty: 1", "difficulty: 9")
        for i in range(60)
    )
    async with quiz.bot():
        attachment = quiz.loopback.attachment("çok.yaml", broken.encode())
        payload = quiz.command(
            admin, "bank upload", {"file": attachment}, command="tpquiz-admin", locale="tr"
        )
        reply = await _followup(quiz, await quiz.loopback.interact(payload))
    content = reply.body["content"]
    assert len(content) <= 2000
    # 60 difficulties out of range, and the copies' stems are near-duplicates of each other.
    assert content.startswith("❌ **çok.yaml**: 178 sorun; hiçbir şey kaydedilmedi.")
    assert content.endswith("Listenin tamamı ekteki dosyada.")
    listed = _attached(quiz, reply).decode().splitlines()
    assert len(listed) == 178 and all(line.startswith("çok.yaml:") for line in listed)
    assert sum(": difficulty: difficulty 9 is out of range" in line for line in listed) == 60
    assert _stored(quiz) == []


async def test_a_question_reported_twice_says_why_it_is_out_of_the_picks(
    quiz: QuizHarness,
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        await _upload(quiz, admin, "ours.yaml", (GOOD_EN + "\n" + BOTH).encode())
        with sqlite3.connect(quiz.db_path, isolation_level=None) as conn:
            for user in (ALICE, ALICE + 1):
                add_report(conn, guild_id=GUILD_ID, user_id=user, question_id="our-02@1",
                           language="en", reason="wrong_answer", body="hm", now_ms=1)  # fmt: skip
        listed = callback_message(await _bank(quiz, admin, "list"))
        shown = callback_message(await _bank(quiz, admin, "show", id="our-02"))
    lines = listed["embeds"][0]["description"].splitlines()
    assert lines[0].startswith("`our-01` v1") and "out of the picks" not in lines[0]
    assert lines[0].endswith(" · on probation: 0/30 first answers")
    assert lines[2].endswith(
        " · ⚠️ out of the picks: two open reports or more · on probation: 0/30 first answers"
    )
    assert shown["embeds"][0]["footer"]["text"].endswith(
        "⚠️ out of the picks: two open reports or more · on probation: 0/30 first answers"
    )


async def test_a_download_that_fails_or_hangs_is_one_sentence_and_stores_nothing(
    quiz: QuizHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        gone = quiz.loopback.attachment("gone.yaml", GOOD_EN.encode())
        del quiz.loopback.uploads[int(gone["id"])]  # the CDN no longer has it
        reply = await _followup(quiz, await _bank(quiz, admin, "upload", file=gone))
        assert reply.body["content"] == (
            "The file could not be read from Discord (HTTP 404). Try again; nothing was stored."
        )
        # The extension's module as the bot loaded it (discord.py imports it afresh).
        monkeypatch.setattr(sys.modules["cogs.guild_bank"], "DOWNLOAD_TIMEOUT", 0.05)
        quiz.loopback.attachment_gate = gate = asyncio.Event()
        slow = quiz.loopback.attachment("slow.yaml", GOOD_EN.encode())
        reply = await _followup(quiz, await _bank(quiz, admin, "upload", file=slow))
        gate.set()
        assert reply.body["content"].startswith("The file could not be read from Discord (0 s).")
    assert _stored(quiz) == []
