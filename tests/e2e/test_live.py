"""End to end: quiz night (`/tpquiz live`, issue 26) on the loopback Discord.

The bot's clock stands still; the test moves it and nudges the session's task
(`bot.live.nudge`), so a deadline passes when the test says, never by waiting. Every
request body is checked against Discord's OpenAPI description by the loopback.
"""

from __future__ import annotations

import asyncio
import csv
import io
import sqlite3
from typing import Any

from bot.runtime.bot import TPQuizBot
from tests.e2e.conftest import (
    CHANNEL_ID,
    GUILD_ID,
    QuizHarness,
    buttons,
    callback_message,
    created_message_id,
)
from tests.e2e.forged import with_custom_id
from tests.loopback.server import CHANNEL_MESSAGE_ROUTE, CHANNEL_MESSAGES_ROUTE, ORIGINAL_ROUTE

EPHEMERAL = 64
ALICE, BOB, CAROL = 1_300_000_000_000_026_001, 1_300_000_000_000_026_002, 1_300_000_000_000_026_003
CHANNEL_2 = CHANNEL_ID + 26


def rows(quiz: QuizHarness, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute(sql, args).fetchall()


async def open_lobby(
    quiz: QuizHarness, host: dict[str, Any], channel_id: int = CHANNEL_ID
) -> tuple[int, int]:
    """`/tpquiz live questions:3 seconds:20`: (session id, lobby message id)."""
    options = {"questions": 3, "seconds": 20}
    request = await quiz.loopback.interact(
        quiz.command(host, "live", options, channel_id=channel_id)
    )
    lobby = callback_message(request)
    assert lobby["embeds"][0]["title"] == "Live quiz"
    ids = [b["custom_id"] for b in buttons(lobby)]
    assert [i.split(":")[3] for i in ids] == ["join", "start", "cancel"]
    return int(ids[0].split(":")[2]), created_message_id(request)


async def next_question(
    quiz: QuizHarness, since: int, channel_id: int = CHANNEL_ID
) -> dict[str, Any]:
    """The next question message the bot posts in the channel (as the loopback stored it)."""
    posted = await quiz.loopback.wait_for(
        lambda r: (
            r.method == "POST"
            and r.route == CHANNEL_MESSAGES_ROUTE
            and r.params["channel_id"] == str(channel_id)
            and r.body["embeds"][0]["title"].startswith("Question")
        ),  # fmt: skip
        since=since,
    )
    return dict(posted.response)


def choice_ids(message: dict[str, Any]) -> list[str]:
    return [b["custom_id"] for b in buttons(message) if b["custom_id"].startswith("tpq:lv:")]


def key_of(quiz: QuizHarness, bot: TPQuizBot, message: dict[str, Any]) -> tuple[str, str]:
    """(custom_id of the right answer, of a wrong one) on a question message."""
    ids = choice_ids(message)
    _, _, sid, pos, _ = ids[0].split(":")
    ((qid,),) = rows(
        quiz,
        "SELECT p.question_id FROM live_questions AS q JOIN posts AS p ON p.id = q.post_id"
        " WHERE q.session_id = ? AND q.position = ?",
        int(sid),
        int(pos),
    )
    right = quiz.bank[qid].correct_index
    return (
        next(i for i in ids if i.endswith(f":{right}")),
        next(i for i in ids if not i.endswith(f":{right}")),
    )


async def click(
    quiz: QuizHarness, message: dict[str, Any], custom_id: str, member: dict[str, Any]
) -> dict[str, Any]:
    request = await quiz.click(int(message["id"]), custom_id, member)
    return callback_message(request)


def host_id(message: dict[str, Any], action: str) -> str:
    return next(b["custom_id"] for b in buttons(message) if b["custom_id"].endswith(f":{action}"))


async def test_a_whole_session_with_three_members(quiz: QuizHarness) -> None:
    alice, bob, carol = (
        quiz.member(u, n) for u, n in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    )
    async with quiz.bot() as bot:
        sid, lobby_id = await open_lobby(quiz, alice)
        lobby = quiz.loopback.messages[lobby_id]
        for member in (bob, carol):
            joined = await click(quiz, lobby, f"tpq:lh:{sid}:join", member)
            assert joined["content"] == "You joined." and joined["flags"] & EPHEMERAL
        # Start is the host's: refused to Bob, politely, and nothing changes.
        refused = await click(quiz, lobby, f"tpq:lh:{sid}:start", bob)
        assert "Only the host" in refused["content"]
        assert rows(quiz, "SELECT status FROM live_sessions") == [("lobby",)]
        # A second session in the same channel: a link to the running one.
        second = callback_message(await quiz.loopback.interact(quiz.command(bob, "live")))
        assert f"/{GUILD_ID}/{CHANNEL_ID}/{lobby_id}" in second["content"]
        assert second["flags"] & EPHEMERAL

        since = len(quiz.loopback.requests)
        await click(quiz, lobby, f"tpq:lh:{sid}:start", alice)
        q1 = await next_question(quiz, since)
        assert q1["embeds"][0]["title"] == "Question 1/3"
        assert "<t:" in q1["embeds"][0]["description"]  # the countdown, a relative timestamp
        right, wrong = key_of(quiz, bot, q1)
        # Bob changes his answer; the last one counts. Alice joins by answering.
        first = await click(quiz, q1, wrong, bob)
        assert first["content"].startswith("Locked in: ") and first["flags"] & EPHEMERAL
        await click(quiz, q1, right, bob)
        await click(quiz, q1, right, alice)
        since = len(quiz.loopback.requests)
        await click(quiz, q1, wrong, carol)  # everyone answered: the reveal comes at once
        reveal = await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE
            and r.params["message_id"] == q1["id"],
            since=since,
        )  # fmt: skip
        embed = reveal.body["embeds"][0]
        assert "✅" in embed["description"] and "`" in embed["description"]
        assert all(b["disabled"] for b in buttons(reveal.body))
        verdicts = [
            await quiz.loopback.wait_for(
                lambda r, token=token: (
                    r.method == "PATCH"
                    and r.route == ORIGINAL_ROUTE
                    and r.params["webhook_token"] == token
                ),
                since=since,
            )  # fmt: skip
            for token in _tokens(quiz, q1, (alice, bob, carol))
        ]
        titles = [v.body["embeds"][0]["title"] for v in verdicts]
        assert titles[0].startswith("Right!") and titles[1].startswith("Right!")
        assert titles[2].startswith("Wrong")
        top = await quiz.loopback.wait_for(
            lambda r: r.method == "POST" and r.route == CHANNEL_MESSAGES_ROUTE
            and r.body["embeds"][0]["title"] == "Top 5",
            since=since,
        )  # fmt: skip
        assert "bob" in top.body["embeds"][0]["description"]
        # Carol answers late: told so, nothing changes.
        late = await click(quiz, q1, right, carol)
        assert late["content"].startswith("Too late")
        assert rows(quiz, "SELECT choice_index FROM answers WHERE user_id = ?", CAROL) == [
            (int(wrong.split(":")[4]),)
        ]
        # Real answers: the leaderboard counts Bob's and Alice's points.
        assert sorted(rows(quiz, "SELECT user_id, points FROM members")) == [
            (ALICE, 1), (BOB, 1), (CAROL, 0)
        ]  # fmt: skip

        # Question 2: host controls; Bob may not press them.
        since = len(quiz.loopback.requests)
        quiz.clock.advance(seconds=5)
        bot.live.nudge(sid)
        q2 = await next_question(quiz, since)
        assert q2["embeds"][0]["title"] == "Question 2/3"
        no = await click(quiz, q2, host_id(q2, "reveal"), bob)
        assert "Only the host" in no["content"]
        for action, shown in (("pause", "Paused"), ("resume", "Time is up <t:")):
            since = len(quiz.loopback.requests)
            assert (await click(quiz, q2, host_id(q2, action), alice))["content"] == "Done."
            edit = await quiz.loopback.wait_for(
                lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE
                and r.params["message_id"] == q2["id"],
                since=since,
            )  # fmt: skip
            assert shown in edit.body["embeds"][0]["description"]
        right2, _ = key_of(quiz, bot, q2)
        await click(quiz, q2, right2, carol)
        since = len(quiz.loopback.requests)
        await click(quiz, q2, host_id(q2, "reveal"), alice)
        await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE
            and r.params["message_id"] == q2["id"],
            since=since,
        )  # fmt: skip

        # Question 3: nobody answers; the deadline passes; then the podium.
        since = len(quiz.loopback.requests)
        quiz.clock.advance(seconds=5)
        bot.live.nudge(sid)
        q3 = await next_question(quiz, since)
        since = len(quiz.loopback.requests)
        quiz.clock.advance(seconds=21)
        bot.live.nudge(sid)
        await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE
            and r.params["message_id"] == q3["id"],
            since=since,
        )  # fmt: skip
        quiz.clock.advance(seconds=5)
        bot.live.nudge(sid)
        podium = await quiz.loopback.wait_for(
            lambda r: r.method == "POST" and r.route == CHANNEL_MESSAGES_ROUTE
            and r.body["embeds"][0]["title"] == "Podium",
            since=since,
        )  # fmt: skip
        text = podium.body["embeds"][0]["description"]
        # Bob, Alice and Carol each got one right; the tie goes to the least total time.
        assert text.count("🥇") == 1 and all(n in text for n in ("alice", "bob", "carol"))
        report = await quiz.loopback.wait_for(
            lambda r: r.method == "POST" and len(r.files) == 2, since=since
        )
        csv_file = next(f for f in report.files if f.filename and f.filename.endswith(".csv"))
        table = list(csv.DictReader(io.StringIO(csv_file.data.decode())))
        assert {r["player"] for r in table} == {"alice", "bob", "carol"}
        assert len(table) == 9  # 3 players x 3 questions
        bob_first = next(r for r in table if r["player"] == "bob" and r["question"] == "1")
        assert bob_first["right"] == "1" and float(bob_first["seconds"]) >= 0
        png = next(f for f in report.files if f.filename and f.filename.endswith(".png"))
        assert png.data.startswith(b"\x89PNG")
        assert rows(quiz, "SELECT status FROM live_sessions") == [("ended",)]
        # A button of the ended session: one sentence, nothing changes.
        stale = await click(quiz, q3, choice_ids(q3)[0], bob)
        assert stale["content"] == "This live quiz has ended."


def _tokens(
    quiz: QuizHarness, message: dict[str, Any], members: tuple[dict[str, Any], ...]
) -> list[str]:
    """Each member's latest interaction token on `message` (their latest lock-in)."""
    found = {}
    for token, record in quiz.loopback.interactions.items():
        payload = record.payload
        if payload.get("message", {}).get("id") == message["id"]:
            found[payload["member"]["user"]["id"]] = token
    return [found[m["user"]["id"]] for m in members]


async def test_restart_mid_question_keeps_locked_in_choices(quiz: QuizHarness) -> None:
    alice, bob, carol = (
        quiz.member(u, n) for u, n in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    )
    async with quiz.bot() as bot:
        sid, lobby_id = await open_lobby(quiz, alice)
        lobby = quiz.loopback.messages[lobby_id]
        await click(quiz, lobby, f"tpq:lh:{sid}:join", carol)
        since = len(quiz.loopback.requests)
        await click(quiz, lobby, f"tpq:lh:{sid}:start", alice)
        q1 = await next_question(quiz, since)
        right, _ = key_of(quiz, bot, q1)
        await click(quiz, q1, right, bob)
    # The bot is down while the deadline passes; started again, it reveals at once.
    quiz.clock.advance(seconds=30)
    since = len(quiz.loopback.requests)
    async with quiz.bot():
        await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE
            and r.params["message_id"] == q1["id"],
            since=since,
        )  # fmt: skip
        assert rows(quiz, "SELECT user_id, choice_index FROM answers") == [
            (BOB, int(right.split(":")[4]))
        ]


async def test_two_sessions_in_two_channels_and_forged_buttons(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    quiz.loopback.add_channel(GUILD_ID, CHANNEL_2)
    async with quiz.bot():
        first, lobby_1 = await open_lobby(quiz, alice)
        second, lobby_2 = await open_lobby(quiz, bob, CHANNEL_2)
        assert first != second
        since = len(quiz.loopback.requests)
        for sid, lobby_id, host in ((first, lobby_1, alice), (second, lobby_2, bob)):
            await click(quiz, quiz.loopback.messages[lobby_id], f"tpq:lh:{sid}:start", host)
        await next_question(quiz, since)
        await next_question(quiz, since, CHANNEL_2)
        lobby = quiz.loopback.messages[lobby_1]
        payload = quiz.loopback.button_click(lobby_1, f"tpq:lh:{first}:join", bob)
        for forged in ("tpq:lv:abc:0:0", "tpq:lv:1:77777:0", "tpq:lh:99999:join", "tpq:lh:1:boom"):
            request = await quiz.loopback.interact(with_custom_id(quiz.loopback, payload, forged))
            message = callback_message(request)
            assert message["flags"] & EPHEMERAL
            assert message["content"] in (
                "I do not know this live quiz.",
                "That choice is not valid.",
            )
        assert lobby["id"] == str(lobby_1)
        assert rows(quiz, "SELECT COUNT(*) FROM live_choices") == [(0,)]


async def test_turkish_player_and_a_channel_the_bot_cannot_post_in(quiz: QuizHarness) -> None:
    """A Turkish member reads their private replies in Turkish in an English server; a
    channel where the bot may no longer post ends the session cleanly (no traceback)."""
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot() as bot:
        sid, lobby_id = await open_lobby(quiz, alice)
        lobby = quiz.loopback.messages[lobby_id]
        request = await quiz.click(lobby_id, f"tpq:lh:{sid}:join", bob, locale="tr")
        assert callback_message(request)["content"] == "Katıldın."
        since = len(quiz.loopback.requests)
        await click(quiz, lobby, f"tpq:lh:{sid}:start", alice)
        q1 = await next_question(quiz, since)
        right, _ = key_of(quiz, bot, q1)
        await click(quiz, q1, right, alice)  # joins by answering: not waited for on q1
        since = len(quiz.loopback.requests)
        request = await quiz.click(int(q1["id"]), right, bob, locale="tr")  # all answered
        assert callback_message(request)["content"].startswith("Kilitlendi: ")
        verdict = await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and r.route == ORIGINAL_ROUTE
            and r.params["webhook_token"] == request.params["interaction_token"],
            since=since,
        )  # fmt: skip
        assert verdict.body["embeds"][0]["title"].startswith("Doğru!")
        # The next question cannot be posted (permissions taken away): the session ends.
        quiz.loopback.fail_next(
            "POST", CHANNEL_MESSAGES_ROUTE, 403, {"code": 50013, "message": "Missing Permissions"}
        )
        quiz.clock.advance(seconds=5)
        bot.live.nudge(sid)
        await quiz.loopback.wait_for(
            lambda r: r.method == "POST" and r.route == CHANNEL_MESSAGES_ROUTE and r.status == 403,
            since=since,
        )
        task = bot.live.tasks.get(sid)
        if task is not None:  # the session's task ends with the session
            await asyncio.wait_for(asyncio.shield(task), 5)
        assert rows(quiz, "SELECT status, end_reason FROM live_sessions") == [
            ("ended", "channel_gone")
        ]


async def test_the_host_cancels_in_the_lobby(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot():
        sid, lobby_id = await open_lobby(quiz, alice)
        lobby = quiz.loopback.messages[lobby_id]
        await click(quiz, lobby, f"tpq:lh:{sid}:join", bob)
        assert "Only the host" in (await click(quiz, lobby, f"tpq:lh:{sid}:cancel", bob))["content"]
        since = len(quiz.loopback.requests)
        assert (await click(quiz, lobby, f"tpq:lh:{sid}:cancel", alice))["content"] == "Done."
        edit = await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE
            and r.params["message_id"] == str(lobby_id),
            since=since,
        )  # fmt: skip
        assert all(b["disabled"] for b in buttons(edit.body))
        said = await quiz.loopback.wait_for(
            lambda r: r.method == "POST" and r.route == CHANNEL_MESSAGES_ROUTE, since=since
        )
        assert said.body["embeds"][0]["description"] == "The quiz was cancelled."
        assert rows(quiz, "SELECT status, end_reason FROM live_sessions") == [("ended", "cancel")]
        # The channel is free again.
        await open_lobby(quiz, bob)


async def test_the_host_ends_during_a_question(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot() as bot:
        sid, lobby_id = await open_lobby(quiz, alice)
        lobby = quiz.loopback.messages[lobby_id]
        await click(quiz, lobby, f"tpq:lh:{sid}:join", bob)
        since = len(quiz.loopback.requests)
        await click(quiz, lobby, f"tpq:lh:{sid}:start", alice)
        q1 = await next_question(quiz, since)
        right, _ = key_of(quiz, bot, q1)
        await click(quiz, q1, right, bob)
        since = len(quiz.loopback.requests)
        assert (await click(quiz, q1, host_id(q1, "end"), alice))["content"] == "Done."
        edit = await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE
            and r.params["message_id"] == q1["id"],
            since=since,
        )  # fmt: skip
        assert all(b["disabled"] for b in buttons(edit.body))
        assert rows(quiz, "SELECT status, end_reason FROM live_sessions") == [("ended", "end")]
        assert rows(quiz, "SELECT COUNT(*) FROM answers") == [(0,)]  # the open one is not scored
        late = await click(quiz, q1, right, bob)
        assert late["content"] == "This live quiz has ended."
