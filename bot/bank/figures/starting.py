"""Explanation figures of the eight questions of the starting quiz (start-01..08).

Each draws what its explanation says, in the same terms: Shoeybi et al. 2019 Fig. 3a/3b
for the MLP and attention splits, Megatron's f and g operators, Narayanan et al. 2021
for PTD-P and for keeping TP inside a server's NVLink. Nothing here says more than the
explanation beside it.
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
    rank_colour,
    text,
    title,
)
from bot.quiz.model import Lang

P = Mapping[str, Fraction]


@figure("tp-intra-layer", topic="basics")
def tp_intra_layer(ax: Axes, lang: Lang, p: P) -> None:
    """start-01: TP splits one layer's weight matrix; PP places whole layers."""
    text(
        ax,
        25,
        52,
        L(lang, "Tensor parallelism (intra-layer)", "Tensör paralelliği (katman içi)"),
        bold=True,
    )
    text(
        ax,
        75,
        52,
        L(lang, "Pipeline parallelism (inter-layer)", "Pipeline paralelliği (katmanlar arası)"),
        bold=True,
    )
    box(ax, 13, 41, 24, 6, L(lang, "X (the same input)", "X (aynı girdi)"))
    for i in range(4):
        x = 2 + i * 11.8
        box(ax, x, 24, 10.5, 9, f"GPU {i}\nW{'₁₂₃₄'[i]}", colour=rank_colour(i))
        arrow(ax, (25, 41), (x + 5.25, 33))
        arrow(ax, (x + 5.25, 24), (25, 17))
    box(
        ax,
        9,
        11,
        32,
        6,
        L(lang, "all-reduce of the partial results", "kısmi sonuçlar: all-reduce"),
        colour=COMM,
    )
    text(
        ax,
        25,
        6.5,
        L(
            lang,
            "W = [W₁ W₂ W₃ W₄]: one layer, four slices",
            "W = [W₁ W₂ W₃ W₄]: tek katman, dört dilim",
        ),
        size=SMALL,
    )
    for i in range(4):
        y = 41 - i * 9.5
        box(
            ax,
            62,
            y,
            26,
            6.5,
            L(
                lang,
                f"GPU {i}: layers {2 * i + 1}–{2 * i + 2}",
                f"GPU {i}: katman {2 * i + 1}–{2 * i + 2}",
            ),
            colour=rank_colour(i),
        )
        if i:
            arrow(ax, (75, y + 9.5), (75, y + 6.5))
    text(
        ax,
        75,
        6.5,
        L(lang, "each GPU holds whole layers", "her GPU bütün katmanlar tutar"),
        size=SMALL,
    )
    ax.plot([50, 50], [4, 50], color=MUTED, linewidth=1, linestyle=":")


def _lane(ax: Axes, y: float, i: int, cells: list[str]) -> None:
    """One GPU's row of blocks from x = 22 to 78."""
    colour = rank_colour(i)
    text(ax, 20.5, y + 3, f"GPU {i}", ha="right", bold=True)
    xs = [22, 36, 47, 58, 70]
    widths = [12, 9, 9, 10, 9]
    for k, (x, w, label) in enumerate(zip(xs, widths, cells, strict=True)):
        box(ax, x, y, w, 6, label, colour=colour if k in (0, 3) else PLAIN)
        if k:
            arrow(ax, (xs[k - 1] + widths[k - 1], y + 3), (x, y + 3))


@figure("mlp-column-row", topic="mlp-split")
def mlp_column_row(ax: Axes, lang: Lang, p: P) -> None:
    """start-02: A by columns, B by rows, f before and g after (Shoeybi et al. Fig. 3a)."""
    title(
        ax,
        L(
            lang,
            "Megatron MLP on 2 GPUs: A by columns, B by rows",
            "2 GPU'da Megatron MLP: A sütunlara, B satırlara",
        ),
    )
    box(ax, 2, 24, 7, 8, "X")
    box(ax, 11, 24, 6, 8, "f", colour=COMM)
    arrow(ax, (9, 28), (11, 28))
    for i, y in enumerate((35, 15)):
        n = "₁₂"[i]
        _lane(ax, y, i, [f"XA{n}", "GeLU", f"Y{n}", f"Y{n}B{n}", f"Z{n}"])
        arrow(ax, (17, 28), (22, y + 3))
        arrow(ax, (79, y + 3), (84, 28))
    box(ax, 84, 24, 6, 8, "g", colour=COMM)
    box(ax, 92, 24, 6, 8, "Z")
    arrow(ax, (90, 28), (92, 28))
    text(
        ax,
        52,
        27.5,
        L(lang, "no communication between the two GEMMs", "iki GEMM arasında iletişim yok"),
        size=SMALL,
        colour=MUTED,
    )
    text(
        ax,
        50,
        8,
        L(
            lang,
            "f: forward identity, backward all-reduce",
            "f: ileri geçişte birim, geri geçişte all-reduce",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        3.5,
        L(
            lang,
            "g: forward all-reduce (Z = Z₁ + Z₂), backward identity",
            "g: ileri geçişte all-reduce (Z = Z₁ + Z₂), geri geçişte birim",
        ),
        size=SMALL,
    )


@figure("tp-in-node", topic="comm-cost")
def tp_in_node(ax: Axes, lang: Lang, p: P) -> None:
    """start-03: TP inside the NVLink of one server, pipeline parallelism across servers."""
    title(
        ax,
        L(
            lang,
            "TP inside a node's NVLink, pipeline across nodes",
            "TP bir düğümün NVLink'inde, pipeline düğümler arasında",
        ),
    )
    for n, x0 in enumerate((3, 55)):
        box(ax, x0, 14, 42, 30, "", colour=PLAIN)
        text(
            ax,
            x0 + 21,
            40.5,
            L(
                lang,
                f"node {n}: TP group of 8 on NVLink",
                f"düğüm {n}: NVLink'te 8 GPU'luk TP grubu",
            ),
            size=SMALL,
            bold=True,
        )
        ax.plot(
            [x0 + 3, x0 + 39], [27, 27], color=rank_colour(5), linewidth=5, alpha=0.6, zorder=0.5
        )
        for g in range(8):
            box(ax, x0 + 3 + g * 4.6, 22, 3.8, 10, str(g), colour=rank_colour(n), size=SMALL)
        text(
            ax,
            x0 + 21,
            17.5,
            L(
                lang,
                "4 all-reduces per layer (2 fwd + 2 bwd)",
                "katman başına 4 all-reduce (2 ileri + 2 geri)",
            ),
            size=SMALL,
        )
    arrow(ax, (45, 29), (55, 29), colour=COMM, both=True)
    text(ax, 50, 33, "IB", size=SMALL, colour=COMM, bold=True)
    text(
        ax,
        50,
        8.5,
        L(
            lang,
            "between nodes: pipeline stages, point-to-point over slower InfiniBand",
            "düğümler arasında: pipeline aşamaları, daha yavaş InfiniBand'de noktadan noktaya",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        3.5,
        L(
            lang,
            "NVL72: the NVLink domain is 72 GPUs over 18 trays",
            "NVL72: NVLink domain'i 18 tray'e yayılan 72 GPU",
        ),
        size=SMALL,
        colour=MUTED,
    )


@figure("attention-heads-split", topic="attention-split")
def attention_heads_split(ax: Axes, lang: Lang, p: P) -> None:
    """start-04: heads dealt to GPUs; QKV column-parallel, output projection row-parallel."""
    title(
        ax,
        L(
            lang,
            "Self-attention on 2 GPUs: split by heads",
            "2 GPU'da self-attention: head'lere göre bölünür",
        ),
    )
    box(ax, 2, 24, 7, 8, "X")
    box(ax, 11, 24, 6, 8, "f", colour=COMM)
    arrow(ax, (9, 28), (11, 28))
    for i, y in enumerate((35, 15)):
        heads = L(lang, f"heads\n{4 * i + 1}–{4 * i + 4}", f"head\n{4 * i + 1}–{4 * i + 4}")
        _lane(ax, y, i, ["Q K V", heads, "softmax", f"·B{'₁₂'[i]}", f"Z{'₁₂'[i]}"])
        arrow(ax, (17, 28), (22, y + 3))
        arrow(ax, (79, y + 3), (84, 28))
    box(ax, 84, 24, 6, 8, "g", colour=COMM)
    box(ax, 92, 24, 6, 8, "Z")
    arrow(ax, (90, 28), (92, 28))
    text(
        ax,
        50,
        9,
        L(
            lang,
            "Q, K, V column-parallel: each head stays on one GPU, no communication",
            "Q, K, V sütun-paralel: her head tek GPU'da kalır, iletişim yok",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        4,
        L(
            lang,
            "output projection B row-parallel: partial outputs summed by all-reduce (g)",
            "çıkış projeksiyonu B satır-paralel: kısmi çıktılar all-reduce (g) ile toplanır",
        ),
        size=SMALL,
    )
