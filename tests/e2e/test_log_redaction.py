"""End to end: at DEBUG, discord.py logs every interaction URL; no token may be in them.

Issue #10, item 26. A member runs a command and clicks a button on the real discord.py
client; the text log (as `tpquiz run` sets it up) shows the URLs with the interaction
tokens replaced by [REDACTED], as the bot token already is.
"""

from __future__ import annotations

import logging

import pytest

from bot.infra.logs import REDACTED, setup_logging
from tests.e2e.conftest import QuizHarness, buttons, callback_message, created_message_id
from tests.ops.conftest import restore_logging  # noqa: F401  (fixture)

ALICE = 1_300_000_000_000_004_001


@pytest.mark.usefixtures("restore_logging")
async def test_debug_logs_show_no_interaction_token(
    quiz: QuizHarness, capsys: pytest.CaptureFixture[str]
) -> None:
    setup_logging("DEBUG", "text", secrets=[quiz.loopback.token])
    logging.getLogger("discord").setLevel(logging.DEBUG)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        command = quiz.command(alice, "question")
        request = await quiz.loopback.interact(command)
        message_id = created_message_id(request)
        custom_id = buttons(callback_message(request))[0]["custom_id"]
        click = quiz.loopback.button_click(message_id, custom_id, alice)
        await quiz.loopback.interact(click)
    out = capsys.readouterr().out
    for payload in (command, click):
        assert payload["token"] not in out
        assert f"/interactions/{payload['id']}/{REDACTED}/callback" in out
    assert quiz.loopback.token not in out
