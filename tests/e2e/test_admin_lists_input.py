"""End to end: the admin listings with nothing to list, and with forged `page` options
(issue #31, defects 5 and 7).

`/tpquiz-admin reports` with no open report and `/tpquiz-admin questions` with one page
of flagged questions send no buttons: they used to pass `view=None` on, which discord.py
took for a view (a traceback after every immediate reply, and a TypeError before a
deferred one: the moderator got no answer at all). The `page` option is 1 to 10,000; a
forged 0, -1, 10001, 2**70, a string or a fraction used to reach the database (wrong
pages, OverflowError, TypeError and "Something went wrong").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.e2e.conftest import GUILD_ID, QuizHarness, callback_message
from tests.e2e.test_bad_input import no_tracebacks, refusals
from tests.loopback.server import ALL_PERMISSIONS, FOLLOWUP_ROUTE

ADMIN, ALICE = 1_300_000_000_000_031_001, 1_300_000_000_000_031_002
EPHEMERAL = 64
NO_REPORTS = "No open reports."
NO_FLAGGED = "No flagged questions yet (a question is flagged after 30 first answers at the least)."
NOT_VALID = "The value sent for **page** is not valid; pick one from the list."


async def _admin(quiz: QuizHarness, member: dict[str, Any], sub: str, **kwargs: Any) -> Any:
    return await quiz.loopback.interact(quiz.command(member, sub, command="tpquiz-admin", **kwargs))


def _gate(work: Callable[..., Awaitable[Any]], gate: asyncio.Event) -> Callable[..., Any]:
    """`work`, once `gate` is set: the listing takes longer than Discord's window."""

    async def gated(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await work(*args, **kwargs)

    return gated


@pytest.mark.parametrize(
    ("sub", "service", "method", "empty"),
    [("reports", "reports", "open_reports", NO_REPORTS),
     ("questions", "items", "server_stats", NO_FLAGGED)],
)  # fmt: skip
async def test_an_empty_listing_is_answered_at_once_and_after_a_deferral(
    quiz: QuizHarness,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    sub: str,
    service: str,
    method: str,
    empty: str,
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot() as bot:
        caplog.set_level(logging.INFO)
        at_once = callback_message(await _admin(quiz, admin, sub))
        assert at_once["flags"] & EPHEMERAL
        assert at_once["embeds"][0]["description"] == empty
        assert not at_once.get("components")

        # The database is slow: the bot defers (after 2 s), and answers with a followup.
        gate = asyncio.Event()
        target = getattr(bot, service)
        monkeypatch.setattr(target, method, _gate(getattr(target, method), gate))
        deferred = await _admin(quiz, admin, sub)
        assert deferred.body["type"] == 5 and deferred.body["data"]["flags"] & EPHEMERAL
        gate.set()
        followup = await quiz.loopback.wait_for(
            lambda r: r.route == FOLLOWUP_ROUTE and r.method == "POST", since=deferred.index
        )
        assert followup.status == 200
        assert followup.body["flags"] & EPHEMERAL
        assert followup.body["embeds"][0]["description"] == empty
        assert not followup.body.get("components")
    no_tracebacks(caplog)


def _range(value: object) -> str:
    return f"**page** must be a whole number from 1 to 10000; this one is {value}. Nothing was changed."


FORGED_PAGES = [
    (0, _range(0)),
    (-1, _range("\\-1")),  # escaped markdown: Discord shows -1
    (10_001, _range(10001)),
    (2**70, _range(2**70)),
    ("2", NOT_VALID),
    (1.5, NOT_VALID),
    (True, NOT_VALID),
    (None, NOT_VALID),
]


@pytest.mark.parametrize("sub", ["reports", "questions"])
async def test_a_forged_page_is_refused_in_one_sentence(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture, sub: str
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        caplog.set_level(logging.INFO)
        for value, wanted in FORGED_PAGES:
            page = [{"name": "page", "type": 4, "value": value}]
            refused = callback_message(await _admin(quiz, admin, sub, options=page))
            assert refused["flags"] & EPHEMERAL and not refused.get("embeds"), value
            assert refused["content"] == wanted, value
        tr = callback_message(
            await _admin(quiz, admin, sub, options=[{"name": "page", "type": 4, "value": 0}],
                         locale="tr")
        )  # fmt: skip
        assert tr["content"].startswith("**sayfa** 1 ile 10000 arasında bir tam sayı olmalı")
        # The bounds themselves are pages.
        for value in (1, 10_000):
            page = [{"name": "page", "type": 4, "value": value}]
            listing = callback_message(await _admin(quiz, admin, sub, options=page))
            assert listing["embeds"], value
        # A member without Manage Server hears that first, whatever the page.
        alice = quiz.member(ALICE, "alice")
        page = [{"name": "page", "type": 4, "value": -1}]
        refused = callback_message(await _admin(quiz, alice, sub, options=page))
        assert "Manage Server" in refused["content"]
    logged = [m for m in refusals(caplog) if m.startswith("refused /tpquiz-admin")]
    assert len(logged) == len(FORGED_PAGES) + 1
    assert logged[0] == (
        f"refused /tpquiz-admin {sub} from user {ADMIN} in guild {GUILD_ID}: option page=0"
        " (option_range)"
    )
    no_tracebacks(caplog)


async def test_a_forged_question_id_of_the_wrong_type_is_refused(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        for value in (5, None, ["basics-01"]):
            forged = [{"name": "id", "type": 3, "value": value}]
            refused = callback_message(await _admin(quiz, admin, "question", options=forged))
            assert refused["content"] == (
                "The value sent for **id** is not valid; pick one from the list."
            ), value
        long = [{"name": "id", "type": 3, "value": "x" * 101}]
        refused = callback_message(await _admin(quiz, admin, "question", options=long))
        assert refused["content"].startswith("**id** must be 1 to 100 characters long")
    no_tracebacks(caplog)
