"""Explanation figures of start-05..08: the all-reduce's sum, PTD-P's three dimensions, the
row-parallel partial sums, and the four all-reduces on a layer's critical path.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from matplotlib.axes import Axes

from bot.bank.figures.registry import figure
from bot.bank.figures.style import (
    COMM,
    MUTED,
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


@figure("allreduce-sum", topic="collectives")
def allreduce_sum(ax: Axes, lang: Lang, p: P) -> None:
    """start-05: an all-reduce sums elementwise and leaves the sum on every rank."""
    title(
        ax,
        L(
            lang,
            "all-reduce: an elementwise sum, on every rank",
            "all-reduce: eleman bazında toplam, her rank'te",
        ),
    )
    before = [(1, 2, 3), (4, 0, 1), (2, 2, 2), (0, 1, 5)]
    total = tuple(sum(v[k] for v in before) for k in range(3))
    text(ax, 24, 45, L(lang, "before (partial sums)", "önce (kısmi toplamlar)"), bold=True)
    text(ax, 76, 45, L(lang, "after", "sonra"), bold=True)
    for r, values in enumerate(before):
        y = 35 - r * 8
        text(ax, 6, y + 2.5, f"rank {r}", ha="left", size=SMALL)
        for k, v in enumerate(values):
            box(ax, 18 + k * 7, y, 6, 5, str(v), colour=rank_colour(r))
            box(ax, 66 + k * 7, y, 6, 5, str(total[k]), colour=rank_colour(2))
        text(ax, 58, y + 2.5, f"rank {r}", ha="right", size=SMALL)
    arrow(ax, (42, 23), (52, 23), colour=COMM, width=2.5)
    text(ax, 47, 27, "all-reduce", size=SMALL, colour=COMM, bold=True)
    text(ax, 50, 5, "out[i] = in_0[i] + in_1[i] + in_2[i] + in_3[i]", size=SMALL)


@figure("ptdp-roles", topic="3d-parallelism")
def ptdp_roles(ax: Axes, lang: Lang, p: P) -> None:
    """start-06: PTD-P, what each of the three dimensions splits and where it runs."""
    title(ax, L(lang, "PTD-P: n = p · t · d GPUs", "PTD-P: n = p · t · d GPU"))
    rows = [
        (
            L(lang, "tensor (t)", "tensör (t)"),
            L(lang, "inside a server,\nover NVLink", "bir düğümün içinde,\nNVLink üzerinde"),
            L(lang, "a layer's matrices", "bir katmanın matrisleri"),
        ),
        (
            L(lang, "pipeline (p)", "pipeline (p)"),
            L(lang, "across servers,\npoint-to-point", "düğümler arasında,\nnoktadan noktaya"),
            L(lang, "the layers", "katmanlar"),
        ),
        (
            L(lang, "data (d)", "veri (d)"),
            L(lang, "the remaining scale", "kalan ölçek"),
            L(lang, "the batch", "batch"),
        ),
    ]
    text(ax, 38, 44, L(lang, "runs", "nerede"), bold=True, colour=MUTED)
    text(ax, 78, 44, L(lang, "splits", "neyi böler"), bold=True, colour=MUTED)
    for i, (name, where, splits) in enumerate(rows):
        y = 33 - i * 11
        box(ax, 2, y, 18, 8, name, colour=rank_colour(i), bold=True)
        box(ax, 22, y, 32, 8, where)
        box(ax, 60, y, 36, 8, splits)
        arrow(ax, (54, y + 4), (60, y + 4))
    text(
        ax,
        50,
        4,
        L(
            lang,
            "each dimension removes a different bottleneck",
            "her boyut farklı bir darboğazı çözer",
        ),
        size=SMALL,
    )


@figure("row-parallel-partial-sums", topic="mlp-split")
def row_parallel_partial_sums(ax: Axes, lang: Lang, p: P) -> None:
    """start-07: YB = Y₁B₁ + Y₂B₂, each term full-shaped but partial."""
    title(
        ax,
        L(
            lang,
            "B split by rows: each GPU holds a partial sum of the whole output",
            "B satırlara bölünür: her GPU tüm çıktının kısmi toplamını tutar",
        ),
    )
    # Y (b·s × 4h) split by columns, B (4h × h) split by rows
    box(ax, 3, 24, 8, 14, "Y₁", colour=rank_colour(0))
    box(ax, 11, 24, 8, 14, "Y₂", colour=rank_colour(1))
    text(ax, 21, 31, "×")
    box(ax, 23, 31, 10, 9, "B₁", colour=rank_colour(0))
    box(ax, 23, 22, 10, 9, "B₂", colour=rank_colour(1))
    text(ax, 36, 31, "=")
    box(ax, 39, 24, 10, 14, "Y₁B₁", colour=rank_colour(0))
    text(ax, 51.5, 31, "+")
    box(ax, 54, 24, 10, 14, "Y₂B₂", colour=rank_colour(1))
    text(ax, 51.5, 20, L(lang, "full shape, partial", "tam şekil, kısmi"), size=SMALL)
    arrow(ax, (66, 31), (80, 31), colour=COMM, width=2.5)
    text(ax, 73, 35, "all-reduce (g)", size=SMALL, colour=COMM, bold=True)
    box(ax, 81, 24, 10, 14, "Z", colour=rank_colour(2))
    text(ax, 86, 20, L(lang, "on every GPU", "her GPU'da"), size=SMALL)
    text(ax, 50, 10, "YB = Y₁B₁ + Y₂B₂", bold=True)
    text(
        ax,
        50,
        4.5,
        L(
            lang,
            "then dropout and the residual add on the complete Z",
            "ardından tam Z üzerinde dropout ve artık toplama",
        ),
        size=SMALL,
    )


@figure("tp-sync-points", topic="comm-cost")
def tp_sync_points(ax: Axes, lang: Lang, p: P) -> None:
    """start-08: four all-reduces per layer per micro-batch, each on the critical path."""
    title(
        ax,
        L(
            lang,
            "One layer, one micro-batch: 4 all-reduces on the critical path",
            "Tek katman, tek micro-batch: kritik yolda 4 all-reduce",
        ),
    )
    work = [
        L(lang, "attn", "attn"),
        "MLP",
        L(lang, "MLP bwd", "MLP geri"),
        L(lang, "attn bwd", "attn geri"),
    ]
    for row, (label, comm, y) in enumerate(
        ((L(lang, "NVLink", "NVLink"), 3.0, 33), (L(lang, "slow link", "yavaş bağlantı"), 9.0, 16))
    ):
        text(ax, 19, y + 3.5, label, ha="right", size=SMALL, bold=True)
        x = 20.0
        for name in work:
            box(ax, x, y, 10, 7, name, colour=rank_colour(0), size=SMALL)
            x += 10
            box(ax, x, y, comm, 7, "AR" if comm > 5 else "", colour=COMM, size=SMALL)
            x += comm
        if row == 1:
            ax.plot([x, x], [y - 1, y + 8], color=MUTED, linewidth=1)
    arrow(ax, (20, 44), (97, 44), colour=MUTED)
    text(ax, 97, 46.5, L(lang, "time", "zaman"), ha="right", size=SMALL, colour=MUTED)
    text(
        ax,
        50,
        8.5,
        L(
            lang,
            "the next GEMM waits for each all-reduce (AR)",
            "sonraki GEMM her all-reduce'u (AR) bekler",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        3.5,
        L(
            lang,
            "time of a collective ≈ overhead + size / bandwidth",
            "bir kolektifin süresi ≈ sabit ek yük + boyut / bant genişliği",
        ),
        size=SMALL,
    )
