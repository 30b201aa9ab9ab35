"""Worked-number questions: every number in a correct answer is recomputed here.

Each case states the inputs of one question, computes the expected figure(s) in Python and
checks that the formatted figure appears in the correct choice's English and Turkish text and
in no wrong choice. English groups thousands with "," and uses "." for decimals; Turkish
groups with "." and uses "," for decimals. Tensor shapes are written without separators.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction

import pytest

from tests.quiz.raw_bank import load_raw

FILES = [
    "basics.yaml",
    "mlp-split.yaml",
    "attention-split.yaml",
    "collectives.yaml",
    "comm-cost.yaml",
    "embeddings.yaml",
]

MiB = 2**20


BANK = load_raw(FILES)


def num(value: int | float | Fraction, lang: str) -> str:
    """Format a number the way the question text writes it in `lang`."""
    if isinstance(value, Fraction):
        assert value.denominator & (value.denominator - 1) == 0, "not a finite decimal"
        value = float(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        s = f"{value:,}"
        return s if lang == "en" else s.replace(",", ".")
    s = repr(value)
    return s if lang == "en" else s.replace(".", ",")


def contains(text: str, needle: str) -> bool:
    """`needle` occurs in `text` and is not part of a longer number."""
    pattern = r"(?<![\d.,])" + re.escape(needle) + r"(?![\d]|[.,]\d)"
    return re.search(pattern, text) is not None


def split(qid: str) -> tuple[dict, list[dict]]:
    choices = BANK[qid]["choices"]
    right = [c for c in choices if c.get("correct") is True]
    assert len(right) == 1, qid
    return right[0], [c for c in choices if c.get("correct") is not True]


# Each case: question id -> function(lang) returning the strings that must appear in the
# correct choice (in that language) and in no wrong choice.
Case = Callable[[str], list[str]]


def basics_06(lang: str) -> list[str]:
    h, ffn, t = 4096, 16384, 8
    per_gpu = (h * ffn) // t + (ffn * h) // t  # A column shard + B row shard
    assert per_gpu == 16_777_216
    return [num(per_gpu, lang)]


def basics_07(lang: str) -> list[str]:
    in_f, out_f, t = 4096, 16384, 8
    # nn.Linear stores (out_features, in_features); ColwiseParallel shards dim 0.
    return [f"({out_f // t}, {in_f})"]


def mlp_split_05(lang: str) -> list[str]:
    h, ffn, t = 5120, 20480, 8
    return [f"A: {h}×{ffn // t}; B: {ffn // t}×{h}"]


def attention_split_04(lang: str) -> list[str]:
    h, q_heads, kv_heads, head_dim, tp = 4096, 32, 4, 128, 8
    assert q_heads % tp == 0
    # vLLM QKVParallelLinear: with tp >= num_kv_heads each rank holds one whole KV head,
    # replicated tp / num_kv_heads times.
    assert tp >= kv_heads and tp % kv_heads == 0
    kv_per_rank, replicas = 1, tp // kv_heads
    # Consistency with GQA grouping: a rank's query heads all fall in one KV group.
    group = q_heads // kv_heads
    for rank in range(tp):
        first, last = rank * (q_heads // tp), (rank + 1) * (q_heads // tp) - 1
        assert first // group == last // group == rank // replicas
    shard = f"{h}×{kv_per_rank * head_dim}"
    held = f"held by {replicas} ranks" if lang == "en" else f"{replicas} rank'te bulunur"
    return [shard, held]


def attention_split_07(lang: str) -> list[str]:
    h, heads, head_dim, t = 4096, 32, 128, 8
    qkv_cols = 3 * heads * head_dim
    assert qkv_cols == 12288
    return [f"{h}×{qkv_cols // t}"]


def collectives_03(lang: str) -> list[str]:
    n, size_gib = 8, 1
    return [num(Fraction(2 * (n - 1), n) * size_gib, lang) + " GiB"]


def collectives_04(lang: str) -> list[str]:
    return [num(Fraction(2 * (n - 1), n), lang) + "·S" for n in (8, 64)]


def collectives_05(lang: str) -> list[str]:
    n, size_mib = 4, 512
    return [num(Fraction(n - 1, n) * size_mib, lang) + " MiB"]


def comm_cost_02(lang: str) -> list[str]:
    layers, stages, per_layer = 96, 8, 2 + 2  # two all-reduces forward, two backward (Fig. 4)
    assert layers % stages == 0
    return [num(layers // stages * per_layer, lang)]  # a GPU holds only its stage's layers


def comm_cost_03(lang: str) -> list[str]:
    n, size_mb, bus_gb_per_s = 8, 800, 200
    # nccl-tests PERFORMANCE.md: t = (S/B) * 2(n-1)/n; MB / (GB/s) = ms.
    ms = Fraction(size_mb, bus_gb_per_s) * Fraction(2 * (n - 1), n)
    return [num(ms, lang) + " ms"]


def comm_cost_04(lang: str) -> list[str]:
    small, large = 8, 16
    steps = [2 * (n - 1) for n in (small, large)]  # reduce-scatter + all-gather hops
    assert steps == [14, 30]
    if lang == "en":
        return [f"from {steps[0]} to {steps[1]}"]
    return [f"{steps[0]}'ten {steps[1]}'a"]


def embeddings_04(lang: str) -> list[str]:
    # Megatron pads to a multiple of make_vocab_size_divisible_by (128) x TP degree first.
    v, divisible_by, t, rank = 128_256, 128, 8, 3
    multiple = divisible_by * t
    padded = math.ceil(v / multiple) * multiple
    assert padded == 129_024
    per = padded // t
    first, last = rank * per, (rank + 1) * per - 1
    return [num(per, lang), f"{num(first, lang)}–{num(last, lang)}"]


def embeddings_05(lang: str) -> list[str]:
    v, multiple, max_tp = 50_257, 128, 8
    step = multiple * max_tp
    return [num(math.ceil(v / step) * step, lang)]


CASES: dict[str, Case] = {
    "basics-06": basics_06,
    "basics-07": basics_07,
    "mlp-split-05": mlp_split_05,
    "attention-split-04": attention_split_04,
    "attention-split-07": attention_split_07,
    "collectives-03": collectives_03,
    "collectives-04": collectives_04,
    "collectives-05": collectives_05,
    "comm-cost-02": comm_cost_02,
    "comm-cost-03": comm_cost_03,
    "comm-cost-04": comm_cost_04,
    "embeddings-04": embeddings_04,
    "embeddings-05": embeddings_05,
}


@pytest.mark.parametrize("qid", sorted(CASES))
@pytest.mark.parametrize("lang", ["en", "tr"])
def test_worked_number_in_correct_choice_only(qid: str, lang: str) -> None:
    right, wrong = split(qid)
    for needle in CASES[qid](lang):
        assert contains(right["text"][lang], needle), (qid, lang, needle, right["text"][lang])
        for c in wrong:
            assert not contains(c["text"][lang], needle), (qid, lang, needle, c["text"][lang])


def test_every_worked_number_question_exists() -> None:
    for qid in CASES:
        assert qid in BANK, qid


def test_number_formatting() -> None:
    assert num(16_777_216, "en") == "16,777,216"
    assert num(16_777_216, "tr") == "16.777.216"
    assert num(Fraction(7, 4), "en") == "1.75"
    assert num(Fraction(7, 4), "tr") == "1,75"
    assert num(384.0, "tr") == "384"
    assert contains("ids 48,096–64,127", "48,096–64,127")
    assert not contains("2048×40960", "2048×4096")
    assert not contains("1.96875·S", "1.96·S")
