"""End to end (issue 32): members read topic names, in their language, never the slugs.

The synced `topic` option offers each topic by its English name with the Turkish one as
its `name_localizations` (Discord shows a Turkish client the Turkish), the value staying
the slug; a Turkish member's post and `/tpquiz istatistik` name the topic in Turkish.
Every request body is checked against Discord's OpenAPI description by the `loopback`
fixture.
"""

from __future__ import annotations

from bot.bank.topic_names import load_topic_names
from bot.quiz.model import TOPICS
from tests.e2e.conftest import QuizHarness, callback_message
from tests.e2e.test_quiz import GLOBAL_COMMANDS, answer_buttons, field_map, post_question

AYSE = 1_300_000_000_000_032_001


async def test_the_topic_choices_carry_their_turkish_names(quiz: QuizHarness) -> None:
    async with quiz.bot():
        (put,) = quiz.loopback.find("PUT", GLOBAL_COMMANDS)
        (group,) = [c for c in put.body if c["name"] == "tpquiz"]
        (question,) = [o for o in group["options"] if o["name"] == "question"]
        (topic,) = question["options"]
    names = load_topic_names()
    assert [c["value"] for c in topic["choices"]] == list(TOPICS)  # the slug stays the key
    for choice in topic["choices"]:
        text = names[choice["value"]]
        assert (choice["name"], choice["name_localizations"]) == (text.en, {"tr": text.tr})
    shown = {c["value"]: c["name_localizations"]["tr"] for c in topic["choices"]}
    assert shown["attention-split"] == "Attention'ın bölünmesi"
    assert shown["rng-and-dropout"] == "RNG ve dropout"
    assert shown["vs-other-parallelism"] == "TP ve diğer paralellikler"


async def test_a_turkish_member_reads_the_topic_in_turkish_on_the_post_and_in_stats(
    quiz: QuizHarness,
) -> None:
    ayse = quiz.member(AYSE, "ayşe")
    turkish = {"locale": "tr", "guild_locale": "tr"}
    async with quiz.bot():
        for _ in range(2):  # two misses: the topic is then among the weakest
            message_id, message = await post_question(
                quiz, ayse, options={"topic": "rng-and-dropout"}, **turkish
            )
            footer = message["embeds"][0]["footer"]["text"]
            assert footer.startswith("Konu: RNG ve dropout · Zorluk: ")
            assert "rng-and-dropout" not in footer
            qid, ids, right = answer_buttons(quiz, message)
            assert quiz.bank[qid].topic == "rng-and-dropout"
            wrong = next(c for c in ids if c != right)
            await quiz.click(message_id, wrong, ayse, locale="tr")

        request = await quiz.loopback.interact(quiz.command(ayse, "stats", **turkish))
        embed = callback_message(request)["embeds"][0]
        fields = field_map(embed)
        assert fields["Konulara göre isabet"] == "RNG ve dropout: 0% (0/2)"
        assert fields["En zayıf konular"] == "RNG ve dropout"
        (upload,) = request.files  # the picture, drawn with the Turkish names
        assert upload.filename == "stats.png"
        assert "rng-and-dropout" not in str(embed)
