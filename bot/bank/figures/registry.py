"""The registry of figures: drawing functions of the bank's code, looked up by name.

A question file names a figure (`figure: {name: ring-allreduce-steps, ...}`); it never
holds code. Each drawing function is registered here with the parameters it reads and
their defaults: a fixed question gets the defaults, a computed question (a template)
the values drawn for its post, so the picture shows the numbers the member is asked
about. `draw_figure` builds a matplotlib `Figure` of its own on the Agg canvas (no pyplot:
its global state is not thread-safe), so it can run in an executor off the event loop.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from bot.bank.figures.style import BACKGROUND, DPI, WIDTH_INCHES, canvas_axes
from bot.quiz.model import Lang

__all__ = [
    "REGISTRY",
    "FigureDef",
    "FigureError",
    "draw_figure",
    "figure",
    "figure_params",
    "render_png",
]

#: A drawing function: the axes (0..100 wide, 0..height units tall, 1 unit = 8 px),
#: the language, and the parameters (every one the figure declares, as exact fractions).
DrawFn = Callable[[Axes, Lang, Mapping[str, Fraction]], None]


class FigureError(ValueError):
    """An unknown figure, or parameters it cannot draw (a template's are checked early)."""


@dataclass(frozen=True)
class FigureDef:
    name: str
    topic: str
    draw: DrawFn
    #: Parameters the figure reads, with the value a fixed question draws it with.
    defaults: Mapping[str, Fraction] = field(default_factory=dict)
    #: Height in units of the 100-unit width (so 56 is 800 × 448 px).
    height: float = 56.0


REGISTRY: dict[str, FigureDef] = {}


def figure(
    name: str, *, topic: str, height: float = 56.0, **defaults: int
) -> Callable[[DrawFn], DrawFn]:
    """Register a drawing function under `name` (a decorator)."""

    def register(draw: DrawFn) -> DrawFn:
        if name in REGISTRY:
            raise ValueError(f"figure {name!r} registered twice")
        REGISTRY[name] = FigureDef(
            name, topic, draw, {k: Fraction(v) for k, v in defaults.items()}, height
        )
        return draw

    return register


def figure_params(
    name: str, given: tuple[tuple[str, Fraction], ...] | Mapping[str, Fraction] = ()
) -> tuple[tuple[str, Fraction], ...]:
    """The parameters `name` is drawn with: its defaults, overridden by `given` (only the
    ones it declares, so a template's other values do not split the cache)."""
    spec = REGISTRY.get(name)
    if spec is None:
        raise FigureError(f"no figure named {name!r}")
    values = dict(given)
    return tuple((k, Fraction(values.get(k, v))) for k, v in sorted(spec.defaults.items()))


def draw_figure(
    name: str, lang: Lang, params: tuple[tuple[str, Fraction], ...] | Mapping[str, Fraction] = ()
) -> Figure:
    """The figure, drawn and not yet saved (tests read its text artists)."""
    spec = REGISTRY.get(name)
    if spec is None:
        raise FigureError(f"no figure named {name!r}")
    values = dict(figure_params(name, params))
    fig = Figure(figsize=(WIDTH_INCHES, WIDTH_INCHES * spec.height / 100), dpi=DPI)
    fig.set_facecolor(BACKGROUND)
    FigureCanvasAgg(fig)
    ax = canvas_axes(fig, spec.height)
    try:
        spec.draw(ax, lang, values)
    except (ArithmeticError, ValueError, KeyError) as exc:
        raise FigureError(f"figure {name} cannot be drawn with {values}: {exc}") from exc
    return fig


def render_png(
    name: str, lang: Lang, params: tuple[tuple[str, Fraction], ...] | Mapping[str, Fraction] = ()
) -> bytes:
    """PNG bytes of the figure (8-bit palette-free RGB; simple drawings stay small)."""
    out = io.BytesIO()
    draw_figure(name, lang, params).savefig(
        out, format="png", facecolor=BACKGROUND, metadata={"Software": None}
    )
    return out.getvalue()
