"""End to end: a server's own questions in `/tpquiz-admin questions` and `question
<id@version>` (issue 27). Its own questions head the list, marked as its own: one with
two open reports says it is out of the picks and why, one with three first answers says
it is on probation. A new version's figures start afresh; the older version's stay and
`question our-02@1` shows them.

The answers are recorded through the bot's own recording code (tests/itemsim.py) while
the bot is stopped.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from bot.quiz.model import Question
from bot.storage.sqlite import Storage
from bot.storage.sqlite.reports import add_report
from tests.e2e.conftest import GUILD_ID, QuizHarness, callback_message
from tests.e2e.test_guild_bank import _upload
from tests.itemsim import simulate
from tests.loopback.server import ALL_PERMISSIONS
from tests.quiz.test_own_upload import BOTH, GOOD_EN

ADMIN, ALICE = 1_300_000_000_000_027_301, 1_300_000_000_000_027_302

WITHHELD = (
    "**`our-02@1`** · this server's own · 4 first answers · facility 100% · discrimination - ·"
    " 2 reports\n"
    "• ⚠️ Out of the picks: two open reports or more. Resolve them (`/tpquiz-admin reports`)"
    " or upload a fixed version.\n"
    "• On probation: 4/30 first answers; it is not flagged before 30."
)
PROBATION = (
    "**`our-01@1`** · this server's own · 3 first answers · facility 67% · discrimination - ·"
    " 0 reports\n"
    "• On probation: 3/30 first answers; it is not flagged before 30."
)


async def _own(quiz: QuizHarness) -> dict[str, Question]:
    storage = await Storage.open(quiz.db_path)
    try:
        return {o.question_id: o.question for o in await storage.guild_bank.current(GUILD_ID)}
    finally:
        await storage.close()


async def _admin(quiz: QuizHarness, member: dict[str, Any], sub: str, **kwargs: Any) -> Any:
    return await quiz.loopback.interact(quiz.command(member, sub, command="tpquiz-admin", **kwargs))


async def test_own_questions_come_first_withheld_and_on_probation(quiz: QuizHarness) -> None:
    admin = quiz.member(ADMIN, "admin", permissions=ALL_PERMISSIONS)
    async with quiz.bot():
        await _upload(quiz, admin, "ours.yaml", (GOOD_EN + "\n" + BOTH).encode())
    own = await _own(quiz)
    # our-01: three first answers, two right; our-02: four, all right, and two reports.
    await simulate(quiz.db_path, guild_id=GUILD_ID, members=range(3), questions=[own["our-01"]],
                   choose=lambda m, a, q: q.correct_index if m else 1)  # fmt: skip
    await simulate(quiz.db_path, guild_id=GUILD_ID, members=range(10, 14),
                   questions=[own["our-02"]], choose=lambda m, a, q: q.correct_index,
                   now_ms=1_700_000_100_000)  # fmt: skip
    with sqlite3.connect(quiz.db_path, isolation_level=None) as conn:
        for i in range(2):
            add_report(conn, guild_id=GUILD_ID, user_id=ALICE + i, question_id="our-02@1",
                       language="en", reason="wrong_answer", body="the key is B",
                       now_ms=1_796_000_000_000 + i)  # fmt: skip
    async with quiz.bot():
        listing = callback_message(await _admin(quiz, admin, "questions"))
        tr = callback_message(await _admin(quiz, admin, "questions", locale="tr"))
        # A fixed version of our-02: its figures start afresh, the first version's stay.
        await _upload(quiz, admin, "ours.yaml", BOTH.replace('3"', '3.1"').encode())
        older = callback_message(await _admin(quiz, admin, "question", options={"id": "our-02@1"}))
        newer = callback_message(await _admin(quiz, admin, "question", options={"id": "our-02@2"}))
        after = callback_message(await _admin(quiz, admin, "questions"))

    embed = listing["embeds"][0]
    assert listing["allowed_mentions"] == {"parse": []}
    assert embed["title"] == "This server's own questions, then the most flagged"
    assert embed["description"] == WITHHELD + "\n\n" + PROBATION
    assert embed["footer"]["text"] == "Page 1/1 · 2 of this server's own · 0 flagged of the bank"
    assert tr["embeds"][0]["title"] == "Bu sunucunun soruları, ardından en çok işaretlenenler"
    turkish = tr["embeds"][0]["description"]
    assert turkish.startswith("**`our-02@1`** · bu sunucunun sorusu · 4 ilk cevap")
    assert "• ⚠️ Seçilmiyor: iki ya da daha çok açık bildirim." in turkish
    assert "• Deneme sürecinde: 3/30 ilk cevap" in turkish

    old_fields = {f["name"]: f["value"] for f in older["embeds"][0]["fields"]}
    assert old_fields["All answers"].startswith("4 first answers · facility 100% · ")
    assert "the key is B" in old_fields["Reports"]
    new_fields = {f["name"]: f["value"] for f in newer["embeds"][0]["fields"]}
    assert new_fields["All answers"] == "No first answers in this server yet."
    assert new_fields["Reports"] == "none"
    # The list now has the new version (on probation, in the picks), not the first one.
    assert after["embeds"][0]["description"] == PROBATION + "\n\n" + (
        "**`our-02@2`** · this server's own · 0 first answers · facility - · discrimination - ·"
        " 0 reports\n• On probation: 0/30 first answers; it is not flagged before 30."
    )
