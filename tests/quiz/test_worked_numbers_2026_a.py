"""Worked numbers of the 2026 questions on context parallelism, MLA, MoE, FP8 and
all-reduce algorithms (issue 28 3), recomputed from the inputs each question states.

The figure in the correct choice is computed here and must appear in it (English and
Turkish formatting) and in no wrong choice; the wrong choices' figures are the named
mistakes, recomputed too, so a changed input cannot leave a stale answer.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.quiz.raw_bank import load_raw
from tests.quiz.test_worked_numbers_a import contains, num

FILES = [
    "context-parallel.yaml",
    "inference-2026.yaml",
    "moe-parallel.yaml",
    "fp8.yaml",
    "allreduce-algorithms.yaml",
]
BANK = load_raw(FILES)
KiB, MiB, GiB = 2**10, 2**20, 2**30


def context_parallel_04() -> tuple[str, list[str]]:
    cp, seq, kv_heads, q_heads, head, bf16 = 4, 128 * 1024, 8, 64, 128, 2
    chunk = seq // cp
    assert chunk == 32_768
    per_token = 2 * kv_heads * head * bf16  # K and V of the KV heads only (GQA)
    assert per_token == 4 * KiB
    key = (cp - 1) * chunk * per_token
    assert key == 402_653_184
    mistakes = [
        cp * chunk * per_token,  # counts the GPU's own chunk
        (cp - 1) * chunk * per_token * q_heads // kv_heads,  # MHA: every query head
        (cp - 1) * chunk * per_token // 2,  # K alone
    ]
    shown = [f"{mistakes[0] // MiB} MiB", f"{mistakes[1] // GiB} GiB", f"{mistakes[2] // MiB} MiB"]
    assert shown == ["512 MiB", "3 GiB", "192 MiB"]
    return f"{key // MiB} MiB", shown


def gib(value: int | Fraction) -> str:
    """`value` bytes in GiB, to two decimals, as the question writes it."""
    return f"{float(Fraction(value) / GiB):.2f} GiB"


def inference_2026_05() -> tuple[str, list[str]]:
    layers, latent, rope, bf16, tokens, tp = 61, 512, 64, 2, 100_000, 8
    per_token = layers * (latent + rope) * bf16  # one latent, the same on every TP rank
    assert per_token == 70_272
    key = tokens * per_token
    assert key == 7_027_200_000
    mistakes = [
        Fraction(key, tp),  # as if TP split the latent
        tokens * layers * latent * bf16,  # the RoPE key forgotten
        2 * key,  # the latent counted once for K and once for V
    ]
    return gib(key), [gib(m) for m in mistakes]


def moe_parallel_03() -> tuple[str, list[str]]:
    tp, cp, dp, pp, etp, edp = 4, 2, 8, 4, 1, 1
    assert tp * cp * dp * pp == 256
    # Folding: per pipeline stage, TP x CP x DP = ETP x EP x EDP over the same GPUs.
    ep = tp * cp * dp // (etp * edp)
    assert ep == 64
    mistakes = [dp, tp * dp, tp * cp * dp * pp]  # EP <= DP; CP forgotten; PP not shared
    return str(ep), [str(m) for m in mistakes]


def fp8_04() -> tuple[str, list[str]]:
    tokens, h, tp, fp8, bf16 = 8192, 8192, 8, 1, 2
    whole = tokens * h * fp8
    assert whole == 64 * MiB and tokens // tp == 1024
    key = (tp - 1) * whole // tp  # the other 7 shards, cast before the gather
    mistakes = [(tp - 1) * tokens * h * bf16 // tp, whole, (tp - 1) * whole // tp // tp]
    return f"{key // MiB} MiB", [f"{m // MiB} MiB" for m in mistakes]


def allreduce_algos_02() -> tuple[str, list[str]]:
    tp, tokens, h, bf16 = 8, 16, 4096, 2
    message = tokens * h * bf16
    assert message == 128 * KiB
    key = (tp - 1) * message  # one-shot: every peer's whole buffer, summed locally
    assert key == 896 * KiB
    mistakes = [
        message,  # one buffer, as if the sum arrived ready-made
        2 * (tp - 1) * message // tp,  # ring / two-shot volume per GPU
        (tp - 1) * message // tp,  # a reduce-scatter's share
    ]
    assert key == 4 * mistakes[1]
    extra_us = Fraction(key - mistakes[1], 900 * 10**9) * 10**6  # at 900 GB/s per direction
    assert extra_us < 1
    return f"{key // KiB} KiB", [f"{m // KiB} KiB" for m in mistakes]


CASES = {
    "context-parallel-04": context_parallel_04,
    "inference-2026-05": inference_2026_05,
    "moe-parallel-03": moe_parallel_03,
    "fp8-04": fp8_04,
    "allreduce-algos-02": allreduce_algos_02,
}


@pytest.mark.parametrize("qid", sorted(CASES))
@pytest.mark.parametrize("lang", ["en", "tr"])
def test_key_and_mistakes_are_the_stated_figures(qid: str, lang: str) -> None:
    key, mistakes = CASES[qid]()
    if lang == "tr":  # the figures here have decimals but no thousands to group
        key, mistakes = key.replace(".", ","), [m.replace(".", ",") for m in mistakes]
    right = [c for c in BANK[qid]["choices"] if c.get("correct") is True]
    wrong = [c for c in BANK[qid]["choices"] if c.get("correct") is not True]
    assert len(right) == 1
    assert contains(right[0]["text"][lang], key), (qid, lang, key)
    for choice in wrong:
        assert not contains(choice["text"][lang], key), (qid, lang)
    assert sorted(c["text"][lang] for c in wrong) == sorted(mistakes), (qid, lang)


def test_formatting_helpers_agree() -> None:
    assert num(Fraction(13, 2), "tr") == "6,5"
