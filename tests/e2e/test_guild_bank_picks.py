"""End to end: a server's own questions in the picks (issue 27): `/tpquiz question` draws
from them by `/tpquiz-admin bank settings`, a click on one is recorded like any answer
(points, a review card, the version it answered), `/tpquiz review` asks them, and another
server never gets them."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from tests.e2e.conftest import GUILD_ID, QuizHarness, buttons, callback_message
from tests.e2e.test_guild_bank import _bank, _upload
from tests.e2e.test_quiz import post_question
from tests.loopback.server import ALL_PERMISSIONS
from tests.quiz.test_own_upload import BOTH, GOOD_EN

ADMIN, ALICE, BOB = 1_300_000_000_000_027_101, 1_300_000_000_000_027_102, 1_300_000_000_000_027_103
OTHER_GUILD = 1_300_000_000_000_027_899


def _rows(quiz: QuizHarness, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(quiz.db_path) as conn:
        return conn.execute(sql, args).fetchall()


def _post_qid(quiz: QuizHarness, message: dict[str, Any]) -> tuple[int, str]:
    post_id = int(buttons(message)[0]["custom_id"].split(":")[2])
    [(qid,)] = _rows(quiz, "SELECT question_id FROM posts WHERE id = ?", post_id)
    return post_id, qid


async def test_own_only_posts_the_servers_question_and_records_its_version(
    quiz: QuizHarness,
) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot():
        await _upload(quiz, admin, "ours.yaml", BOTH.encode())
        settings = callback_message(await _bank(quiz, admin, "settings", draw="own"))
        assert settings["content"].startswith("Questions from: **this server's own only**")

        message_id, message = await post_question(quiz, alice)
        post_id, qid = _post_qid(quiz, message)
        assert qid == "our-02@1"
        embed = message["embeds"][0]
        assert (
            "In our reading group, which resource does tensor parallelism divide?"
            in (embed["description"])
        )
        right = next(b["custom_id"] for b in buttons(message) if b["custom_id"].endswith(":0"))
        reply = callback_message(await quiz.click(message_id, right, alice))
        assert reply["embeds"][0]["title"] == "✅ Correct!"

        # A new version replaces the question; the post and its answers keep version 1.
        await _upload(quiz, admin, "ours.yaml", BOTH.replace("which resource", "what").encode())
        wrong = next(b["custom_id"] for b in buttons(message) if b["custom_id"].endswith(":1"))
        reply = callback_message(await quiz.click(message_id, wrong, bob))
        assert reply["embeds"][0]["title"] == "❌ Wrong."
        _, message = await post_question(quiz, alice)
        assert _post_qid(quiz, message)[1] == "our-02@2"

    answers = _rows(
        quiz, "SELECT user_id, question_id, correct FROM answers WHERE post_id = ? ORDER BY id",
        post_id,
    )  # fmt: skip
    assert answers == [(ALICE, "our-02@1", 1), (BOB, "our-02@1", 0)]
    assert _rows(quiz, "SELECT question_id FROM cards WHERE user_id = ?", ALICE) == [("our-02@1",)]
    assert _rows(quiz, "SELECT points FROM members WHERE user_id = ?", ALICE) == [(1,)]


async def test_review_asks_the_servers_own_questions(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        await _upload(quiz, admin, "ours.yaml", (GOOD_EN + "\n" + BOTH).encode())
        await _bank(quiz, admin, "settings", draw="own")
        request = await quiz.loopback.interact(quiz.command(alice, "review"))
        assert request.body["type"] == 4
    [(ids,)] = _rows(quiz, "SELECT question_ids FROM test_runs WHERE user_id = ?", ALICE)
    assert sorted(json.loads(ids)) == ["our-01@1", "our-02@1"]


async def test_another_server_never_draws_them(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    quiz.loopback.add_guild(OTHER_GUILD, name="Another group")
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        await _upload(quiz, admin, "ours.yaml", BOTH.encode())
        await _bank(quiz, admin, "settings", draw="own")
        # The other server asks for its own only, but has none: the bundled bank.
        await _bank(quiz, admin, "settings", guild_id=OTHER_GUILD, draw="own")
        for _ in range(12):
            payload = quiz.command(
                alice, "question", guild_id=OTHER_GUILD, channel_id=OTHER_GUILD + 1
            )
            request = await quiz.loopback.interact(payload)
            assert request.body["type"] == 4
    theirs = _rows(quiz, "SELECT question_id FROM posts WHERE guild_id = ?", OTHER_GUILD)
    assert len(theirs) == 12 and all("@" not in qid for (qid,) in theirs)
    assert _rows(quiz, "SELECT COUNT(*) FROM posts WHERE guild_id = ?", GUILD_ID) == [(0,)]


async def test_a_one_language_question_says_so_to_the_other_language(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        await _upload(quiz, admin, "ours.yaml", GOOD_EN.encode())
        await _bank(quiz, admin, "settings", draw="own")
        _, turkish = await post_question(quiz, alice, guild_locale="tr")
        _, english = await post_question(quiz, alice)
    stem = "Our cluster has 4 GPUs per node joined by PCIe only."
    assert turkish["embeds"][0]["description"].startswith(
        "_Bu sunucunun sorusu yalnızca İngilizce yazılmış._\n" + stem
    )
    assert english["embeds"][0]["description"].startswith(stem)


async def test_the_admin_view_of_an_own_question_is_its_servers_only(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    quiz.loopback.add_guild(OTHER_GUILD, name="Another group")
    async with quiz.bot():
        await _upload(quiz, admin, "ours.yaml", BOTH.encode())
        view = await quiz.loopback.interact(
            quiz.command(admin, "question", {"id": "our-02@1"}, command="tpquiz-admin")
        )
        elsewhere = await quiz.loopback.interact(
            quiz.command(
                admin, "question", {"id": "our-02@1"}, command="tpquiz-admin",
                guild_id=OTHER_GUILD, channel_id=OTHER_GUILD + 1,
            )
        )  # fmt: skip
    embed = callback_message(view)["embeds"][0]
    assert "In our reading group, which resource does tensor parallelism divide?" in (
        embed["title"] + embed.get("description", "")
    )
    assert callback_message(elsewhere)["content"] == "There is no question 'our-02@1' in the bank."
