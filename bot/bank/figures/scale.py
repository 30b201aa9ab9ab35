"""Figures of collectives and scale: the ring all-reduce step by step and its volume,
the 3D grid of a GPU count, the pipeline bubble, TP across nodes against inside an
NVLink domain, and activation memory with and without sequence parallelism.

Sources: Patarasuk & Yuan 2009 and nccl-tests PERFORMANCE.md (ring: 2(n−1) steps of
S/n); Narayanan et al. 2021 (arXiv:2104.04473) 2.2.1 (bubble (p−1)/m) and 3 (n = p·t·d);
Korthikanti et al. 2022 (arXiv:2205.05198) Table 2; NVIDIA DGX H100 (NVLink 4: 18 links,
900 GB/s per GPU both ways; one 400 Gb/s ConnectX-7 NIC per GPU).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.patches import Rectangle

from bot.bank.figures.collectives import _amount
from bot.bank.figures.registry import figure
from bot.bank.figures.style import (
    COMM,
    IDLE,
    INK,
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


@figure("grid-3d", topic="3d-parallelism", N=16, t=2, p=4)
def grid_3d(ax: Axes, lang: Lang, p: P) -> None:
    """N = t·p·d GPUs: d replicas, each p pipeline stages of a t-GPU TP group (ranks tp-first)."""
    n_gpus, t, stages = whole(p["N"], "N"), whole(p["t"], "t"), whole(p["p"], "p")
    if n_gpus % (t * stages):
        raise ValueError("N must divide by t·p")
    d = n_gpus // (t * stages)
    title(
        ax,
        L(
            lang,
            f"{num(n_gpus, lang)} GPUs = t · p · d = {t} · {stages} · {num(d, lang)}",
            f"{num(n_gpus, lang)} GPU = t · p · d = {t} · {stages} · {num(d, lang)}",
        ),
    )
    drawn = list(range(d)) if d <= 4 else [0, 1, 2, d - 1]
    width = 92 / len(drawn)
    cell_w = (width - 4) / t
    cell_h = min(5.0, 24 / stages)
    labelled = cell_w >= 4.5 and cell_h >= 3.5
    cells: list[Rectangle] = []
    colours: list[str] = []
    for slot, replica in enumerate(drawn):
        x0 = 4 + slot * width
        if d > 4 and slot == 3:
            text(ax, x0 - 1.5, 27, "…", bold=True)
        text(
            ax,
            x0 + (width - 4) / 2,
            45,
            L(lang, f"replica {num(replica + 1, lang)}", f"kopya {num(replica + 1, lang)}"),
            size=SMALL,
            bold=True,
        )
        for s in range(stages):
            y = 40 - (s + 1) * cell_h
            for i in range(t):
                cells.append(Rectangle((x0 + i * cell_w, y), cell_w * 0.92, cell_h * 0.9))
                colours.append(rank_colour(s))
                if labelled:
                    rank = i + t * (replica + d * s)
                    text(
                        ax, x0 + (i + 0.46) * cell_w, y + cell_h * 0.45, num(rank, lang), size=SMALL
                    )
    # One collection, not a patch per GPU: 512 cells draw in a fifth of the time.
    ax.add_collection(PatchCollection(cells, facecolors=colours, edgecolors=INK, linewidths=1.0))
    text(
        ax,
        50,
        10,
        L(
            lang,
            f"a row: one TP group of t = {t} (one node's NVLink); rows top to bottom: the p = {stages} pipeline stages",
            f"bir satır: t = {t} GPU'luk bir TP grubu (bir düğümün NVLink'i); yukarıdan aşağı satırlar: p = {stages} pipeline aşaması",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        4,
        L(
            lang,
            f"d = N / (t · p) = {num(n_gpus, lang)} / {t * stages} = {num(d, lang)} data-parallel replicas",
            f"d = N / (t · p) = {num(n_gpus, lang)} / {t * stages} = {num(d, lang)} veri-paralel kopya",
        ),
        size=SMALL,
        bold=True,
    )


@figure("pipeline-bubble", topic="3d-parallelism", p=4, m=8)
def pipeline_bubble(ax: Axes, lang: Lang, p: P) -> None:
    """GPipe-style schedule (t_f = t_b): each stage idles (p−1)·(t_f + t_b), the bubble."""
    stages, m = whole(p["p"], "p"), whole(p["m"], "m")
    title(
        ax,
        L(
            lang,
            f"Pipeline bubble: p = {stages} stages, m = {m} micro-batches",
            f"Pipeline balonu: p = {stages} aşama, m = {m} micro-batch",
        ),
    )
    total = 2 * (m + stages - 1)
    unit = 84 / total
    row = min(5.0, 24 / stages)  # the rows stay between y = 42 and 18, above the legend
    for s in range(stages):
        y = 42 - (s + 1) * row
        # Every stage named when the rows are tall enough, else the first and the last.
        named = row >= 3 or s in (0, stages - 1)
        text(
            ax,
            13,
            y + row / 2,
            L(lang, f"stage {s + 1}", f"aşama {s + 1}") if named else "",
            ha="right",
            size=SMALL,
        )
        ax.add_patch(_rect(14, y, total * unit, row * 0.85, IDLE))
        fwd, bwd = s, m + 2 * (stages - 1) - s
        ax.add_patch(_rect(14 + fwd * unit, y, m * unit, row * 0.85, rank_colour(0)))
        ax.add_patch(_rect(14 + bwd * unit, y, m * unit, row * 0.85, rank_colour(1)))
        if m <= 16 and unit >= 1.2:
            for k in range(1, m):
                for start in (fwd, bwd):
                    ax.plot(
                        [14 + (start + k) * unit] * 2,
                        [y, y + row * 0.85],
                        color="#ffffff",
                        linewidth=0.8,
                    )
    legend = [
        (rank_colour(0), L(lang, "forward", "ileri")),
        (rank_colour(1), L(lang, "backward", "geri")),
        (IDLE, L(lang, "idle: the bubble", "boşta: balon")),
    ]
    for k, (colour, name) in enumerate(legend):
        ax.add_patch(_rect(14 + k * 26, 14, 3, 2.5, colour))
        text(ax, 18 + k * 26, 15.25, name, ha="left", size=SMALL)
    text(
        ax,
        50,
        8,
        L(
            lang,
            "bubble per stage: (p − 1) · (t_f + t_b); ideal time: m · (t_f + t_b)",
            "aşama başına balon: (p − 1) · (t_f + t_b); ideal süre: m · (t_f + t_b)",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        3,
        L(
            lang,
            f"bubble fraction (p − 1) / m = {stages - 1}/{m}",
            f"balon oranı (p − 1) / m = {stages - 1}/{m}",
        ),
        bold=True,
    )


def _rect(x: float, y: float, w: float, h: float, colour: str) -> Rectangle:
    return Rectangle((x, y), w, h, facecolor=colour, edgecolor="none")


@figure("tp-across-nodes", topic="comm-cost")
def tp_across_nodes(ax: Axes, lang: Lang, p: P) -> None:
    """TP = 8 inside a DGX H100's NVLink against TP = 16 over two nodes' InfiniBand."""
    title(
        ax,
        L(
            lang,
            "TP inside the NVLink domain, or across nodes (DGX H100)",
            "TP NVLink domain'i içinde mi, düğümler arasında mı (DGX H100)",
        ),
    )
    text(ax, 25, 46, L(lang, "TP = 8: one node", "TP = 8: tek düğüm"), bold=True)
    text(ax, 75, 46, L(lang, "TP = 16: two nodes", "TP = 16: iki düğüm"), bold=True)
    box(ax, 4, 28, 42, 14, "", colour=PLAIN)
    for g in range(8):
        box(ax, 6 + g * 4.9, 33, 4.2, 6, "", colour=rank_colour(0))
    text(
        ax,
        25,
        30.5,
        L(lang, "NVLink: 450 GB/s per GPU, each way", "NVLink: GPU başına yön başına 450 GB/s"),
        size=SMALL,
    )
    for x0 in (53, 77):
        box(ax, x0, 28, 20, 14, "", colour=PLAIN)
        for g in range(8):
            box(ax, x0 + 1.2 + g * 2.3, 33, 2.0, 6, "", colour=rank_colour(1))
    arrow(ax, (73, 35.5), (77, 35.5), colour=COMM, both=True)
    text(
        ax,
        75,
        25,
        L(
            lang,
            "InfiniBand: 50 GB/s per GPU, each way",
            "InfiniBand: GPU başına yön başına 50 GB/s",
        ),
        size=SMALL,
        colour=COMM,
    )
    text(
        ax,
        50,
        18,
        L(
            lang,
            "a ring all-reduce runs at the speed of its slowest link:",
            "bir ring all-reduce en yavaş bağlantısının hızında çalışır:",
        ),
    )
    text(
        ax,
        50,
        12,
        L(
            lang,
            "across nodes it crosses a NIC of 400 Gb/s = 50 GB/s, 9 × slower than NVLink",
            "düğümler arasında 400 Gb/s = 50 GB/s'lik NIC'ten geçer, NVLink'ten 9 kat yavaş",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        5,
        L(
            lang,
            "so TP stays inside the NVLink domain; pipeline and data parallelism go across",
            "bu yüzden TP NVLink domain'inde kalır; düğümler arasına pipeline ve veri paralelliği gider",
        ),
        size=SMALL,
        colour=MUTED,
    )


@figure("activation-memory", topic="memory", s=2048, b=1, h=12288, a=96, t=8)
def activation_memory(ax: Axes, lang: Lang, p: P) -> None:
    """Korthikanti et al. Table 2, per layer, 16-bit, no recomputation, in MiB."""
    s, b, h, a, t = (p[k] for k in ("s", "b", "h", "a", "t"))
    sbh = s * b * h / 2**20
    rows = [
        (
            L(lang, "no parallelism", "paralellik yok"),
            "sbh(34 + 5as/h)",
            sbh * (34 + 5 * a * s / h),
        ),
        (
            L(lang, "TP", "TP"),
            "sbh(10 + 24/t + 5as/(ht))",
            sbh * (10 + 24 / t + 5 * a * s / (h * t)),
        ),
        (L(lang, "TP + SP", "TP + SP"), "sbh/t · (34 + 5as/h)", sbh / t * (34 + 5 * a * s / h)),
    ]
    title(
        ax,
        L(
            lang,
            f"Activations per layer: s = {num(s, lang)}, b = {num(b, lang)}, h = {num(h, lang)}, a = {num(a, lang)}, t = {num(t, lang)}",
            f"Katman başına aktivasyon: s = {num(s, lang)}, b = {num(b, lang)}, h = {num(h, lang)}, a = {num(a, lang)}, t = {num(t, lang)}",
        ),
    )
    top = max(v for _, _, v in rows)
    for k, (name, formula, value) in enumerate(rows):
        y = 36 - k * 10
        text(ax, 15, y + 4, name, ha="right", bold=True, size=SMALL)
        length = float(60 * value / top)
        ax.add_patch(_rect(16, y + 1, max(length, 0.5), 6, rank_colour(k)))
        text(ax, 16 + length + 1, y + 4, f"{_amount(value, lang)} MiB", ha="left", size=SMALL)
        text(ax, 16.5, y - 1.2, formula, ha="left", size=SMALL, colour=MUTED)
    text(
        ax,
        50,
        4,
        L(
            lang,
            "16-bit activations, no recomputation (Korthikanti et al. 2022, Table 2)",
            "16 bit aktivasyonlar, yeniden hesaplama yok (Korthikanti vd. 2022, Tablo 2)",
        ),
        size=SMALL,
        colour=MUTED,
    )
