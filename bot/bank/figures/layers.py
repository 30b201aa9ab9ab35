"""Figures of what sits around the split: sequence parallelism's all-gather and
reduce-scatter around the layer norm (Korthikanti et al. 2022, Fig. 5), and data against
tensor parallelism (what each copies, splits and communicates).
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
SUB = "₀₁₂₃₄₅₆₇₈₉"


@figure("sp-layernorm", topic="sequence-parallel")
def sp_layernorm(ax: Axes, lang: Lang, p: P) -> None:
    """Korthikanti et al. Fig. 5: g all-gathers before the TP block, ḡ reduce-scatters after."""
    title(
        ax,
        L(
            lang,
            "Sequence parallelism around a TP block (t = 2)",
            "TP bloğunun çevresinde sequence parallelism (t = 2)",
        ),
    )
    for i, y in enumerate((33, 15)):
        colour = rank_colour(i)
        box(
            ax,
            2,
            y,
            15,
            7,
            L(lang, f"LayerNorm\ns/2, GPU {i}", f"LayerNorm\ns/2, GPU {i}"),
            colour=colour,
            size=SMALL,
        )
        box(
            ax,
            33,
            y,
            24,
            7,
            L(lang, "attention or MLP\n(tensor parallel)", "attention ya da MLP\n(tensör-paralel)"),
            colour=PLAIN,
            size=SMALL,
        )
        box(
            ax,
            73,
            y,
            15,
            7,
            L(lang, f"dropout\ns/2, GPU {i}", f"dropout\ns/2, GPU {i}"),
            colour=colour,
            size=SMALL,
        )
        arrow(ax, (17, y + 3.5), (22, 27.5))
        arrow(ax, (27, 27.5), (33, y + 3.5))
        arrow(ax, (57, y + 3.5), (62, 27.5))
        arrow(ax, (67, 27.5), (73, y + 3.5))
    box(ax, 22, 23, 5, 9, "g", colour=COMM)
    box(ax, 62, 23, 5, 9, "ḡ", colour=COMM)
    text(
        ax,
        50,
        9,
        L(
            lang,
            "g: forward all-gather of the sequence, backward reduce-scatter",
            "g: ileri geçişte dizinin all-gather'ı, geri geçişte reduce-scatter",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        4,
        L(
            lang,
            "ḡ: forward reduce-scatter, backward all-gather (same volume as one all-reduce)",
            "ḡ: ileri geçişte reduce-scatter, geri geçişte all-gather (bir all-reduce kadar veri)",
        ),
        size=SMALL,
    )


@figure("dp-vs-tp", topic="vs-other-parallelism")
def dp_vs_tp(ax: Axes, lang: Lang, p: P) -> None:
    """Data parallelism copies the weights and splits the batch; TP does the opposite."""
    text(ax, 25, 52, L(lang, "Data parallelism", "Veri paralelliği"), bold=True)
    text(ax, 75, 52, L(lang, "Tensor parallelism", "Tensör paralelliği"), bold=True)
    for i in range(2):
        y = 34 - i * 14
        box(
            ax,
            4,
            y,
            18,
            9,
            L(lang, f"batch part {i + 1}", f"batch parçası {i + 1}"),
            colour=rank_colour(i),
            size=SMALL,
        )
        box(ax, 27, y, 18, 9, L(lang, f"GPU {i}: all of W", f"GPU {i}: W'nin tamamı"), size=SMALL)
        arrow(ax, (22, y + 4.5), (27, y + 4.5))
        box(ax, 54, y, 18, 9, L(lang, "the whole batch", "batch'in tamamı"), size=SMALL)
        box(ax, 77, y, 18, 9, f"GPU {i}: W{'₁₂'[i]}", colour=rank_colour(i), size=SMALL)
        arrow(ax, (72, y + 4.5), (77, y + 4.5))
    text(
        ax,
        25,
        12,
        L(lang, "all-reduce of gradients, once a step", "adım başına bir gradyan all-reduce'u"),
        size=SMALL,
    )
    text(
        ax,
        75,
        12,
        L(
            lang,
            "all-reduces of activations, in every layer",
            "her katmanda aktivasyon all-reduce'ları",
        ),
        size=SMALL,
    )
    text(
        ax,
        25,
        6,
        L(lang, "memory for weights: not reduced", "ağırlık belleği: azalmaz"),
        size=SMALL,
        colour=MUTED,
    )
    text(
        ax,
        75,
        6,
        L(lang, "memory for weights: ÷ t", "ağırlık belleği: ÷ t"),
        size=SMALL,
        colour=MUTED,
    )
    ax.plot([50, 50], [3, 50], color=MUTED, linewidth=1, linestyle=":")
