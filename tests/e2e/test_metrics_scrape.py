"""End to end: members click, then the bot's metrics endpoint is scraped over HTTP and
read with prometheus-client's own parser, as a Prometheus server would read it."""

from __future__ import annotations

from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from bot.ops.metrics import serve_metrics
from tests.e2e.conftest import QuizHarness
from tests.e2e.test_quiz import ALICE, BOB, answer_buttons, post_question

HAS_PROC = Path("/proc/self/stat").exists()  # process metrics read /proc (Linux)


async def test_clicks_show_in_a_scrape_of_the_running_bot(quiz: QuizHarness) -> None:
    alice, bob = quiz.member(ALICE, "alice"), quiz.member(BOB, "bob")
    async with quiz.bot() as bot, serve_metrics(bot.metrics, "127.0.0.1", 0) as server:
        assert server is not None
        message_id, message = await post_question(quiz, alice)
        _, ids, right = answer_buttons(quiz, message)
        wrong = next(c for c in ids if c != right)
        await quiz.click(message_id, right, alice)
        await quiz.click(message_id, wrong, bob)
        await quiz.click(message_id, wrong, alice)  # a second click: her first answer stands
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{server.port}/metrics") as resp:
                assert resp.status == 200
                text = await resp.text()

    families = {f.name: f for f in text_string_to_metric_families(text)}
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in families.values()
        for s in family.samples
    }
    assert families["tpquiz_answers_recorded"].type == "counter"
    answers = "tpquiz_answers_recorded_total"
    assert samples[(answers, (("outcome", "correct"),))] == 1
    assert samples[(answers, (("outcome", "wrong"),))] == 1
    assert samples[(answers, (("outcome", "duplicate"),))] == 1
    assert families["tpquiz_interaction_latency_seconds"].type == "histogram"
    latency = "tpquiz_interaction_latency_seconds"
    assert samples[(f"{latency}_count", (("kind", "answer"),))] == 3
    assert samples[(f"{latency}_bucket", (("kind", "answer"), ("le", "+Inf")))] == 3
    # At least the post and the two answers recorded; the bot's other writes count too.
    assert samples[("tpquiz_db_write_seconds_count", ())] >= 3
    if HAS_PROC:
        assert families["process_resident_memory_bytes"].type == "gauge"
        assert samples[("process_resident_memory_bytes", ())] > 0
