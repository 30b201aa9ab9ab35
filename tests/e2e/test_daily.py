"""End to end: daily question posts and `/tpquiz-admin`, against the loopback Discord.

The bot's clock is injected (`FakeClock`), so a test moves time and calls the daily
cog's `run_due(now)` itself; nothing sleeps to synchronise. Waiting is done on the
loopback's recorded requests (`wait_for`) or on the cog's first-tick event. Every body the
bot sends is checked against Discord's OpenAPI description by the `loopback` fixture.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from datetime import UTC, datetime
from typing import Any, cast

from bot.runtime.bot import TPQuizBot
from bot.ui.poster import SENDS_PER_SECOND
from cogs.daily import DailyCog
from tests.e2e.conftest import (
    CHANNEL_ID,
    GUILD_ID,
    QuizHarness,
    buttons,
    callback_message,
)
from tests.loopback.server import (
    ALL_PERMISSIONS,
    CHANNEL_MESSAGE_ROUTE,
    CHANNEL_MESSAGES_ROUTE,
    Perm,
    RecordedRequest,
)

ADMIN, ALICE, BOB = 1_300_000_000_000_002_001, 1_300_000_000_000_002_002, 1_300_000_000_000_002_003
DAILY_CHANNEL = GUILD_ID + 50
GLOBAL_COMMANDS = "/applications/{application_id}/commands"
EPHEMERAL = 64
MANAGE_GUILD = 1 << 5
ADMIN_COMMAND = "tpquiz-admin"

log = logging.getLogger(__name__)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def stamp(moment: datetime) -> int:
    return int(moment.timestamp())


def field_map(embed: dict[str, Any]) -> dict[str, str]:
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


def daily_cog(bot: TPQuizBot) -> DailyCog:
    # Not isinstance: load_extension executes cogs/daily.py afresh for every bot started.
    cog = bot.get_cog("DailyCog")
    assert cog is not None and type(cog).__name__ == "DailyCog"
    return cast(DailyCog, cog)


async def started(bot: TPQuizBot) -> DailyCog:
    """The daily cog once its first tick (the catch-up at start) has finished."""
    cog = daily_cog(bot)
    async with asyncio.timeout(5):
        await cog.first_tick_done.wait()
    return cog


def channel_posts(quiz: QuizHarness, since: int = 0) -> list[RecordedRequest]:
    return [r for r in quiz.loopback.find("POST", CHANNEL_MESSAGES_ROUTE) if r.index >= since]


def post_of(quiz: QuizHarness, request: RecordedRequest) -> tuple[int, str]:
    """(post id, question id) of a daily post request, from its first button."""
    post_id = int(buttons(request.body)[0]["custom_id"].split(":")[2])
    (row,) = db_rows(quiz, "SELECT question_id FROM posts WHERE id = ?", post_id)
    return post_id, row[0]


def db_rows(quiz: QuizHarness, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute(sql, args).fetchall()


async def admin(
    quiz: QuizHarness,
    sub: str,
    options: dict[str, Any] | None = None,
    *,
    member: dict[str, Any] | None = None,
    locale: str = "en-US",
) -> dict[str, Any]:
    """Run /tpquiz-admin SUB as a server admin; return the (ephemeral) reply message."""
    caller = member or quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    request = await quiz.loopback.interact(
        quiz.command(caller, sub, options, command=ADMIN_COMMAND, locale=locale)
    )
    if request.body["type"] == 5:  # deferred: the answer is a followup
        request = await quiz.loopback.wait_for(
            lambda r: r.method == "POST" and r.path.startswith("/webhooks/"), since=request.index
        )
        return request.body
    return callback_message(request)


def setup_guild(quiz: QuizHarness) -> None:
    """A second text channel for the daily posts, besides the one commands are run in."""
    quiz.loopback.add_channel(GUILD_ID, DAILY_CHANNEL, name="daily")


# -- the whole cycle -------------------------------------------------------------------------


async def test_daily_on_post_answers_close_reveal_and_a_click_after_closing(
    quiz: QuizHarness,
) -> None:
    setup_guild(quiz)
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    quiz.clock.now = utc(2026, 12, 2, 8)  # 11:00 in Istanbul
    async with quiz.bot() as bot:
        cog = await started(bot)
        assert channel_posts(quiz) == []

        # Noon in Istanbul is 09:00 UTC.
        reply = await admin(
            quiz,
            "daily channel",
            {"channel": DAILY_CHANNEL, "time": "12:00", "timezone": "europe/istanbul"},
        )
        assert reply["flags"] & EPHEMERAL
        assert f"every day at **12:00** (Europe/Istanbul) in <#{DAILY_CHANNEL}>" in reply["content"]
        assert f"<t:{stamp(utc(2026, 12, 2, 9))}:F>" in reply["content"]

        quiz.clock.now = utc(2026, 12, 2, 8, 59, 59)
        assert (await cog.run_due(quiz.clock.now)).due == []
        quiz.clock.now = utc(2026, 12, 2, 9)
        run = await cog.run_due(quiz.clock.now)
        assert [d.ok for d in run.delivered] == [True]
        (first,) = channel_posts(quiz)
        assert int(first.params["channel_id"]) == DAILY_CHANNEL
        embed = first.body["embeds"][0]
        assert embed["title"] == "Question of the day — 2 December"
        post_id, qid = post_of(quiz, first)
        question = quiz.bank[qid]
        assert question.text.en in embed["description"]
        assert f"Closes <t:{stamp(utc(2026, 12, 3, 9))}:R>" in embed["description"]
        assert [b["label"] for b in buttons(first.body)] == list("ABCDE"[: len(question.choices)])
        assert first.body["allowed_mentions"] == {"parse": []}
        message_id = int(first.response["id"])

        # Answers, as on any post: right for Alice, wrong for Bob.
        ids = [b["custom_id"] for b in buttons(first.body)]
        right = next(c for c in ids if c.endswith(f":{question.correct_index}"))
        wrong = next(c for c in ids if c != right)
        answer = callback_message(await quiz.click(message_id, right, alice))
        assert answer["embeds"][0]["title"] == "✅ Correct!"
        assert answer["embeds"][0]["footer"]["text"].startswith("+1 points")
        await quiz.click(message_id, wrong, bob)
        # The coalesced count edit keeps the daily title and closing line.
        edit = await quiz.loopback.wait_for(
            lambda r: (
                r.method == "PATCH"
                and r.route == CHANNEL_MESSAGE_ROUTE
                and "2 answered" in r.body["embeds"][0]["footer"]["text"]
            )
        )
        assert edit.body["embeds"][0]["title"] == "Question of the day — 2 December"
        assert "Closes <t:" in edit.body["embeds"][0]["description"]

        stats = callback_message(await quiz.loopback.interact(quiz.command(alice, "stats")))
        assert field_map(stats["embeds"][0])["Daily question streak (current / best)"] == "1 / 1"

        # The next day's post closes this one with the reveal.
        since = len(quiz.loopback.requests)
        quiz.clock.now = utc(2026, 12, 3, 9)
        run = await cog.run_due(quiz.clock.now)
        assert run.delivered[0].closed == (post_id,)
        (second,) = channel_posts(quiz, since)
        assert second.body["embeds"][0]["title"] == "Question of the day — 3 December"
        _, second_qid = post_of(quiz, second)
        assert quiz.bank[second_qid].topic != question.topic or len(quiz.bank.topics()) == 1
        reveal = await quiz.loopback.wait_for(
            lambda r: (
                r.method == "PATCH"
                and r.route == CHANNEL_MESSAGE_ROUTE
                and int(r.params["message_id"]) == message_id
                and "closed" in r.body["embeds"][0]["title"]
            ),
            since=since,
        )
        shown = reveal.body["embeds"][0]
        assert shown["title"] == "Question of the day — 2 December · closed"
        assert "2 answered" in shown["footer"]["text"]
        right_letter = "ABCDE"[ids.index(right)]
        wrong_letter = "ABCDE"[ids.index(wrong)]
        lines = shown["description"].splitlines()
        assert "`█████░░░░░` 1 (50%) ✅" in lines
        assert "`█████░░░░░` 1 (50%)" in lines
        assert lines.count("`░░░░░░░░░░` 0 (0%)") == len(ids) - 2
        assert question.explanation.en == field_map(shown)["Why"]
        assert right_letter in field_map(shown)["Right answer"]
        closed_buttons = buttons(reveal.body)
        assert all(b["disabled"] for b in closed_buttons)
        assert [b["style"] for b in closed_buttons].count(3) == 1  # the right one, green
        assert closed_buttons[ids.index(right)]["style"] == 3

        # A click that still reaches the closed post: the answer, no points.
        answers_before = db_rows(quiz, "SELECT COUNT(*) FROM answers")[0][0]
        late = callback_message(await quiz.click(message_id, wrong, quiz.member(BOB + 7, "carl")))
        assert late["flags"] & EPHEMERAL
        late_embed = late["embeds"][0]
        assert (
            f"This question has closed; the answer was **{right_letter}**"
            in (late_embed["description"])
        )
        assert field_map(late_embed)["Why"] == question.explanation.en
        assert db_rows(quiz, "SELECT COUNT(*) FROM answers")[0][0] == answers_before
        assert wrong_letter != right_letter

        # Day 3 answered by Alice only; day 4 closes it: Bob's daily streak breaks.
        second_id = int(second.response["id"])
        second_q = quiz.bank[second_qid]
        second_ids = [b["custom_id"] for b in buttons(second.body)]
        await quiz.click(
            second_id,
            next(c for c in second_ids if c.endswith(f":{second_q.correct_index}")),
            alice,
        )
        quiz.clock.now = utc(2026, 12, 4, 9)
        await cog.run_due(quiz.clock.now)
        board = callback_message(await quiz.loopback.interact(quiz.command(bob, "leaderboard")))
        rows = board["embeds"][0]["description"].splitlines()
        assert rows[0].startswith("**#1** alice") and rows[0].endswith(" · 🔥 2-day streak")
        assert "bob" in rows[1] and "🔥" not in rows[1]
        stats = callback_message(await quiz.loopback.interact(quiz.command(bob, "stats")))
        assert field_map(stats["embeds"][0])["Daily question streak (current / best)"] == "0 / 1"


# -- restarts ----------------------------------------------------------------------------------


async def test_catch_up_after_a_restart_posts_once_and_a_second_restart_posts_nothing(
    quiz: QuizHarness,
) -> None:
    setup_guild(quiz)
    quiz.clock.now = utc(2026, 12, 2, 5)
    async with quiz.bot() as bot:
        await started(bot)
        await admin(quiz, "daily channel", {"channel": DAILY_CHANNEL})  # 09:00 UTC
    assert channel_posts(quiz) == []

    # Down at 09:00; started again at 11:00 the same day: one catch-up post at start.
    quiz.clock.now = utc(2026, 12, 2, 11)
    async with quiz.bot() as bot:
        caught_up = await quiz.loopback.wait_for(
            lambda r: r.method == "POST" and r.route == CHANNEL_MESSAGES_ROUTE
        )
        assert caught_up.body["embeds"][0]["title"] == "Question of the day — 2 December"
        await started(bot)
    assert len(channel_posts(quiz)) == 1

    # Started once more later that day: nothing, neither at start nor on a tick.
    quiz.clock.now = utc(2026, 12, 2, 11, 30)
    async with quiz.bot() as bot:
        cog = await started(bot)
        again = await asyncio.gather(cog.run_due(quiz.clock.now), cog.run_due(quiz.clock.now))
        assert [r.due for r in again] == [[], []]
    assert len(channel_posts(quiz)) == 1
    assert db_rows(quiz, "SELECT local_date, status FROM daily_slots") == [("2026-12-02", "sent")]


# -- delivery errors ---------------------------------------------------------------------------


async def test_403_and_404_are_recorded_shown_in_settings_and_retried_the_next_day(
    quiz: QuizHarness,
) -> None:
    setup_guild(quiz)
    other_guild, other_channel = GUILD_ID + 2000, GUILD_ID + 2001
    quiz.loopback.add_guild(other_guild, channel_ids=[other_channel])
    quiz.clock.now = utc(2026, 12, 2, 5)
    async with quiz.bot() as bot:
        cog = await started(bot)
        await admin(quiz, "daily channel", {"channel": DAILY_CHANNEL})
        await cog.service.configure(other_guild, channel_id=other_channel)

        # The bot loses Send Messages in the daily channel after it was set up.
        quiz.loopback.set_channel_permissions(
            DAILY_CHANNEL, quiz.loopback.bot_user_id, deny=Perm.SEND_MESSAGES, target_type=1
        )
        quiz.clock.now = utc(2026, 12, 2, 9)
        run = await cog.run_due(quiz.clock.now)
        assert [d.claim.post.guild_id for d in run.failed] == [GUILD_ID]
        assert [d.claim.post.guild_id for d in run.delivered] == [other_guild]  # unaffected
        forbidden = [r for r in channel_posts(quiz) if r.status == 403]
        assert len(forbidden) == 1 and forbidden[0].response["code"] == 50013

        fields = field_map((await admin(quiz, "settings"))["embeds"][0])
        assert (
            "I am missing a permission there (403, Missing Permissions)"
            in fields["Last delivery error"]
        )
        assert f"<#{DAILY_CHANNEL}>" in fields["Last delivery error"]
        assert fields["Next question"].endswith(f"<t:{stamp(utc(2026, 12, 3, 9))}:R>")

        # Not retried the same day (that could post twice); retried at the next day's time.
        quiz.clock.now = utc(2026, 12, 2, 9, 30)
        assert (await cog.run_due(quiz.clock.now)).due == []
        assert len(channel_posts(quiz)) == 2

        # Day 2: the channel has been deleted.
        quiz.loopback.channels.pop(DAILY_CHANNEL)
        quiz.clock.now = utc(2026, 12, 3, 9)
        run = await cog.run_due(quiz.clock.now)
        assert [d.claim.post.guild_id for d in run.failed] == [GUILD_ID]
        missing = [r for r in channel_posts(quiz) if r.status == 404]
        assert len(missing) == 1 and missing[0].response["code"] == 10003
        fields = field_map((await admin(quiz, "settings", locale="tr"))["embeds"][0])
        assert "kanal artık yok (404, Unknown Channel)" in fields["Son gönderim hatası"]

        # An admin picks a working channel: the error is cleared; day 3 posts.
        await admin(quiz, "daily channel", {"channel": CHANNEL_ID})
        fields = field_map((await admin(quiz, "settings"))["embeds"][0])
        assert fields["Last delivery error"] == "none"
        quiz.clock.now = utc(2026, 12, 4, 9)
        run = await cog.run_due(quiz.clock.now)
        assert sorted(d.claim.post.guild_id for d in run.delivered) == [GUILD_ID, other_guild]
    assert db_rows(
        quiz, "SELECT local_date, status FROM daily_slots WHERE guild_id = ? ORDER BY 1", GUILD_ID
    ) == [("2026-12-02", "failed"), ("2026-12-03", "failed"), ("2026-12-04", "sent")]


# -- admin commands ----------------------------------------------------------------------------


async def test_admin_command_is_hidden_from_members_and_refused_to_them(quiz: QuizHarness) -> None:
    setup_guild(quiz)
    quiz.clock.now = utc(2026, 12, 2, 5)
    async with quiz.bot() as bot:
        await started(bot)
        (put,) = quiz.loopback.find("PUT", GLOBAL_COMMANDS)
        (group,) = [c for c in put.body if c["name"] == ADMIN_COMMAND]
        assert int(group["default_member_permissions"]) == MANAGE_GUILD
        assert group["name_localizations"]["tr"] == "tpquiz-yönetim"
        assert group["contexts"] == [0]
        subs = {o["name"]: o for o in group["options"]}
        assert set(subs) == {
            "daily", "settings", "language", "role", "reports", "questions", "question", "bank",
            "suggestions", "suggestions-settings",
        }  # fmt: skip
        assert {o["name"] for o in subs["daily"]["options"]} == {"channel", "off", "now"}

        member = quiz.member(ALICE, "alice")  # no Manage Server
        for sub, options in (
            ("settings", None),
            ("daily channel", {"channel": DAILY_CHANNEL}),
            ("daily now", None),
            ("reports", None),
            ("questions", None),
            ("question", {"id": "basics-01"}),
            ("bank list", None),
            ("bank settings", None),
            ("suggestions-settings", None),
        ):
            reply = await admin(quiz, sub, options, member=member)
            assert reply["flags"] & EPHEMERAL
            assert "Only members with the **Manage Server** permission" in reply["content"]
        reply = await admin(quiz, "settings", member=member, locale="tr")
        assert "Sunucuyu Yönet" in reply["content"]
        assert db_rows(quiz, "SELECT COUNT(*) FROM daily_settings") == [(0,)]

        # Manage Server alone (no Administrator) is enough.
        manager = quiz.member(BOB, "bob", permissions=MANAGE_GUILD | Perm.VIEW_CHANNEL)
        reply = await admin(quiz, "settings", member=manager)
        assert reply["embeds"][0]["title"] == "tpquiz settings for this server"


async def test_bad_time_zone_and_channel_permissions_are_refused_and_change_nothing(
    quiz: QuizHarness,
) -> None:
    setup_guild(quiz)
    quiz.loopback.set_channel_permissions(
        CHANNEL_ID, quiz.loopback.bot_user_id, deny=Perm.EMBED_LINKS, target_type=1
    )
    async with quiz.bot() as bot:
        await started(bot)
        reply = await admin(quiz, "daily channel", {"channel": DAILY_CHANNEL, "time": "25:00"})
        assert "'25:00' is not a time" in reply["content"] and reply["flags"] & EPHEMERAL
        reply = await admin(
            quiz, "daily channel", {"channel": DAILY_CHANNEL, "timezone": "Mars/Olympus"}
        )
        assert "'Mars/Olympus' is not a time zone I know" in reply["content"]
        reply = await admin(quiz, "daily channel", {"channel": CHANNEL_ID})
        assert "missing the **Embed Links** permission" in reply["content"]
        assert db_rows(quiz, "SELECT COUNT(*) FROM daily_settings") == [(0,)]

        # The time zone option autocompletes IANA names, at most 25.
        caller = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
        payload = quiz.loopback.autocomplete(
            GUILD_ID,
            CHANNEL_ID,
            caller,
            ADMIN_COMMAND,
            "daily channel",
            {"channel": DAILY_CHANNEL, "timezone": "istan"},
            "timezone",
        )
        await quiz.loopback.interact(payload)
        choices = quiz.loopback.interaction(payload).choices
        assert choices is not None and 0 < len(choices) <= 25
        assert {"name": "Europe/Istanbul", "value": "Europe/Istanbul"} in choices

        fields = field_map((await admin(quiz, "settings"))["embeds"][0])
        assert fields["Daily questions"] == "off" and fields["Next question"] == "none"
        assert fields["Time zone"] == "UTC"


async def test_language_role_daily_now_and_off(quiz: QuizHarness) -> None:
    setup_guild(quiz)
    role_id = GUILD_ID + 77
    quiz.loopback.add_role(GUILD_ID, role_id, "tp-learners")
    quiz.clock.now = utc(2026, 12, 2, 12)  # 15:00 in Istanbul
    async with quiz.bot() as bot:
        cog = await started(bot)
        await admin(
            quiz, "daily channel", {"channel": DAILY_CHANNEL, "timezone": "Europe/Istanbul"}
        )
        reply = await admin(quiz, "language", {"language": "tr"})
        assert reply["content"] == "Public posts are now in Turkish."
        reply = await admin(quiz, "role", {"role": role_id})
        assert reply["content"] == f"Daily questions will mention <@&{role_id}>."

        # 09:00 Istanbul passed before daily posts were set: `daily now` posts today's.
        reply = await admin(quiz, "daily now")
        assert reply["content"] == f"Today's question is posted in <#{DAILY_CHANNEL}>."
        (post,) = channel_posts(quiz)
        assert post.body["content"] == f"<@&{role_id}>"
        mentions = post.body["allowed_mentions"]
        assert mentions["parse"] == [] and [int(r) for r in mentions["roles"]] == [role_id]
        assert post.body["embeds"][0]["title"] == "Günün sorusu — 2 Aralık"
        assert "Kapanış: <t:" in post.body["embeds"][0]["description"]

        reply = await admin(quiz, "daily now", locale="tr")
        assert reply["content"].startswith("Bugünün sorusu zaten paylaşıldı")
        quiz.clock.now = utc(2026, 12, 2, 20)
        assert (await cog.run_due(quiz.clock.now)).due == []

        fields = field_map((await admin(quiz, "settings"))["embeds"][0])
        assert fields["Language of public posts"] == "Turkish"
        assert fields["Role mentioned with daily questions"] == f"<@&{role_id}>"
        assert fields["Last daily question"] == "2 December"
        assert fields["Next question"].startswith("3 December 09:00 (Europe/Istanbul)")

        reply = await admin(quiz, "role")
        assert reply["content"] == "Daily questions will no longer mention a role."

        # Off: the open post closes 24 hours after it was posted, and nothing new comes.
        since = len(quiz.loopback.requests)
        reply = await admin(quiz, "daily off")
        assert reply["content"].startswith("Daily questions are off.")
        closes = f"Kapanış: <t:{stamp(utc(2026, 12, 3, 12))}:R>"
        await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and closes in r.body["embeds"][0]["description"],
            since=since,
        )
        since = len(quiz.loopback.requests)
        quiz.clock.now = utc(2026, 12, 3, 11, 59)
        assert (await cog.run_due(quiz.clock.now)).closed == []
        quiz.clock.now = utc(2026, 12, 3, 12)
        run = await cog.run_due(quiz.clock.now)
        assert run.due == [] and len(run.closed) == 1
        reveal = await quiz.loopback.wait_for(
            lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE, since=since
        )
        assert reveal.body["embeds"][0]["title"] == "Günün sorusu — 2 Aralık · kapandı"
        assert len(channel_posts(quiz)) == 1


# -- many servers ------------------------------------------------------------------------------


async def test_200_servers_due_at_once_are_each_posted_exactly_once(quiz: QuizHarness) -> None:
    guilds = [GUILD_ID + 10_000 + 2 * i for i in range(200)]
    for guild in guilds:
        quiz.loopback.add_guild(guild, channel_ids=[guild + 1])
    quiz.clock.now = utc(2026, 12, 2, 5)
    async with quiz.bot() as bot:
        cog = await started(bot)
        for guild in guilds:
            await cog.service.configure(guild, channel_id=guild + 1, time_text="09:00")
        quiz.clock.now = utc(2026, 12, 2, 9)
        began = time.perf_counter()
        # Two overlapping ticks, as if the loop fired while a slow one was still running.
        runs = await asyncio.gather(cog.run_due(quiz.clock.now), cog.run_due(quiz.clock.now))
        elapsed = time.perf_counter() - began
    posts = channel_posts(quiz)
    channels = [int(r.params["channel_id"]) for r in posts]
    assert len(posts) == 200 and sorted(channels) == sorted(g + 1 for g in guilds)
    assert all(r.status == 200 for r in posts)
    assert sum(len(r.delivered) for r in runs) == 200
    assert sum(len(r.failed) for r in runs) == 0
    assert db_rows(quiz, "SELECT COUNT(*), COUNT(DISTINCT guild_id) FROM daily_slots") == [
        (200, 200)
    ]
    # Paced under Discord's global limit: 200 sends take at least 199 / rate seconds.
    assert elapsed >= 199 / SENDS_PER_SECOND
    log.info("200 servers due at once: %d posts in %.2f s", len(posts), elapsed)


async def test_a_429_is_retried_by_discord_py_and_posts_once(quiz: QuizHarness) -> None:
    setup_guild(quiz)
    quiz.clock.now = utc(2026, 12, 2, 5)
    async with quiz.bot() as bot:
        cog = await started(bot)
        await admin(quiz, "daily channel", {"channel": DAILY_CHANNEL})
        quiz.loopback.fail_next("POST", CHANNEL_MESSAGES_ROUTE, 429)
        quiz.clock.now = utc(2026, 12, 2, 9)
        run = await cog.run_due(quiz.clock.now)
        assert len(run.delivered) == 1 and run.failed == []
    assert [r.status for r in channel_posts(quiz)] == [429, 200]
    in_channel = [
        m for m in quiz.loopback.messages.values() if int(m["channel_id"]) == DAILY_CHANNEL
    ]
    assert len(in_channel) == 1
