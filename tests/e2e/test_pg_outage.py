"""End to end on PostgreSQL: clicks while the database server is down (issue 31, defect 8).

The real bot on the loopback Discord, its storage a PostgreSQL server of the test's own
(`own_pg_server`), which the test stops and starts again. A click on a post the bot has
not read yet needs a read first; with the server down that read fails, and the member
must hear what a failed write says ("not saved"), with one warning line and no ERROR
traceback; a command that only reads says so too. Once the server is back, the same
click is saved.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any

import asyncpg
import pytest

from bot.i18n import t
from bot.infra.config import DatabaseUrl, Settings
from bot.runtime.compose import build_bot
from bot.storage.pg.storage import PgStorage
from tests.e2e.conftest import QuizHarness, buttons, callback_message
from tests.e2e.test_quiz import EPHEMERAL, post_question
from tests.loopback.harness import running
from tests.pg_server import PgServer

ALICE, BOB = 1_300_000_000_000_031_001, 1_300_000_000_000_031_002


async def scalar(url: str, sql: str) -> Any:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetchval(sql)
    finally:
        await conn.close()


async def message_recorded(url: str) -> None:
    """Wait (bounded) until the command's last write, the post's message id, is done:
    the outage must begin after it, not in the middle of it."""
    deadline = time.monotonic() + 30
    while await scalar(url, "SELECT COUNT(*) FROM posts WHERE message_id IS NOT NULL") != 1:
        assert time.monotonic() < deadline, "the post's message id was never recorded"
        await asyncio.sleep(0.02)


def interaction_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the bot logged about interactions (the background loops aside)."""
    return [
        r
        for r in caplog.records
        if r.name.startswith(("bot.ui.responses", "bot.ui.buttons", "bot.services.quiz", "discord"))
        and r.levelno >= logging.WARNING
    ]


async def test_a_click_during_an_outage_is_not_saved_in_one_warning_and_saved_after(
    quiz: QuizHarness, own_pg_server: PgServer, caplog: pytest.LogCaptureFixture
) -> None:
    url = own_pg_server.url()
    storage = await PgStorage.open(url)
    bot = build_bot(
        settings=Settings(db_path=quiz.db_path, database_url=DatabaseUrl(url)),
        storage=storage,  # type: ignore[arg-type]
        bank=quiz.bank,
        clock=quiz.clock,
        rng=random.Random(7),
        guild_ready_timeout=0.05,
    )
    try:
        async with running(bot, quiz.loopback):
            message_id, message = await post_question(quiz, quiz.member(ALICE, "alice"))
            custom_id = buttons(message)[0]["custom_id"]
            bob: dict[str, Any] = quiz.member(BOB, "bob")
            await message_recorded(url)

            own_pg_server.halt()
            caplog.clear()
            caplog.set_level(logging.INFO)
            request = await quiz.click(message_id, custom_id, bob)
            assert request.body["type"] == 4
            reply = callback_message(request)
            assert reply["content"] == t("answer_not_saved", "en")
            assert reply["flags"] & EPHEMERAL
            lines = interaction_lines(caplog)
            assert [(r.levelno, r.exc_info) for r in lines] == [(logging.WARNING, None)]
            assert "answer not saved" in lines[0].getMessage()
            # Any read in an interaction: a command says the same in one warning.
            caplog.clear()
            request = await quiz.loopback.interact(quiz.command(bob, "leaderboard"))
            assert callback_message(request)["content"] == t("write_failed", "en")
            lines = interaction_lines(caplog)
            assert [(r.levelno, r.exc_info) for r in lines] == [(logging.WARNING, None)]
            assert DatabaseUrl(url).password not in caplog.text

            own_pg_server.resume()
            request = await quiz.click(message_id, custom_id, bob)
            verdict = callback_message(request)  # the member's verdict, ephemeral
            assert verdict["embeds"] and not verdict.get("content"), verdict
            assert await scalar(url, "SELECT COUNT(*) FROM answers") == 1
    finally:
        await storage.close()
