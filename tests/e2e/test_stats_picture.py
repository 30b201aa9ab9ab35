"""End to end: `/tpquiz stats` shows the review outlook, a real PNG and "Review now"."""

from __future__ import annotations

import struct

from tests.e2e.conftest import QuizHarness, buttons, callback_message, created_message_id
from tests.e2e.test_quiz import EPHEMERAL, field_map
from tests.e2e.test_review import miss_two, review_round

ALICE, BOB = 1_300_000_000_000_003_001, 1_300_000_000_000_003_002
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which a PNG must start with."""
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR")
    return struct.unpack(">II", data[16:24])


async def test_stats_show_due_counts_the_picture_and_a_review_button(quiz: QuizHarness) -> None:
    alice = quiz.member(ALICE, "alice")
    async with quiz.bot():
        posted, tested = await miss_two(quiz, alice)
        quiz.clock.advance(days=1, minutes=30)  # both misses are due now
        request = await quiz.loopback.interact(quiz.command(alice, "stats"))
        message = callback_message(request)
        assert message["flags"] & EPHEMERAL
        embed = message["embeds"][0]
        fields = field_map(embed)
        assert fields["Due now"] == "2" and fields["Due this week"] == "2"
        retention = fields["Retention estimate (FSRS)"]
        assert retention.endswith("%") and 0 < int(retention[:-1]) < 100
        assert fields["Accuracy"] == "0%"  # the text stays complete without the picture

        (upload,) = request.files
        assert upload.filename == "stats.png"
        width, height = png_size(upload.data)
        assert (width, height) == (1000, 420)
        assert 10_000 < len(upload.data) < 1_000_000
        assert embed["image"]["url"] == "attachment://stats.png"

        (button,) = buttons(message)
        assert button["label"] == "Review now" and button["custom_id"].startswith("tpq:rs:")
        started = await quiz.click(created_message_id(request), button["custom_id"], alice)
        assert callback_message(started)["embeds"][0]["title"] == "Review"
        assert review_round(quiz, ALICE)[:2] == [posted, tested]

        # In Turkish, for a member with no cards yet: no picture numbers to invent.
        bob = quiz.member(BOB, "bob")
        request = await quiz.loopback.interact(quiz.command(bob, "stats", locale="tr"))
        assert "henüz hiç cevap vermedi" in callback_message(request)["embeds"][0]["description"]
        assert request.files == []
