"""End to end: members suggest questions, moderators review them (issue 27), with the
unmodified discord.py client against the loopback Discord, every body checked against
Discord's OpenAPI description.

A suggestion goes from `/tpquiz suggest`'s modal to the review channel's post, is
accepted there and drawn in a question post whose source credits its author; a rejected
one's reason reaches its author at their next `/tpquiz` command (once) and by DM; the
review buttons refuse a member without Manage Server or the reviewer role; a problem in
the modal is shown with the text kept and the modal reopens prefilled; two servers keep
apart; forget-me takes the author's name off the accepted question.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from tests.e2e.conftest import CHANNEL_ID, GUILD_ID, QuizHarness, buttons, callback_message
from tests.e2e.forged import in_dm, with_custom_id
from tests.e2e.test_guild_bank import _bank
from tests.e2e.test_quiz import post_question
from tests.loopback.server import (
    ALL_PERMISSIONS,
    CHANNEL_MESSAGES_ROUTE,
    FOLLOWUP_ROUTE,
    Perm,
    RecordedRequest,
)
from tests.quiz.test_suggestion_rules import GOOD as RULES_GOOD

ADMIN, ALICE, BOB, CAROL = (1_300_000_000_000_028_000 + i for i in range(1, 5))
REVIEW = 1_300_000_000_000_028_100
ROLE = 1_300_000_000_000_028_200
OTHER_GUILD = 1_300_000_000_000_028_999
EPHEMERAL = 64
#: A moderator's reason as the author is shown it: markdown escaped, the mention broken.
SHOWN_REASON = "Cite a page, \\*\\*please\\*\\* @\u200beveryone"

GOOD = RULES_GOOD.fields()


def _rows(quiz: QuizHarness, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute(sql, args).fetchall()


async def _admin(
    quiz: QuizHarness, member: dict[str, Any], sub: str, guild_id: int = GUILD_ID, **options: Any
) -> RecordedRequest:
    payload = quiz.command(
        member,
        sub,
        options or None,
        command="tpquiz-admin",
        guild_id=guild_id,
        channel_id=guild_id + 1 if guild_id != GUILD_ID else REVIEW,
    )
    return await quiz.loopback.interact(payload)


async def _modal(quiz: QuizHarness, member: dict[str, Any], guild_id: int = GUILD_ID) -> dict:
    channel = guild_id + 1 if guild_id != GUILD_ID else REVIEW
    request = await quiz.loopback.interact(
        quiz.command(member, "suggest", guild_id=guild_id, channel_id=channel)
    )
    assert request.body["type"] == 9, request.body  # a modal
    return request.body["data"]


async def _submit(
    quiz: QuizHarness,
    member: dict[str, Any],
    modal: dict[str, Any],
    values: dict[str, str],
    guild_id: int = GUILD_ID,
) -> RecordedRequest:
    channel = guild_id + 1 if guild_id != GUILD_ID else REVIEW
    payload = quiz.loopback.modal_submit(guild_id, channel, member, modal, values)
    request = await quiz.loopback.interact(payload)
    assert request.body["type"] == 4
    message = callback_message(request)
    assert message["flags"] & EPHEMERAL
    assert message["allowed_mentions"] == {"parse": []}
    return request


async def _review_post(quiz: QuizHarness, since: int) -> RecordedRequest:
    return await quiz.loopback.wait_for(
        lambda r: (
            r.route == CHANNEL_MESSAGES_ROUTE
            and r.method == "POST"
            and r.params.get("channel_id") == str(REVIEW)
        ),
        since=since,
    )


async def _dm(quiz: QuizHarness, user_id: int, since: int) -> RecordedRequest:
    """The bot's next message in its DM with `user_id`."""
    return await quiz.loopback.wait_for(
        lambda r: (
            r.route == CHANNEL_MESSAGES_ROUTE
            and r.method == "POST"
            and r.params.get("channel_id") == str(quiz.loopback.dm_channels.get(user_id))
        ),
        since=since,
    )


async def _setup(quiz: QuizHarness) -> dict[str, Any]:
    quiz.loopback.add_channel(GUILD_ID, REVIEW, name="review")
    quiz.loopback.add_role(GUILD_ID, ROLE, "reviewers")
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    return admin


async def _suggest(
    quiz: QuizHarness, member: dict[str, Any], values: dict[str, str] = GOOD
) -> tuple[RecordedRequest, RecordedRequest]:
    """Suggest `values`; the reply and the review channel's post (made before the reply)."""
    modal = await _modal(quiz, member)
    start = len(quiz.loopback.requests)
    reply = await _submit(quiz, member, modal, values)
    return reply, await _review_post(quiz, start)


async def test_a_suggestion_goes_from_the_modal_to_the_review_post_to_a_credited_question(
    quiz: QuizHarness,
) -> None:
    admin = await _setup(quiz)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        settings = callback_message(
            await _admin(
                quiz, admin, "suggestions-settings", channel=REVIEW, **{"reviewer-role": ROLE}
            )
        )
        assert settings["content"] == f"Review channel: <#{REVIEW}> · Reviewer role: <@&{ROLE}>"

        modal = await _modal(quiz, alice)
        assert modal["custom_id"] == f"tpq:sgm:{GUILD_ID}:new"
        inputs = [c["component"] for c in modal["components"]]
        assert [i["custom_id"] for i in inputs] == [
            "text",
            "right",
            "wrong",
            "explanation",
            "source",
        ]
        assert inputs[2]["placeholder"] == "wrong answer | why it is wrong (one per line)"
        assert all(i["required"] and i["max_length"] <= 4000 for i in inputs)

        reply, post = await _suggest(quiz, alice)
        content = callback_message(reply)["content"]
        assert content.startswith("✅ Your suggestion (#1) is waiting for review."), content
        assert "Your open suggestions: 1/5." in content
        assert post.body["allowed_mentions"] == {"parse": []}
        embed = post.body["embeds"][0]
        assert embed["title"] == "Suggestion #1"
        assert embed["footer"]["text"] == "Suggested by alice · In English"
        assert [f["name"] for f in embed["fields"]][:3] == [
            "✅ Right answer", "❌ Wrong answer 1", "❌ Wrong answer 2"]  # fmt: skip
        labels = [b["label"] for b in buttons(post.body)]
        assert labels == ["Accept", "Edit", "Ask for changes", "Reject"]

        post_id = int(post.response["id"])
        # A second moderator's clicks on the same post, still showing its buttons.
        stale = [quiz.loopback.button_click(post_id, f"tpq:sg:{a}:1", admin) for a in "ar"]
        accepted = await quiz.click(post_id, "tpq:sg:a:1", admin)
        assert accepted.body["type"] == 7
        shown = callback_message(accepted)
        assert shown["embeds"][0]["description"].startswith("✅ Accepted by admin: `suggestion-1`")
        assert shown["components"] == []
        dm = await _dm(quiz, ALICE, accepted.index)
        assert "was accepted" in dm.body["content"]
        for click in stale:
            again = callback_message(await quiz.loopback.interact(click))
            assert again["content"] == "This suggestion was already decided; nothing was changed."

        await _bank(quiz, admin, "settings", draw="own")
        message_id, message = await post_question(quiz, alice, channel_id=REVIEW)
        post_row = int(buttons(message)[0]["custom_id"].split(":")[2])
        assert _rows(quiz, "SELECT question_id FROM posts WHERE id = ?", post_row) == [
            ("suggestion-1@1",)
        ]
        # Alice's next /tpquiz command told her, once.
        notice = await quiz.loopback.wait_for(
            lambda r: r.route == FOLLOWUP_ROUTE and r.method == "POST", since=accepted.index
        )
        assert notice.body["flags"] & EPHEMERAL
        assert "Your suggestion (#1) in **TP study group** was accepted" in notice.body["content"]

        right = next(b["custom_id"] for b in buttons(message) if b["custom_id"].endswith(":0"))
        answered = callback_message(await quiz.click(message_id, right, alice))
        source = next(f for f in answered["embeds"][0]["fields"] if f["name"] == "Source")
        assert source["value"] == "Our reading group, session 3 · suggested by alice"
    assert _rows(quiz, "SELECT credit_user_id, credit_name FROM guild_questions") == [
        (ALICE, "alice")
    ]


async def test_a_rejection_reaches_its_author_once_at_their_next_command(
    quiz: QuizHarness,
) -> None:
    admin = await _setup(quiz)
    bob = quiz.member(BOB, "bob")
    quiz.loopback.dms_closed.add(BOB)
    async with quiz.bot():
        await _submit(quiz, bob, await _modal(quiz, bob), GOOD)  # no review channel set
        listing = await _admin(quiz, admin, "suggestions")
        queue = callback_message(listing)
        assert queue["embeds"][0]["author"]["name"] == "Suggestion 1/1"
        listing_id = int(listing.response["resource"]["message"]["id"])
        opened = await quiz.click(listing_id, "tpq:sg:r:1", admin)
        assert opened.body["type"] == 9
        reason_modal = opened.body["data"]
        assert reason_modal["title"] == "Reject (#1)"
        payload = quiz.loopback.modal_submit(
            GUILD_ID, REVIEW, admin, reason_modal, {"reason": "Cite a page, **please** @everyone"}
        )
        decided = callback_message(await quiz.loopback.interact(payload))
        assert decided["content"] == f"❌ Rejected by admin: {SHOWN_REASON}"
        assert decided["allowed_mentions"] == {"parse": []}

        first = await quiz.loopback.interact(quiz.command(bob, "leaderboard"))
        notice = await quiz.loopback.wait_for(
            lambda r: r.route == FOLLOWUP_ROUTE and r.method == "POST", since=first.index
        )
        assert notice.body["content"] == (
            f"❌ Your suggestion (#1) in **TP study group** was rejected. Reason: {SHOWN_REASON}"
        )
        assert _rows(quiz, "SELECT notified_at IS NOT NULL FROM suggestions") == [(1,)]
        second = await quiz.loopback.interact(quiz.command(bob, "leaderboard"))
        await quiz.loopback.interact(quiz.command(bob, "leaderboard"))
    followups = [r for r in quiz.loopback.requests[second.index :] if r.route == FOLLOWUP_ROUTE]
    assert followups == []
    assert _rows(quiz, "SELECT state, reason FROM suggestions") == [
        ("rejected", "Cite a page, **please** @everyone")
    ]


async def test_review_buttons_refuse_a_member_without_permission_or_role(
    quiz: QuizHarness,
) -> None:
    admin = await _setup(quiz)
    alice = quiz.member(ALICE, "alice")
    carol = quiz.member(CAROL, "carol")
    reviewer = quiz.member(CAROL, "carol", roles=[ROLE])
    async with quiz.bot():
        await _admin(quiz, admin, "suggestions-settings", channel=REVIEW)
        _, post = await _suggest(quiz, alice)
        post_id = int(post.response["id"])
        for action in "aecr":
            refused = callback_message(await quiz.click(post_id, f"tpq:sg:{action}:1", carol))
            assert refused["content"].startswith("Only members with **Manage Server** or")
        listed = callback_message(await _admin(quiz, carol, "suggestions"))
        assert listed["content"].startswith("Only members with **Manage Server** or")
        settings = callback_message(
            await _admin(quiz, carol, "suggestions-settings", channel=REVIEW)
        )
        assert "Manage Server" in settings["content"]
        # A channel the bot cannot post in is refused, and nothing changes.
        quiz.loopback.set_channel_permissions(
            CHANNEL_ID, quiz.loopback.bot_user_id, deny=Perm.SEND_MESSAGES, target_type=1
        )
        refused = callback_message(
            await _admin(quiz, admin, "suggestions-settings", channel=CHANNEL_ID)
        )
        assert "missing the **Send Messages** permission" in refused["content"]
        assert _rows(quiz, "SELECT channel_id FROM suggestion_settings") == [(REVIEW,)]
        assert _rows(quiz, "SELECT state FROM suggestions") == [("open",)]
        # The role, once the server sets it, lets her review: checked at click time.
        await _admin(quiz, admin, "suggestions-settings", **{"reviewer-role": ROLE})
        opened = await quiz.click(post_id, "tpq:sg:c:1", reviewer)
        assert opened.body["type"] == 9
        payload = quiz.loopback.modal_submit(
            GUILD_ID, REVIEW, reviewer, opened.body["data"], {"reason": "Add a second source"}
        )
        await quiz.loopback.interact(payload)
    assert _rows(quiz, "SELECT state, reviewer_id FROM suggestions") == [("changes", CAROL)]


async def test_a_problem_is_shown_with_the_text_kept_and_the_modal_reopens_prefilled(
    quiz: QuizHarness,
) -> None:
    admin = await _setup(quiz)
    alice = quiz.member(ALICE, "alice")
    broken = {**GOOD, "wrong": GOOD["wrong"].replace(" | Each", " Each"), "source": " "}
    async with quiz.bot():
        await _admin(quiz, admin, "suggestions-settings", channel=REVIEW)
        reply = await _submit(quiz, alice, await _modal(quiz, alice), broken)
        message = callback_message(reply)
        assert message["content"].startswith("❌ Your suggestion has 2 problem(s).")
        assert "• **Source**: is empty" in message["content"]
        assert (
            "• **Wrong answers (1-4, one per line)**: line 1 has no `| why it is wrong`"
            in message["content"]
        )
        [edit] = buttons(message)
        assert edit["label"] == "Edit" and edit["custom_id"] == f"tpq:sgd:{GUILD_ID}:1"
        assert _rows(quiz, "SELECT state, wrong_answers FROM suggestions") == [
            ("draft", broken["wrong"])
        ]
        # Edit reopens the modal with everything as typed; so does /tpquiz suggest.
        reply_id = int(reply.response["resource"]["message"]["id"])
        opened = await quiz.click(reply_id, edit["custom_id"], alice)
        assert opened.body["type"] == 9
        modal = opened.body["data"]
        values = {
            c["component"]["custom_id"]: c["component"].get("value") for c in modal["components"]
        }
        assert values["wrong"] == broken["wrong"] and values["text"] == GOOD["text"]
        assert (await _modal(quiz, alice))["custom_id"] == f"tpq:sgm:{GUILD_ID}:1"

        fixed = await _submit(quiz, alice, modal, GOOD)
        assert callback_message(fixed)["content"].startswith("✅ Your suggestion (#1)")
        post = await _review_post(quiz, opened.index)
        assert post.body["embeds"][0]["title"] == "Suggestion #1"
    assert _rows(quiz, "SELECT id, state FROM suggestions") == [(1, "open")]


async def test_member_text_is_plain_and_the_limit_keeps_a_draft(quiz: QuizHarness) -> None:
    admin = await _setup(quiz)
    alice = quiz.member(ALICE, "alice <@1> **x**")
    async with quiz.bot():
        await _admin(quiz, admin, "suggestions-settings", channel=REVIEW)
        loud = {**GOOD, "source": f"Session 3 [click](https://evil.example) @everyone <@&{ROLE}>"}
        _, post = await _suggest(quiz, alice, loud)
        embed = post.body["embeds"][0]
        source = next(f for f in embed["fields"] if f["name"] == "Source")["value"]
        assert (
            source == f"Session 3 \\[click](https://evil.example) @\u200beveryone <@\u200b&{ROLE}>"
        )
        for n in range(2, 6):
            await _suggest(quiz, alice, {**GOOD, "text": GOOD["text"] + f" ({n})"})
        over = await _submit(quiz, alice, await _modal(quiz, alice), GOOD)
        assert callback_message(over)["content"].startswith(
            "You already have 5 open suggestions in this server"
        )
    states = [s for (s,) in _rows(quiz, "SELECT state FROM suggestions ORDER BY id")]
    assert states == ["open"] * 5 + ["draft"]


async def test_two_servers_keep_apart(quiz: QuizHarness) -> None:
    admin = await _setup(quiz)
    quiz.loopback.add_guild(OTHER_GUILD, name="Other", channel_ids=[OTHER_GUILD + 1])
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        await _admin(quiz, admin, "suggestions-settings", channel=REVIEW)
        _, post = await _suggest(quiz, alice)
        other = callback_message(await _admin(quiz, admin, "suggestions", OTHER_GUILD))
        assert other["embeds"][0]["description"] == "No suggestions are waiting for review."
        # A click carrying suggestion 1 in the other server finds nothing there.
        listing = await _admin(quiz, admin, "suggestions")
        listing_id = int(listing.response["resource"]["message"]["id"])
        payload = quiz.loopback.button_click(listing_id, "tpq:sg:a:1", admin)
        payload["guild_id"] = str(OTHER_GUILD)
        forged = with_custom_id(quiz.loopback, payload, "tpq:sg:a:1")
        refused = callback_message(await quiz.loopback.interact(forged))
        assert refused["content"] == "This suggestion no longer exists."
        del post
    assert _rows(quiz, "SELECT guild_id, state FROM suggestions") == [(GUILD_ID, "open")]
    assert _rows(quiz, "SELECT COUNT(*) FROM guild_questions") == [(0,)]


async def test_forget_me_deletes_suggestions_and_the_credit_name(quiz: QuizHarness) -> None:
    admin = await _setup(quiz)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        await _admin(quiz, admin, "suggestions-settings", channel=REVIEW)
        _, post = await _suggest(quiz, alice)
        await quiz.click(int(post.response["id"]), "tpq:sg:a:1", admin)
        _, second = await _suggest(quiz, alice, {**GOOD, "text": GOOD["text"] + " (again)"})
        request = await quiz.loopback.interact(quiz.command(alice, "forget-me"))
        message_id = int(request.response["resource"]["message"]["id"])
        confirmed = await quiz.click(message_id, f"tpq:forget:yes:{GUILD_ID}:{ALICE}", alice)
        assert _rows(quiz, "SELECT COUNT(*) FROM suggestions") == [(0,)]
        # The review posts showed her words and name: they are deleted too.
        for shown in (post, second):
            await quiz.loopback.wait_for(
                lambda r, shown=shown: (
                    r.method == "DELETE" and r.params.get("message_id") == str(shown.response["id"])
                ),
                since=confirmed.index,
            )

        await _bank(quiz, admin, "settings", draw="own")
        message_id, message = await post_question(quiz, admin, channel_id=REVIEW)
        right = next(b["custom_id"] for b in buttons(message) if b["custom_id"].endswith(":0"))
        answered = callback_message(await quiz.click(message_id, right, admin))
        source = next(f for f in answered["embeds"][0]["fields"] if f["name"] == "Source")
        assert source["value"] == "Our reading group, session 3 · suggested by a member"
    assert _rows(quiz, "SELECT credit_user_id, credit_name FROM guild_questions") == [(0, None)]


async def test_a_moderator_edits_and_accepts_and_their_text_is_kept_on_a_problem(
    quiz: QuizHarness,
) -> None:
    admin = await _setup(quiz)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        await _admin(quiz, admin, "suggestions-settings", channel=REVIEW)
        _, post = await _suggest(quiz, alice)
        post_id = int(post.response["id"])
        opened = await quiz.click(post_id, "tpq:sg:e:1", admin)
        assert opened.body["type"] == 9
        modal = opened.body["data"]
        assert modal["title"] == "Edit and accept (#1)"
        prefilled = {
            c["component"]["custom_id"]: c["component"]["value"] for c in modal["components"]
        }
        assert prefilled == GOOD

        bad = {**GOOD, "wrong": "Across two nodes"}
        payload = quiz.loopback.modal_submit(GUILD_ID, REVIEW, admin, modal, bad)
        problems = callback_message(await quiz.loopback.interact(payload))["content"]
        assert problems.startswith("❌ The edited text has 1 problem(s); nothing was accepted.")
        assert "```\nAcross two nodes\n```" in problems  # what they typed, kept
        assert _rows(quiz, "SELECT state FROM suggestions") == [("open",)]

        edited = {**GOOD, "source": "Megatron-LM paper, section 3"}
        payload = quiz.loopback.modal_submit(GUILD_ID, REVIEW, admin, modal, edited)
        done = await quiz.loopback.interact(payload)
        assert callback_message(done)["content"] == "✅ Accepted by admin: `suggestion-1`"
        edit = await quiz.loopback.wait_for(
            lambda r: (
                r.route == "/channels/{channel_id}/messages/{message_id}"
                and r.method == "PATCH"
                and r.params.get("message_id") == str(post_id)
            ),
            since=done.index,
        )
        assert edit.body["components"] == []
        assert edit.body["embeds"][0]["description"].startswith("✅ Accepted by admin")
    assert _rows(quiz, "SELECT state, source FROM suggestions") == [
        ("accepted", "Megatron-LM paper, section 3")
    ]
    [(body,)] = _rows(quiz, "SELECT body FROM guild_questions")
    assert '"source":"Megatron-LM paper, section 3"' in body


async def test_asked_for_changes_the_author_edits_from_the_dm_and_resubmits(
    quiz: QuizHarness,
) -> None:
    admin = await _setup(quiz)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        await _admin(quiz, admin, "suggestions-settings", channel=REVIEW)
        _, post = await _suggest(quiz, alice)
        opened = await quiz.click(int(post.response["id"]), "tpq:sg:c:1", admin)
        payload = quiz.loopback.modal_submit(
            GUILD_ID, REVIEW, admin, opened.body["data"], {"reason": "Name the page"}
        )
        asked = await quiz.loopback.interact(payload)
        dm = await _dm(quiz, ALICE, asked.index)
        assert dm.body["content"].startswith("✏️ The moderators ask for changes to your")
        assert "Name the page" in dm.body["content"]
        [edit] = buttons(dm.body)
        assert edit["custom_id"] == f"tpq:sgd:{GUILD_ID}:1"

        click = quiz.loopback.dm_button_click(int(dm.response["id"]), edit["custom_id"], ALICE)
        opened = await quiz.loopback.interact(click)
        assert opened.body["type"] == 9
        modal = opened.body["data"]
        assert modal["custom_id"] == f"tpq:sgm:{GUILD_ID}:1"
        fixed = {**GOOD, "source": "Our reading group, session 3, page 12"}
        submit = in_dm(
            quiz.loopback, quiz.loopback.modal_submit(GUILD_ID, REVIEW, alice, modal, fixed)
        )
        sent = callback_message(await quiz.loopback.interact(submit))
        assert sent["content"].startswith("✅ Your suggestion (#1) is waiting for review.")
        again = await _review_post(quiz, asked.index + 1)
        fields = {f["name"]: f["value"] for f in again.body["embeds"][0]["fields"]}
        assert fields["Source"] == "Our reading group, session 3, page 12"
        assert "only the right choice repeats words of the stem" in fields["⚠️"]  # a warning
        # The same modal sent twice: the second finds it sent already, and shows the text.
        twice = callback_message(await quiz.loopback.interact(
            in_dm(quiz.loopback, quiz.loopback.modal_submit(GUILD_ID, REVIEW, alice, modal, fixed))
        ))  # fmt: skip
        assert twice["content"].startswith("This suggestion can no longer be edited")
        assert "```\nOur reading group, session 3, page 12\n```" in twice["content"]
    assert _rows(quiz, "SELECT id, state, author_name FROM suggestions") == [(1, "open", "alice")]


async def test_my_data_holds_the_suggestions_and_the_modal_speaks_turkish(
    quiz: QuizHarness,
) -> None:
    await _setup(quiz)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        request = await quiz.loopback.interact(
            quiz.command(alice, "suggest", locale="tr", channel_id=REVIEW)
        )
        modal = request.body["data"]
        assert modal["title"] == "Bir soru öner"
        labels = [c["label"] for c in modal["components"]]
        assert labels[2] == "Yanlış cevaplar (1-4, her satıra bir)"
        await _submit(quiz, alice, modal, GOOD)
        request = await quiz.loopback.interact(quiz.command(alice, "my-data"))
    data = json.loads(
        quiz.loopback.uploads[int(request.response["resource"]["message"]["attachments"][0]["id"])]
    )
    [row] = data["suggestions"]
    # Submitted from an English client: the question is written in English.
    assert (row["state"], row["text"], row["language"]) == ("open", GOOD["text"], "en")
    assert "answer | why it is wrong" in data["_about"]["suggestions"]["wrong_answers"]


async def test_the_commands_have_turkish_names(quiz: QuizHarness) -> None:
    async with quiz.bot():
        [put] = quiz.loopback.find("PUT", "/applications/{application_id}/commands")
    groups = {c["name"]: c for c in put.body}
    admin = {o["name"]: o for o in groups["tpquiz-admin"]["options"]}
    assert admin["suggestions"]["name_localizations"]["tr"] == "öneriler"
    settings = admin["suggestions-settings"]
    assert settings["name_localizations"]["tr"] == "öneri-ayarları"
    names = {o["name"]: o["name_localizations"]["tr"] for o in settings["options"]}
    assert names == {"channel": "kanal", "reviewer-role": "inceleyici-rol", "off": "kapat"}
    member = {o["name"]: o for o in groups["tpquiz"]["options"]}
    assert member["suggest"]["description_localizations"]["tr"] == "Bu sunucu için bir soru öner"


async def test_forget_me_between_the_acceptance_and_the_store_leaves_no_name(
    quiz: QuizHarness,
) -> None:
    """The author's forget-me lands after a moderator's Accept decided the suggestion but
    before its question was stored: the question stays, credited to "a member"."""
    await _setup(quiz)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot() as bot:
        await _submit(quiz, alice, await _modal(quiz, alice), GOOD)
        [(sid,)] = _rows(quiz, "SELECT id FROM suggestions WHERE user_id = ?", ALICE)
        put = bot.storage.guild_bank.put

        async def forgotten_first(*args: Any, **kwargs: Any) -> Any:
            await bot.storage.privacy.forget_member(GUILD_ID, ALICE)
            return await put(*args, **kwargs)

        bot.storage.guild_bank.put = forgotten_first  # type: ignore[method-assign]
        try:
            await bot.suggestions.accept(GUILD_ID, sid, ADMIN)
        except Exception as exc:  # the suggestion is gone: told as unknown
            assert getattr(exc, "key", None) == "suggestion_unknown", exc
        else:
            raise AssertionError("accepting a forgotten suggestion reported success")
        finally:
            bot.storage.guild_bank.put = put  # type: ignore[method-assign]
    assert _rows(
        quiz, "SELECT credit_user_id, credit_name FROM guild_questions WHERE guild_id = ?", GUILD_ID
    ) == [(0, None)]
