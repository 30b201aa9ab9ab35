"""Figures as code (issue 29): the registry and every drawing function, by name.

Importing this package registers every figure; `REGISTRY` maps a name to its
`FigureDef`. Pure matplotlib (Agg, one `Figure` per drawing), no Discord.
"""

from __future__ import annotations

from bot.bank.figures import (  # noqa: F401 - importing them registers their figures
    collectives,
    layers,
    scale,
    splits,
    starting,
    starting_more,
)
from bot.bank.figures.registry import (
    REGISTRY,
    FigureDef,
    FigureError,
    draw_figure,
    figure_params,
    render_png,
)
from bot.bank.figures.style import legibility_problems, texts_of

__all__ = [
    "REGISTRY",
    "FigureDef",
    "FigureError",
    "draw_figure",
    "figure_params",
    "legibility_problems",
    "render_png",
    "texts_of",
]
