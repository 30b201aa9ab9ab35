"""End to end: INTERACTION_CREATE events Discord itself never sends (issue #31, defect 16).

A modal submit without `components` used to end the process (a KeyError in discord.py's
gateway parser ended `Client.connect`); an option value of the wrong type for what its
`type` says (a member id "abc", a number "abc") or an autocomplete with no focused option
logged a traceback and got no reply. Each is now one warning line: the command gets one
ephemeral sentence, the autocomplete an empty list, and after the modal the bot is
connected again and answers the next command.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import CHANNEL_ID, GUILD_ID, QuizHarness, callback_message
from tests.e2e.test_bad_input import no_tracebacks
from tests.loopback.server import ALL_PERMISSIONS

ADMIN = 1_300_000_000_000_031_201
EPHEMERAL = 64
UNKNOWN_COMMAND = (
    "This command does not exist in this version or has changed. Reload Discord (Ctrl+R)"
    " and try again."
)


def guard_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "bot.ui.gateway_guard"]


async def test_a_modal_submit_without_components_leaves_the_bot_up(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    modal = {"custom_id": "tpq:rpm:p:1", "title": "Report", "components": []}
    broken = quiz.loopback.modal_submit(GUILD_ID, CHANNEL_ID, admin, modal, {})
    del broken["data"]["components"]
    async with quiz.bot() as bot:
        await quiz.loopback.dispatch("INTERACTION_CREATE", broken)
        # The bot closes the connection it could not read and starts a new session.
        await quiz.loopback.wait_connected(identifies=2)
        assert not bot.is_closed()
        listing = callback_message(
            await quiz.loopback.interact(quiz.command(admin, "reports", command="tpquiz-admin"))
        )
        assert listing["embeds"][0]["description"] == "No open reports."
    assert guard_lines(caplog) == [
        "the gateway sent an event discord.py could not read (KeyError: \"'components'\");"
        " connecting again"
    ]
    no_tracebacks(caplog)


@pytest.mark.parametrize(
    ("command", "sub", "option", "why"),
    [
        ("tpquiz", "stats", {"name": "member", "type": 6, "value": "abc"},
         "ValueError: invalid literal for int() with base 10: 'abc'"),
        ("tpquiz-admin", "reports", {"name": "page", "type": 10, "value": "abc"},
         "ValueError: could not convert string to float: 'abc'"),
        ("tpquiz-admin", "questions", {"name": "page", "type": 10, "value": [1]},
         "TypeError: float() argument must be a string or a real number, not 'list'"),
    ],
)  # fmt: skip
async def test_an_option_value_of_the_wrong_type_is_refused_in_one_line(
    quiz: QuizHarness,
    caplog: pytest.LogCaptureFixture,
    command: str,
    sub: str,
    option: dict[str, Any],
    why: str,
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        payload = quiz.command(admin, sub, [option], command=command)
        refused = callback_message(await quiz.loopback.interact(payload))
        assert refused["flags"] & EPHEMERAL
        assert refused["content"] == UNKNOWN_COMMAND
    assert guard_lines(caplog) == [
        f"ignored an unreadable application_command interaction {payload['id']} from user"
        f" {ADMIN} in guild {GUILD_ID}: {why!r}"
    ]
    no_tracebacks(caplog)


async def test_an_autocomplete_with_no_focused_option_gets_no_choices(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        payload = quiz.loopback.autocomplete(
            GUILD_ID, CHANNEL_ID, admin, "tpquiz-admin", "question", {"id": "attention"}, "id"
        )
        for option in payload["data"]["options"][0]["options"]:
            option.pop("focused", None)
        answered = await quiz.loopback.interact(payload)
        assert answered.body == {"type": 8, "data": {"choices": []}}
    assert guard_lines(caplog) == [
        f"ignored an unreadable autocomplete interaction {payload['id']} from user {ADMIN}"
        f" in guild {GUILD_ID}: 'an autocomplete with no focused option'"
    ]
    no_tracebacks(caplog)
