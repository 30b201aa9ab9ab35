"""Worked-number questions of the second half of the bank, recomputed from their inputs.

For each worked-number question the inputs stated in the question are written down here,
the answer is computed in Python, and the formatted figure must appear in the correct
choice's English and Turkish text and in no wrong choice. Where a distractor encodes a
specific mistake (forgetting a factor, using the wrong formula), that figure is recomputed
too, so a distractor cannot silently become the right answer.

Number style in these files: "." decimals in English, "," in Turkish; Turkish writes the
percent sign first ("%7,3"); four-digit counts (GPUs, seeds, sizes in MiB) are written
without a thousands separator.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

import pytest

from tests.quiz.raw_bank import load_raw

FILES = [
    "sequence-parallel.yaml",
    "memory.yaml",
    "3d-parallelism.yaml",
    "vs-other-parallelism.yaml",
    "practice.yaml",
    "overlap.yaml",
    "rng-and-dropout.yaml",
    "inference.yaml",
]
LANGS = ("en", "tr")

MiB = 2**20
KiB = 2**10
GB = 10**9


BANK = load_raw(FILES)


def dec(value: float | Fraction, places: int, lang: str) -> str:
    """`value` rounded to `places` decimals, with the decimal mark of `lang`."""
    s = f"{float(value):.{places}f}"
    return s if lang == "en" else s.replace(".", ",")


def pct(value: float | Fraction, places: int, lang: str) -> str:
    """A fraction (0.073) as a percentage: "7.3%" in English, "%7,3" in Turkish."""
    number = dec(float(value) * 100, places, lang)
    return f"{number}%" if lang == "en" else f"%{number}"


def contains(text: str, needle: str) -> bool:
    """`needle` occurs in `text` and is not part of a longer number or word."""
    pattern = r"(?<![\w.,])" + re.escape(needle) + r"(?![\w]|[.,]\d)"
    return re.search(pattern, text) is not None


def split(qid: str, bank: dict[str, dict] | None = None) -> tuple[dict, list[dict]]:
    choices = (BANK if bank is None else bank)[qid]["choices"]
    right = [c for c in choices if c.get("correct") is True]
    assert len(right) == 1, qid
    return right[0], [c for c in choices if c.get("correct") is not True]


def as_int(value: float | Fraction) -> int:
    assert float(value).is_integer(), value
    return int(value)


# --------------------------------------------------------------------------- cases
# Each case returns, for one language, the strings that must appear in the correct choice
# and in no wrong choice.


def sequence_parallel_04(lang: str) -> list[str]:
    # Korthikanti et al. Eq. 4: sbh/t * (34 + 5as/h), 16-bit activations, bytes.
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    sbh = s * b * h
    attn = Fraction(5 * a * s, h)
    assert attn == 80
    tp_sp = Fraction(sbh, t) * (34 + attn)
    return [f"{as_int(tp_sp / MiB)} MiB"]


def sequence_parallel_05(lang: str) -> list[str]:
    # Selective recomputation drops the 5as/h term: saved fraction 5as/h / (34 + 5as/h).
    a, s, h = 96, 2048, 12288
    attn = Fraction(5 * a * s, h)
    saved = attn / (34 + attn)
    return [pct(saved, 0, lang)]


def sequence_parallel_06(lang: str) -> list[str]:
    s, b, h, t = 2048, 4, 4096, 8
    return [f"{s // t} × {b} × {h}"]


def memory_03(lang: str) -> list[str]:
    psi, t = 13 * 10**9, 4
    return [f"{as_int(Fraction(16 * psi, t * GB))} GB"]


def memory_04(lang: str) -> list[str]:
    psi, t, p = 175 * 10**9, 8, 8  # d = 16 does not divide model state without ZeRO
    return [dec(Fraction(16 * psi, t * p * GB), 2, lang) + " GB"]


def memory_06(lang: str) -> list[str]:
    # TP = 8, ZeRO stage 1 over d = 16: (2 + 2) bytes stay per TP shard, 12 bytes / d.
    psi, t, d = 70 * 10**9, 8, 16
    per_gpu = Fraction(4 * psi, t) + Fraction(12 * psi, t * d)
    return [dec(per_gpu / GB, 2, lang) + " GB"]


def three_d_02(lang: str) -> list[str]:
    n, t, p = 3072, 8, 64
    assert n % (t * p) == 0
    return [f"d = {n // (t * p)}"]


def three_d_03(lang: str) -> list[str]:
    t, p = 8, 35
    return [str(t * p)]


def three_d_04(lang: str) -> list[str]:
    n, t, p, batch, micro = 1536, 8, 8, 2304, 1
    d = n // (t * p)
    m = Fraction(batch, micro * d)
    assert (d, m) == (24, 96)
    return [pct(Fraction(p - 1) / m, 1, lang)]


def three_d_05(lang: str) -> list[str]:
    b, s, h, t, nbytes = 1, 2048, 12288, 8, 2
    return [f"{as_int(Fraction(b * s * h * nbytes, t * MiB))} MiB"]


def pipeline_group(rank: int, t: int, d: int, p: int) -> list[int]:
    """Megatron's default order tp-cp-ep-dp-pp (cp = ep = 1): rank = tp + t*dp + t*d*pp."""
    tp, dp = rank % t, (rank // t) % d
    return [tp + t * dp + t * d * pp for pp in range(p)]


def three_d_06(lang: str) -> list[str]:
    n, t, p = 16, 2, 4
    d = n // (t * p)
    return [", ".join(f"g{r}" for r in pipeline_group(5, t, d, p))]


def vs_other_04(lang: str) -> list[str]:
    # ZeRO stage 2: 2Ψ + (2 + K)Ψ / N_d.
    psi, k, nd = Fraction(75, 10) * 10**9, 12, 64
    return [dec((2 * psi + (2 + k) * psi / nd) / GB, 1, lang) + " GB"]


def vs_other_05(lang: str) -> list[str]:
    p, m, v = 4, 16, 2
    return [pct(Fraction(1, v) * Fraction(p - 1, m), 1, lang)]


def practice_05(lang: str) -> list[str]:
    # vLLM: query heads % tp == 0; QKVParallelLinear divides the KV heads by tp, or tp by the
    # KV heads when tp >= kv (replicas); the NVLink domain (the 8-GPU node) caps tp.
    heads, kv_heads, gpus_per_node = 24, 6, 8

    def loads(tp: int) -> bool:
        kv_ok = tp % kv_heads == 0 if tp >= kv_heads else kv_heads % tp == 0
        return heads % tp == 0 and kv_ok

    best = max(tp for tp in range(1, gpus_per_node + 1) if loads(tp))
    assert [tp for tp in (8, 4, 12) if loads(tp)] == [12]  # 12 loads but leaves the node
    return [f"tensor_parallel_size = {best}"]


def rng_03(lang: str) -> list[str]:
    # megatron/core/tensor_parallel/random.py: offset = seed + 2718; tp seed = offset + tp_rank;
    # the default generator keeps the seed itself.
    seed, tp_rank = 1234, 3
    return [str(seed + 2718 + tp_rank)]


def inference_02(lang: str) -> list[str]:
    layers, all_reduces_per_layer_forward = 80, 2
    return [str(layers * all_reduces_per_layer_forward)]


def inference_03(lang: str) -> list[str]:
    batch, hidden, nbytes = 32, 8192, 2
    return [f"{as_int(Fraction(batch * hidden * nbytes, KiB))} KiB"]


def inference_05(lang: str) -> list[str]:
    layers, kv_heads, head_dim, nbytes, tp = 80, 8, 128, 2, 4
    per_token = 2 * layers * (kv_heads // tp) * head_dim * nbytes  # K and V
    return [f"{as_int(Fraction(per_token, KiB))} KiB"]


CASES: dict[str, Callable[[str], list[str]]] = {
    "sequence-parallel-04": sequence_parallel_04,
    "sequence-parallel-05": sequence_parallel_05,
    "sequence-parallel-06": sequence_parallel_06,
    "memory-03": memory_03,
    "memory-04": memory_04,
    "memory-06": memory_06,
    "3d-parallelism-02": three_d_02,
    "3d-parallelism-03": three_d_03,
    "3d-parallelism-04": three_d_04,
    "3d-parallelism-05": three_d_05,
    "3d-parallelism-06": three_d_06,
    "vs-other-parallelism-04": vs_other_04,
    "vs-other-parallelism-05": vs_other_05,
    "practice-05": practice_05,
    "rng-and-dropout-03": rng_03,
    "inference-02": inference_02,
    "inference-03": inference_03,
    "inference-05": inference_05,
}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("qid", sorted(CASES))
def test_worked_number_in_correct_choice_only(qid: str, lang: str) -> None:
    right, wrong = split(qid)
    for needle in CASES[qid](lang):
        assert contains(right["text"][lang], needle), (qid, lang, needle, right["text"][lang])
        for choice in wrong:
            assert not contains(choice["text"][lang], needle), (
                qid,
                lang,
                needle,
                choice["text"][lang],
            )


@pytest.mark.parametrize("lang", LANGS)
def test_ring_decomposition_counts(lang: str) -> None:
    # overlap-04: t shards, one already local -> t - 1 transfers and t partial GEMMs.
    t = 8
    right, wrong = split("overlap-04")
    steps, gemms = t - 1, t
    assert contains(right["text"][lang], str(steps))
    assert contains(right["text"][lang], str(gemms))
    for choice in wrong:
        assert not contains(choice["text"][lang], str(steps)), choice["text"][lang]


@pytest.mark.parametrize("lang", LANGS)
def test_seed_of_default_generator(lang: str) -> None:
    # rng-and-dropout-03: the default CUDA generator keeps the unmodified seed.
    right, _ = split("rng-and-dropout-03")
    assert contains(right["text"][lang], "1234")


# --------------------------------------------------------------------------- distractors
# The wrong choices below each encode one named mistake; recompute those figures so that the
# feedback ("that is tensor parallelism alone", "that is ZeRO stage 1", ...) stays true.


def _wrong_texts(qid: str, lang: str, bank: dict[str, dict] | None = None) -> list[str]:
    return [c["text"][lang] for c in split(qid, bank)[1]]


def _in_some_wrong(qid: str, lang: str, needle: str, bank: dict[str, dict] | None = None) -> bool:
    return any(contains(text, needle) for text in _wrong_texts(qid, lang, bank))


@pytest.mark.parametrize("lang", LANGS)
def test_sequence_parallel_04_distractors(lang: str) -> None:
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    sbh = s * b * h
    attn = Fraction(5 * a * s, h)
    tp_only = sbh * (10 + Fraction(24, t) + attn / t)  # Eq. 2
    no_parallel = sbh * (34 + attn)  # Eq. 1
    selective_sp = Fraction(34 * sbh, t)  # Table 2, TP + SP + selective recompute
    for value in (tp_only, no_parallel, selective_sp):
        assert _in_some_wrong("sequence-parallel-04", lang, f"{as_int(value / MiB)} MiB")


@pytest.mark.parametrize("lang", LANGS)
def test_sequence_parallel_05_distractors(lang: str) -> None:
    gpt3 = Fraction(5 * 96 * 2048, 12288)
    mtnlg = Fraction(5 * 128 * 2048, 20480)
    assert mtnlg == 64
    assert _in_some_wrong("sequence-parallel-05", lang, pct(34 / (34 + gpt3), 0, lang))
    assert _in_some_wrong("sequence-parallel-05", lang, pct(mtnlg / (34 + mtnlg), 0, lang))
    t = 8  # TP alone (Eq. 2): the attention-core share of 10 + 24/t + 5as/(ht)
    tp_only = (gpt3 / t) / (10 + Fraction(24, t) + gpt3 / t)
    assert tp_only == Fraction(10, 23)
    assert _in_some_wrong("sequence-parallel-05", lang, pct(tp_only, 0, lang))


@pytest.mark.parametrize("lang", LANGS)
def test_memory_06_distractors(lang: str) -> None:
    psi, t, d = 70 * 10**9, 8, 16
    no_optimizer = Fraction(4 * psi, t)  # as if ZeRO-1 took the optimizer states off the GPU
    zero2 = Fraction(2 * psi, t) + Fraction(14 * psi, t * d)
    zero3 = Fraction(16 * psi, t * d)
    assert _in_some_wrong("memory-06", lang, f"{as_int(no_optimizer / GB)} GB")
    assert _in_some_wrong("memory-06", lang, dec(zero2 / GB, 2, lang) + " GB")
    assert _in_some_wrong("memory-06", lang, dec(zero3 / GB, 2, lang) + " GB")


@pytest.mark.parametrize("lang", LANGS)
def test_zero_figure_1_ladder(lang: str) -> None:
    # Rajbhandari et al. Figure 1: Ψ = 7.5B, N_d = 64, K = 12 -> 120, 31.4, 16.6, 1.88 GB.
    psi, k, nd = Fraction(75, 10) * 10**9, 12, 64
    baseline = (4 + k) * psi / GB
    stage1 = (4 * psi + k * psi / nd) / GB
    stage3 = (4 + k) * psi / nd / GB
    assert baseline == 120
    assert _in_some_wrong("vs-other-parallelism-04", lang, "120 GB")
    assert _in_some_wrong("vs-other-parallelism-04", lang, dec(stage1, 1, lang) + " GB")
    assert _in_some_wrong("vs-other-parallelism-04", lang, dec(stage3, 2, lang) + " GB")


@pytest.mark.parametrize("lang", LANGS)
def test_bubble_distractors(lang: str) -> None:
    n, t, p, batch = 1536, 8, 8, 2304
    d = n // (t * p)
    m = batch // d
    share_of_total = Fraction(p - 1, m + p - 1)  # GPipe-style share, not t_pb / t_id
    ignoring_d = Fraction(p - 1, batch)
    assert _in_some_wrong("3d-parallelism-04", lang, pct(share_of_total, 1, lang))
    assert _in_some_wrong("3d-parallelism-04", lang, pct(ignoring_d, 2, lang))


@pytest.mark.parametrize("lang", LANGS)
def test_inference_05_distractors(lang: str) -> None:
    layers, kv_heads, q_heads, head_dim, nbytes, tp = 80, 8, 64, 128, 2, 4
    unsharded = 2 * layers * kv_heads * head_dim * nbytes
    query_heads = 2 * layers * (q_heads // tp) * head_dim * nbytes
    assert _in_some_wrong("inference-05", lang, f"{as_int(Fraction(unsharded, KiB))} KiB")
    assert _in_some_wrong("inference-05", lang, f"{as_int(Fraction(query_heads, KiB))} KiB")


@pytest.mark.parametrize("lang", LANGS)
def test_distractors_above_and_below_the_key(lang: str) -> None:
    """Issue 28 1: a numeric key is not always a middle value; each of these is its mistake."""
    batch, hidden = 32, 8192
    side_by_side = 8 * batch * hidden * 2  # the 8 ranks' partial outputs concatenated
    mlp_intermediate = batch * 4 * hidden * 2  # all-reducing the 4h activation
    assert _in_some_wrong("inference-03", lang, f"{as_int(Fraction(side_by_side, KiB))} KiB")
    assert _in_some_wrong("inference-03", lang, f"{as_int(Fraction(mlp_intermediate, KiB))} KiB")
    kv_fp32 = 2 * 80 * (8 // 4) * 128 * 4
    assert _in_some_wrong("inference-05", lang, f"{as_int(Fraction(kv_fp32, KiB))} KiB")
    weights_and_grads = Fraction(4 * 13 * 10**9, 4)  # 2 + 2 bytes, no optimizer state
    assert _in_some_wrong("memory-03", lang, f"{as_int(weights_and_grads / GB)} GB")
    other = load_raw(["collectives.yaml", "comm-cost.yaml"])
    assert _in_some_wrong("collectives-05", lang, "512 MiB", other)  # the whole buffer, once
    sent_and_received = 2 * Fraction(2 * 7, 8)  # GiB, for 1 GiB over 8 GPUs
    assert _in_some_wrong("collectives-03", lang, dec(sent_and_received, 1, lang) + " GiB", other)
    assert _in_some_wrong("comm-cost-02", lang, str(96 // 8), other)  # one per layer of a stage
    all_links_once = Fraction(800, 200 * 8)  # ms: S/(n·B), every byte over one link once
    assert _in_some_wrong("comm-cost-03", lang, dec(all_links_once, 1, lang) + " ms", other)


def test_every_case_is_a_question() -> None:
    missing = sorted(set(CASES) - set(BANK))
    assert not missing, missing


def test_formatting_helpers() -> None:
    assert pct(Fraction(7, 96), 1, "en") == "7.3%"
    assert pct(Fraction(7, 96), 1, "tr") == "%7,3"
    assert dec(41.5625, 2, "tr") == "41,56"
    assert contains("About 7.3%", "7.3%")
    assert not contains("640 KiB", "40 KiB")
    assert not contains("d = 64", "6")
