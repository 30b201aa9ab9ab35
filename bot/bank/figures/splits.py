"""Figures of how a layer is split: MLP shard shapes, attention and GQA heads, the
vocabulary-parallel embedding and cross-entropy, sequence parallelism around the layer
norm, and data against tensor parallelism.

Sources: Shoeybi et al. 2019 (arXiv:1909.08053) 3 and Fig. 3; Korthikanti et al. 2022
(arXiv:2205.05198) 4.2.2 and Fig. 5; vLLM's QKVParallelLinear (KV heads replicated when
the TP degree exceeds them). Figures with parameters draw a computed question's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from matplotlib.axes import Axes

from bot.bank.figures.registry import figure
from bot.bank.figures.style import (
    COMM,
    MUTED,
    PLAIN,
    SMALL,
    L,
    arrow,
    box,
    num,
    rank_colour,
    text,
    title,
    whole,
)
from bot.quiz.model import Lang

P = Mapping[str, Fraction]
SUB = "₀₁₂₃₄₅₆₇₈₉"


@figure("mlp-shard-shapes", topic="mlp-split", h=5120, t=8)
def mlp_shard_shapes(ax: Axes, lang: Lang, p: P) -> None:
    """A (h × 4h) by columns, B (4h × h) by rows: each GPU's shard with the drawn h and t."""
    h, t = whole(p["h"], "h"), whole(p["t"], "t")
    if h % t:
        raise ValueError("h must divide by t")
    f = 4 * h
    title(
        ax,
        L(
            lang,
            f"MLP weights split over t = {t} GPUs (h = {num(h, lang)})",
            f"MLP ağırlıkları t = {t} GPU'ya bölünür (h = {num(h, lang)})",
        ),
    )
    shown = min(t, 8)
    for i in range(shown):
        # A is h × 4h (wide), B is 4h × h (tall), so each is drawn in its own proportions.
        box(ax, 4 + i * 40 / shown, 26, 40 / shown, 10, "", colour=rank_colour(i))
        box(ax, 60, 40 - (i + 1) * 26 / shown, 10, 26 / shown, "", colour=rank_colour(i))
    text(
        ax,
        24,
        40,
        L(
            lang,
            f"A: {num(h, lang)} × {num(f, lang)}, by columns",
            f"A: {num(h, lang)} × {num(f, lang)}, sütunlara",
        ),
        bold=True,
    )
    text(
        ax,
        76,
        44,
        L(
            lang,
            f"B: {num(f, lang)} × {num(h, lang)}, by rows",
            f"B: {num(f, lang)} × {num(h, lang)}, satırlara",
        ),
        bold=True,
    )
    text(
        ax,
        24,
        21.5,
        L(
            lang,
            f"each GPU: {num(h, lang)} × {num(f // t, lang)}",
            f"her GPU: {num(h, lang)} × {num(f // t, lang)}",
        ),
    )
    text(
        ax,
        85,
        27,
        L(
            lang,
            f"each GPU:\n{num(f // t, lang)} × {num(h, lang)}",
            f"her GPU:\n{num(f // t, lang)} × {num(h, lang)}",
        ),
    )
    text(
        ax,
        50,
        9,
        L(
            lang,
            f"4h / t = {num(f, lang)} / {t} = {num(f // t, lang)}",
            f"4h / t = {num(f, lang)} / {t} = {num(f // t, lang)}",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        4,
        L(
            lang,
            "one colour per GPU: GPU i holds column block i of A and row block i of B",
            "her renk bir GPU: GPU i, A'nın i. sütun bloğunu ve B'nin i. satır bloğunu tutar",
        ),
        size=SMALL,
        colour=MUTED,
    )


@figure("gqa-heads", topic="attention-split", a=32, kv=4, t=8)
def gqa_heads(ax: Axes, lang: Lang, p: P) -> None:
    """Query heads dealt out a/t per GPU; KV heads kv/t per GPU, or replicated if t > kv."""
    a, kv, t = whole(p["a"], "a"), whole(p["kv"], "kv"), whole(p["t"], "t")
    if a % t or a % kv or (kv % t and t % kv):
        raise ValueError("a must divide by t and kv; kv and t must divide one another")
    title(
        ax,
        L(
            lang,
            f"GQA under TP: {a} query heads, {kv} KV heads, t = {t}",
            f"TP altında GQA: {a} sorgu head'i, {kv} KV head, t = {t}",
        ),
    )
    width = 84 / a
    text(ax, 13, 38, L(lang, "query", "sorgu"), ha="right", size=SMALL, bold=True)
    text(ax, 13, 24, "KV", ha="right", size=SMALL, bold=True)
    for q in range(a):
        box(ax, 14 + q * width, 35, width * 0.9, 6, "", colour=rank_colour(q * t // a))
    kv_width = 84 / kv
    for k in range(kv):
        if t <= kv:
            box(ax, 14 + k * kv_width, 21, kv_width * 0.94, 6, "", colour=rank_colour(k * t // kv))
        else:  # each KV head on t/kv GPUs: stripes of their colours
            share = t // kv
            for j in range(share):
                box(
                    ax,
                    14 + k * kv_width + j * kv_width * 0.94 / share,
                    21,
                    kv_width * 0.94 / share,
                    6,
                    "",
                    colour=rank_colour(k * share + j),
                )
    text(ax, 13, 31, "GPU", ha="right", size=SMALL, bold=True)
    for g in range(t):
        text(ax, 14 + (g + 0.5) * 84 / t, 31, str(g) if t > 8 else f"GPU {g}", size=SMALL)
    per_q = a // t
    if t <= kv:
        kv_line = L(
            lang,
            f"each GPU: {per_q} query heads and {kv // t} KV heads",
            f"her GPU: {per_q} sorgu head'i ve {kv // t} KV head",
        )
    else:
        kv_line = L(
            lang,
            f"each GPU: {per_q} query heads and 1 KV head, copied on {t // kv} GPUs",
            f"her GPU: {per_q} sorgu head'i ve 1 KV head; her KV head {t // kv} GPU'da kopya",
        )
    text(ax, 50, 13, kv_line)
    text(
        ax,
        50,
        5,
        L(
            lang,
            f"{a // kv} query heads share one KV head; the KV cache per GPU scales with its KV heads",
            f"{a // kv} sorgu head'i bir KV head'i paylaşır; GPU başına KV cache, KV head sayısıyla ölçeklenir",
        ),
        size=SMALL,
        colour=MUTED,
    )


@figure("vocab-parallel-embedding", topic="embeddings")
def vocab_parallel_embedding(ax: Axes, lang: Lang, p: P) -> None:
    """The embedding table split by vocabulary rows; out-of-range lookups are zeros, summed."""
    v, t = 50304, 4
    part = v // t
    title(
        ax,
        L(
            lang,
            f"Vocabulary-parallel embedding: V = {num(v, lang)} rows over {t} GPUs",
            f"Sözlük-paralel embedding: V = {num(v, lang)} satır {t} GPU'da",
        ),
    )
    tokens = (17, 30001, 45000)
    owners = ", ".join(f"{num(tok, lang)} → GPU {tok // part}" for tok in tokens)
    text(ax, 50, 46, L(lang, f"token ids: {owners}", f"token id'leri: {owners}"), size=SMALL)
    for i in range(t):
        y = 35 - i * 7.5
        lo, hi = i * part, (i + 1) * part - 1
        box(
            ax,
            3,
            y,
            30,
            6,
            f"GPU {i}: {num(lo, lang)}–{num(hi, lang)}",
            colour=rank_colour(i),
            size=SMALL,
        )
        for k, tok in enumerate(tokens):
            mine = lo <= tok <= hi
            box(
                ax,
                40 + k * 9,
                y,
                8,
                6,
                "E[id]" if mine else "0",
                colour=rank_colour(i) if mine else PLAIN,
                size=SMALL,
            )
        arrow(ax, (68, y + 3), (76, 23.5))
    box(ax, 76, 19, 12, 9, "all-reduce", colour=COMM, size=SMALL)
    arrow(ax, (88, 23.5), (92, 23.5))
    text(ax, 95, 23.5, L(lang, "rows\nfor\nall", "tüm\nsatırlar"), size=SMALL)
    text(
        ax,
        50,
        5,
        L(
            lang,
            "each GPU looks up only its own range and writes zeros for the rest; the sum is the lookup",
            "her GPU yalnızca kendi aralığına bakar, gerisine sıfır yazar; toplam, aramanın kendisidir",
        ),
        size=SMALL,
    )


@figure("vocab-parallel-cross-entropy", topic="embeddings")
def vocab_parallel_cross_entropy(ax: Axes, lang: Lang, p: P) -> None:
    """Cross-entropy on vocabulary-split logits: b·s numbers all-reduced, not b·s·V logits."""
    title(
        ax,
        L(
            lang,
            "Vocabulary-parallel cross-entropy: the logits stay on their GPUs",
            "Sözlük-paralel cross-entropy: logit'ler kendi GPU'larında kalır",
        ),
    )
    for i in range(4):
        box(ax, 3 + i * 11, 36, 10, 7, f"z{SUB[i]}", colour=rank_colour(i))
    text(
        ax,
        25,
        46,
        L(lang, "logits b × s × V/t on each GPU", "her GPU'da b × s × V/t logit"),
        size=SMALL,
    )
    steps = [
        (L(lang, "local max", "yerel max"), "all-reduce (max)"),
        (
            L(lang, "logit of the target (its owner)", "hedefin logit'i (sahibi)"),
            "all-reduce (sum)",
        ),
        (L(lang, "local Σ exp(z − max)", "yerel Σ exp(z − max)"), "all-reduce (sum)"),
    ]
    for k, (local, comm) in enumerate(steps):
        y = 27 - k * 8
        box(ax, 3, y, 43, 6, local, size=SMALL)
        arrow(ax, (46, y + 3), (55, y + 3))
        box(ax, 55, y, 26, 6, comm, colour=COMM, size=SMALL)
        text(ax, 83, y + 3, "b × s", ha="left", size=SMALL, bold=True)
    text(
        ax,
        50,
        5,
        L(
            lang,
            "loss = log Σ exp(z) − z_target: b × s numbers cross the GPUs instead of b × s × V",
            "loss = log Σ exp(z) − z_hedef: GPU'lar arasında b × s × V yerine b × s sayı gider",
        ),
        size=SMALL,
    )
