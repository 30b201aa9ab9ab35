"""The ring all-reduce: step by step on 4 GPUs (which chunk each GPU has summed after each
of the 2(n−1) steps), and the volume per GPU for a computed question's n and S
(Patarasuk & Yuan 2009; nccl-tests PERFORMANCE.md, factor 2(n−1)/n).
"""

from __future__ import annotations

import math
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
from bot.quiz.numbers import exact_decimals

P = Mapping[str, Fraction]


def _amount(value: Fraction, lang: Lang) -> str:
    """Exactly when four decimals or fewer say it, else to two decimals."""
    places = exact_decimals(value)
    return num(value, lang, None if places is not None and places <= 4 else 2)


@figure("ring-allreduce-steps", topic="collectives", height=60)
def ring_allreduce_steps(ax: Axes, lang: Lang, p: P) -> None:
    """n = 4: what each GPU holds of each chunk after every step (summed contributions)."""
    n = 4
    title(
        ax,
        L(lang, "Ring all-reduce on 4 GPUs, step by step", "4 GPU'da ring all-reduce, adım adım"),
    )
    held = [[1] * n for _ in range(n)]  # held[gpu][chunk]: contributions summed
    panels = []
    for k in range(n - 1):  # reduce-scatter: GPU i sends chunk (i - k) mod n to i + 1
        sent = [(i, (i - k) % n) for i in range(n)]
        new = [row[:] for row in held]
        for i, c in sent:
            new[(i + 1) % n][c] = held[(i + 1) % n][c] + held[i][c]
        held = new
        panels.append((f"RS {k + 1}", held))
    for k in range(n - 1):  # all-gather: GPU i sends its complete chunk (i + 1 - k) mod n
        new = [row[:] for row in held]
        for i in range(n):
            new[(i + 1) % n][(i + 1 - k) % n] = n
        held = new
        panels.append((f"AG {k + 1}", held))
    cell = 3.2
    for idx, (name, state) in enumerate(panels):
        x0 = 11 + idx * 14.5
        text(ax, x0 + 2 * cell, 48, name, bold=True, size=SMALL)
        for g in range(n):
            for c in range(n):
                full = state[g][c] == n
                box(
                    ax,
                    x0 + c * cell,
                    40 - g * cell - cell,
                    cell * 0.92,
                    cell * 0.92,
                    str(state[g][c]),
                    colour=rank_colour(2) if full else PLAIN,
                    size=SMALL,
                )
    for g in range(n):
        text(ax, 10.5, 40 - g * cell - cell / 2, f"GPU {g}", ha="right", size=SMALL)
    text(
        ax,
        50,
        20,
        L(
            lang,
            "columns: the 4 chunks of S/4; a cell: how many GPUs' values it has summed",
            "sütunlar: S/4'lük 4 parça; hücre: kaç GPU'nun değerini toplamış olduğu",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        14,
        L(
            lang,
            "reduce-scatter (RS): n − 1 = 3 steps, each GPU sends one chunk a step",
            "reduce-scatter (RS): n − 1 = 3 adım, her GPU adım başına bir parça gönderir",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        9,
        L(
            lang,
            "all-gather (AG): 3 more steps pass the finished chunks around",
            "all-gather (AG): 3 adım daha, biten parçaları dolaştırır",
        ),
        size=SMALL,
    )
    text(
        ax,
        50,
        4,
        L(
            lang,
            "each GPU sends 2(n − 1) · S/n = 6 · S/4 = 1.5 S",
            "her GPU 2(n − 1) · S/n = 6 · S/4 = 1,5 S gönderir",
        ),
        size=SMALL,
        bold=True,
    )


@figure("ring-allreduce-volume", topic="collectives", n=8, S=64)
def ring_allreduce_volume(ax: Axes, lang: Lang, p: P) -> None:
    """A ring of n GPUs with S/n chunks: 2(n−1) steps, 2(n−1)/n · S sent per GPU."""
    n = whole(p["n"], "n")
    size = p["S"]
    title(
        ax,
        L(
            lang,
            f"Ring all-reduce: n = {n} GPUs, S = {_amount(size, lang)} MiB",
            f"Ring all-reduce: n = {n} GPU, S = {_amount(size, lang)} MiB",
        ),
    )
    cx, cy, r = 22, 26, 15
    for i in range(n):
        angle = math.pi / 2 - 2 * math.pi * i / n
        x, y = cx + r * math.cos(angle), cy + r * math.sin(angle)
        nxt = math.pi / 2 - 2 * math.pi * (i + 1) / n
        arrow(
            ax,
            (x, y),
            (cx + r * math.cos(nxt), cy + r * math.sin(nxt)),
            colour=COMM,
            curve=-0.2,
            shrink=12,
        )
        box(ax, x - 2.3, y - 2.3, 4.6, 4.6, str(i), colour=rank_colour(i), size=SMALL)
    chunk = size / n
    lines = [
        L(
            lang,
            f"chunk: S / n = {_amount(size, lang)} / {n} = {_amount(chunk, lang)} MiB",
            f"parça: S / n = {_amount(size, lang)} / {n} = {_amount(chunk, lang)} MiB",
        ),
        L(
            lang,
            f"reduce-scatter: n − 1 = {n - 1} steps, one chunk each",
            f"reduce-scatter: n − 1 = {n - 1} adım, her adımda bir parça",
        ),
        L(
            lang,
            f"all-gather: n − 1 = {n - 1} steps, one chunk each",
            f"all-gather: n − 1 = {n - 1} adım, her adımda bir parça",
        ),
        L(
            lang,
            f"each GPU sends 2 · {n - 1} · {_amount(chunk, lang)} = {_amount(2 * (n - 1) * chunk, lang)} MiB",
            f"her GPU 2 · {n - 1} · {_amount(chunk, lang)} = {_amount(2 * (n - 1) * chunk, lang)} MiB gönderir",
        ),
    ]
    for k, line in enumerate(lines):
        text(ax, 42, 38 - k * 7, line, ha="left", bold=k == 3)
    text(
        ax,
        50,
        4,
        L(
            lang,
            "each GPU sends only to its neighbour: 2(n − 1)/n · S, under 2S for any n",
            "her GPU yalnızca komşusuna gönderir: 2(n − 1)/n · S, her n için 2S'nin altında",
        ),
        size=SMALL,
        colour=MUTED,
    )
