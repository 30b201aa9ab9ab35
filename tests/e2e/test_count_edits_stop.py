"""End to end: a post Discord will not let the bot edit stops its count edits (issue #31,
defect 9).

A moderator deletes a question post, or takes the bot's access to its channel: every
later click used to send one more edit of the post's count, each refused and logged with
a traceback (24 for 24 clicks). Now the first refusal that can never pass (Unknown
Message 10008, Unknown Channel 10003, Missing Access 50001, Missing Permissions 50013)
stops that post's edits with one warning line; the clicks themselves are still answered
and recorded, and other posts are still edited.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.conftest import CHANNEL_ID, QuizHarness, buttons, callback_message
from tests.e2e.test_bad_input import no_tracebacks
from tests.e2e.test_quiz import count_answers, post_question
from tests.loopback.server import CHANNEL_MESSAGE_ROUTE, LoopbackDiscord, Perm

ALICE = 1_300_000_000_000_031_101
CLICKS = 6


def _deleted(loopback: LoopbackDiscord, message_id: int) -> None:
    loopback.messages.pop(message_id)  # a moderator deleted the post


def _no_access(loopback: LoopbackDiscord, message_id: int) -> None:
    loopback.set_channel_permissions(
        CHANNEL_ID, loopback.bot_user_id, deny=Perm.VIEW_CHANNEL, target_type=1
    )


def _fails(status: int, code: int) -> Callable[[LoopbackDiscord, int], None]:
    def fail(loopback: LoopbackDiscord, message_id: int) -> None:
        body = {"code": code, "message": "refused"}
        loopback.fail_next("PATCH", CHANNEL_MESSAGE_ROUTE, status, body)

    return fail


@pytest.mark.parametrize(
    ("break_post", "code", "why"),
    [
        (_deleted, 10008, "the message was deleted (Discord 404, code 10008)"),
        (_no_access, 50001, "the bot can no longer see the channel (Discord 403, code 50001)"),
        (_fails(403, 50013), 50013,
         "the bot lost its permissions in the channel (Discord 403, code 50013)"),
        (_fails(404, 10003), 10003, "the channel was deleted (Discord 404, code 10003)"),
    ],
)  # fmt: skip
async def test_a_post_that_cannot_be_edited_is_tried_once(
    quiz: QuizHarness,
    caplog: pytest.LogCaptureFixture,
    break_post: Callable[[LoopbackDiscord, int], None],
    code: int,
    why: str,
) -> None:
    alice = quiz.member(ALICE, "alice")
    members = [quiz.member(ALICE + 1 + i, f"m{i}") for i in range(CLICKS)]
    async with quiz.bot() as bot:
        message_id, message = await post_question(quiz, alice)
        first = buttons(message)[0]["custom_id"]
        post_id = int(first.split(":")[2])
        clicks: list[dict[str, Any]] = [
            quiz.loopback.button_click(message_id, first, m) for m in members
        ]
        break_post(quiz.loopback, message_id)
        since = len(quiz.loopback.requests)
        for click in clicks:
            reply = callback_message(await quiz.loopback.interact(click))
            assert reply["embeds"], "the click is answered"
            # Every edit scheduled by now has been sent and its answer handled.
            assert await bot.count_edits.flush(5) == 0
        edits = [
            r
            for r in quiz.loopback.requests[since:]
            if r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE
        ]
        assert [(r.status, r.response.get("code")) for r in edits] == [(edits[0].status, code)]
        assert bot.count_edits.stopped() == {post_id}
        assert count_answers(quiz) == CLICKS

        if break_post is not _no_access:  # (in a channel the bot still sees)
            # Another post is edited as before.
            other_id, other = await post_question(quiz, alice)
            other_click = buttons(other)[0]["custom_id"]
            callback_message(await quiz.click(other_id, other_click, members[0]))
            await bot.count_edits.flush(5)
            edit = quiz.loopback.find("PATCH", CHANNEL_MESSAGE_ROUTE)[-1]
            assert int(edit.params["message_id"]) == other_id and edit.status == 200
    lines = [r for r in caplog.records if r.name == "bot.ui.post_updates"]
    assert [r.getMessage() for r in lines] == [f"post {post_id}: answer count edits stopped: {why}"]
    no_tracebacks(caplog)
    assert all(r.levelno == logging.WARNING for r in lines)
