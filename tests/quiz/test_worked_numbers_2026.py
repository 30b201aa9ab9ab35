"""Worked numbers of the 2026 questions on NVL72, checkpoint resharding and TP serving
(issue 28 3), recomputed from the inputs their stems state.

As in test_worked_numbers_b: the figure must appear in the right choice in both languages,
and the figure a named mistake gives must appear in a wrong choice, so that a changed input
cannot leave a stale key or turn a distractor into the right answer.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.quiz.raw_bank import load_raw
from tests.quiz.test_worked_numbers_b import GB, KiB, MiB, contains, dec

BANK = load_raw(["practice-2026.yaml", "checkpoint-resharding.yaml", "inference-serving.yaml"])
LANGS = ("en", "tr")


def _texts(qid: str, lang: str) -> tuple[str, list[str]]:
    choices = BANK[qid]["choices"]
    right = [c["text"][lang] for c in choices if c.get("correct") is True]
    assert len(right) == 1, qid
    return right[0], [c["text"][lang] for c in choices if c.get("correct") is not True]


@pytest.mark.parametrize("lang", LANGS)
def test_inference_serving_01_message_sizes(lang: str) -> None:
    h, nbytes, t = 8192, 2, 8
    prefill, decode = 4096 * h * nbytes, 16 * h * nbytes
    right, wrong = _texts("inference-serving-01", lang)
    assert contains(right, f"{prefill // MiB} MiB") and contains(right, f"{decode // KiB} KiB")
    # Dividing the full-size partial sum by t is the mistake of one distractor.
    sharded = [w for w in wrong if contains(w, f"{prefill // t // MiB} MiB")]
    assert sharded and contains(sharded[0], f"{decode // t // KiB} KiB")


def test_inference_serving_01_alpha_beta_terms() -> None:
    # Ring all-reduce at t = 8 with the explanation's α = 5 µs and B = 450 GB/s.
    t, alpha_us, bandwidth = 8, 5, 450 * GB
    latency = 2 * (t - 1) * alpha_us
    prefill = Fraction(2 * (t - 1), t) * 64 * MiB / bandwidth * 10**6
    decode = Fraction(2 * (t - 1), t) * 256 * KiB / bandwidth * 10**6
    assert latency == 70 and round(prefill) == 261 and round(decode) == 1
    explanation = BANK["inference-serving-01"]["explanation"]
    for lang in LANGS:
        assert contains(explanation[lang], "70 µs")
    assert "about 260 µs" in explanation["en"] and "about 1 µs" in explanation["en"]


@pytest.mark.parametrize("lang", LANGS)
def test_checkpoint_resharding_05_kv_head_of_rank_5(lang: str) -> None:
    tp, kv_heads, rank = 16, 8, 5
    replicas = tp // kv_heads
    shard_id = rank // replicas
    partner = [r for r in range(tp) if r != rank and r // replicas == shard_id]
    assert (shard_id, partner) == (2, [4])
    right, wrong = _texts("checkpoint-resharding-05", lang)
    assert contains(right, f"{shard_id}") and contains(right, f"{partner[0]}")
    assert any(contains(w, f"{rank}") for w in wrong)  # the rank's own index, unreplicated


@pytest.mark.parametrize("lang", LANGS)
def test_practice_2026_02_per_gpu_and_rack_bandwidth(lang: str) -> None:
    links, per_link_gbs, gpus = 18, 100, 72
    per_gpu_tbs = Fraction(links * per_link_gbs, 1000)
    assert per_gpu_tbs == Fraction(18, 10)
    assert round(gpus * per_gpu_tbs) == 130
    assert contains(BANK["practice-2026-02"]["text"][lang], dec(per_gpu_tbs, 1, lang) + " TB/s")
    assert contains(BANK["practice-2026-02"]["text"][lang], "130 TB/s")
