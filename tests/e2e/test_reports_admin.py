"""End to end: `/tpquiz-admin reports` lists a server's open reports; Resolve (issue #13).

The listing is an admin's only: refused to a member without Manage Server, on the
command and on a (forged) Resolve click alike. A report body is a member's words, so it
is shown escaped and sent with no allowed mentions.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from bot.storage.records import Report
from bot.storage.sqlite.reports import add_report
from tests.e2e.conftest import (
    GUILD_ID,
    QuizHarness,
    buttons,
    callback_message,
    created_message_id,
)
from tests.e2e.forged import with_custom_id
from tests.loopback.server import ALL_PERMISSIONS

ADMIN, ALICE = 1_300_000_000_000_003_001, 1_300_000_000_000_003_002
OTHER_GUILD = 1_300_000_000_000_003_999
EPHEMERAL = 64
HOSTILE = "@everyone <@&1> **bold** [link](https://example.com)"


def _file(quiz: QuizHarness, count: int, *, guild_id: int = GUILD_ID) -> list[int]:
    """`count` reports by as many members, filed earlier: written into the bot's (migrated)
    database while the bot is stopped."""
    ids = []
    with sqlite3.connect(quiz.db_path, isolation_level=None) as conn:
        for i in range(count):
            report = add_report(
                conn,
                guild_id=guild_id,
                user_id=ALICE + i,
                question_id=f"basics-0{1 + i % 8}",
                language="en",
                reason="wrong_answer",
                body=HOSTILE if i == count - 1 else f"report {i}",
                now_ms=1_796_000_000_000 + i,
            )
            assert isinstance(report, Report)
            ids.append(report.id)
    return ids


def _open(quiz: QuizHarness) -> list[int]:
    with sqlite3.connect(quiz.db_path) as conn:
        rows = conn.execute("SELECT id FROM reports WHERE resolved_at IS NULL ORDER BY id")
        return [r[0] for r in rows]


async def _reports(quiz: QuizHarness, member: dict[str, Any], **kwargs: Any) -> Any:
    return await quiz.loopback.interact(
        quiz.command(member, "reports", command="tpquiz-admin", **kwargs)
    )


async def test_an_admin_pages_the_open_reports_and_resolves_one(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():  # creates the database
        pass
    ids = _file(quiz, 7)
    async with quiz.bot():
        request = await _reports(quiz, admin)
        message = callback_message(request)
        assert message["flags"] & EPHEMERAL
        assert message["allowed_mentions"] == {"parse": []}
        embed = message["embeds"][0]
        assert embed["title"] == "Open problem reports"
        assert embed["footer"]["text"] == "Page 1/2 · 7 open"
        # Newest first: the hostile body (the last filed) heads the page, escaped.
        assert embed["description"].startswith(f"**#{ids[-1]}** · `basics-07` · Wrong answer")
        assert "@\u200beveryone" in embed["description"]
        assert "\\*\\*bold\\*\\*" in embed["description"] and HOSTILE not in embed["description"]
        resolve = [b["custom_id"] for b in buttons(message)]
        assert resolve == [f"tpq:rr:{i}:0" for i in reversed(ids[2:])]

        second = callback_message(await _reports(quiz, admin, options={"page": 2}))
        assert second["embeds"][0]["footer"]["text"] == "Page 2/2 · 7 open"
        assert [b["label"] for b in buttons(second)] == [f"Resolve #{i}" for i in (ids[1], ids[0])]

        done = await quiz.click(created_message_id(request), resolve[0], admin)
        assert done.body["type"] == 7  # the listing is redrawn in place
        updated = callback_message(done)
        assert updated["content"] == f"#{ids[-1]} marked resolved."
        assert updated["embeds"][0]["footer"]["text"] == "Page 1/2 · 6 open"
        assert ids[-1] not in _open(quiz)
        with sqlite3.connect(quiz.db_path) as conn:
            ((by,),) = conn.execute("SELECT resolved_by FROM reports WHERE id = ?", (ids[-1],))
        assert by == ADMIN


async def test_a_member_without_manage_server_sees_and_resolves_nothing(
    quiz: QuizHarness,
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        pass
    ids = _file(quiz, 2)
    async with quiz.bot():
        refused = callback_message(await _reports(quiz, alice, locale="tr"))
        assert refused["flags"] & EPHEMERAL and "embeds" not in refused
        assert refused["content"] == (
            "Bu komutları yalnızca **Sunucuyu Yönet** yetkisi olan üyeler kullanabilir."
        )
        # Alice clicks a Resolve button on the admin's listing (or forges its custom_id).
        request = await _reports(quiz, admin, locale="tr")
        listing = callback_message(request)
        assert listing["embeds"][0]["title"] == "Açık sorun bildirimleri"
        assert buttons(listing)[0]["label"] == f"#{ids[-1]} çözüldü"
        click = await quiz.click(
            created_message_id(request), buttons(listing)[0]["custom_id"], alice
        )
        assert "Manage Server" in callback_message(click)["content"]
        assert _open(quiz) == ids


async def test_a_report_of_another_server_cannot_be_resolved_here(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        pass
    [ours] = _file(quiz, 1)
    [theirs] = _file(quiz, 1, guild_id=OTHER_GUILD)
    async with quiz.bot():
        request = await _reports(quiz, admin)
        listing = callback_message(request)
        assert [b["custom_id"] for b in buttons(listing)] == [f"tpq:rr:{ours}:0"]
        assert "1 open" in listing["embeds"][0]["footer"]["text"]
        genuine = quiz.loopback.button_click(created_message_id(request), f"tpq:rr:{ours}:0", admin)
        forged = await quiz.loopback.interact(
            with_custom_id(quiz.loopback, genuine, f"tpq:rr:{theirs}:0")
        )
        assert callback_message(forged)["content"] == (
            f"There is no open report #{theirs} in this server."
        )
        assert _open(quiz) == [ours, theirs]
        # The one listed is resolved; the listing then says there is nothing open.
        done = callback_message(
            await quiz.click(created_message_id(request), f"tpq:rr:{ours}:0", admin)
        )
        assert done["embeds"][0]["description"] == "No open reports." and done["components"] == []
