"""How every figure looks: size, palette, type sizes, and the few shapes they are made of.

* 800 px wide (8 in at 100 dpi), so a phone shows it without scaling text below 12 px:
  the smallest type is 9.5 pt = 13 px, and `legibility_problems` refuses less.
* An opaque light card (Discord light theme's secondary grey) with near-black ink: it
  reads the same on Discord's dark and light themes, which a transparent picture cannot
  (its ink would vanish on one of them).
* Okabe & Ito's colour-blind-safe palette (Color Universal Design, 2008), one colour per
  GPU rank, always with a label as well: colour is never the only carrier of meaning.

Coordinates: the axes span 0..100 across and 0..height up, one unit = 8 px both ways.
"""

from __future__ import annotations

from fractions import Fraction

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from bot.quiz.model import Lang
from bot.quiz.numbers import format_number

WIDTH_INCHES = 8.0
DPI = 100
BACKGROUND = "#f2f3f5"
INK = "#1e1f22"
MUTED = "#5c5e66"
#: Okabe-Ito, in the order ranks take them (dark ink reads on each; blue takes white).
RANKS = ("#56b4e9", "#e69f00", "#009e73", "#cc79a7", "#f0e442", "#0072b2", "#d55e00", "#bbbbbb")
LIGHT_INK_ON = frozenset({"#0072b2"})
#: Roles that are not ranks.
COMM = "#d55e00"  # communication (vermillion)
IDLE = "#d9d9de"  # idle time, a bubble
PLAIN = "#ffffff"  # a block no GPU owns

#: The gid of a box's label: the box's x,y,w,h follow, in data units.
BOX_GID = "box:"

TITLE = 13.0
BODY = 11.0
SMALL = 9.5
#: 12 px at 100 dpi is 8.64 pt; the floor keeps a margin above it.
MIN_FONT_PT = 9.5


def L(lang: Lang, en: str, tr: str) -> str:  # noqa: N802 - reads as a label in the figures
    """The label in the reader's language (Turkish checked against the glossary)."""
    return tr if lang == "tr" else en


def num(value: Fraction | int, lang: Lang, decimals: int | None = None) -> str:
    """A number as the question's text writes it (Turkish: 1.024 and 2,5)."""
    return format_number(Fraction(value), lang, decimals=decimals)


def whole(value: Fraction, what: str) -> int:
    """A parameter that counts something (GPUs, heads): a positive whole number."""
    if value.denominator != 1 or value <= 0:
        raise ValueError(f"{what} must be a positive whole number, got {value}")
    return int(value)


def rank_colour(i: int) -> str:
    return RANKS[i % len(RANKS)]


def ink_on(colour: str) -> str:
    return "#ffffff" if colour in LIGHT_INK_ON else INK


def canvas_axes(fig: Figure, height: float) -> Axes:
    """One axes over the whole figure, in units of 8 px, with nothing of its own shown."""
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 100)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return ax


def title(ax: Axes, text: str, y: float | None = None) -> None:
    top = ax.get_ylim()[1]
    ax.text(
        50,
        top - 2.2 if y is None else y,
        text,
        ha="center",
        va="top",
        fontsize=TITLE,
        fontweight="bold",
        color=INK,
    )


def text(
    ax: Axes,
    x: float,
    y: float,
    s: str,
    *,
    size: float = BODY,
    ha: str = "center",
    va: str = "center",
    colour: str = INK,
    bold: bool = False,
) -> Text:
    return ax.text(
        x, y, s, ha=ha, va=va, fontsize=size, color=colour, fontweight="bold" if bold else "normal"
    )


def box(
    ax: Axes,
    x: float,
    y: float,
    w: float,
    h: float,
    label: str = "",
    *,
    colour: str = PLAIN,
    size: float = BODY,
    bold: bool = False,
    edge: str = INK,
    dashed: bool = False,
) -> None:
    """A rounded box with its lower-left corner at (x, y) and a centred label."""
    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle="round,pad=0,rounding_size=0.8",
            facecolor=colour,
            edgecolor=edge,
            linewidth=1.2,
            linestyle="--" if dashed else "-",
        )
    )
    if label:
        inside = text(ax, x + w / 2, y + h / 2, label, size=size, colour=ink_on(colour), bold=bold)
        # Remembered for `legibility_problems`: a label must stay inside its box.
        inside.set_gid(f"{BOX_GID}{x},{y},{w},{h}")


def arrow(
    ax: Axes,
    start: tuple[float, float],
    end: tuple[float, float],
    *,
    colour: str = INK,
    both: bool = False,
    width: float = 1.4,
    curve: float = 0.0,
    shrink: float = 0.0,
) -> None:
    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle="<|-|>" if both else "-|>",
            mutation_scale=13,
            color=colour,
            linewidth=width,
            connectionstyle=f"arc3,rad={curve}",
            shrinkA=shrink,
            shrinkB=shrink,
        )
    )


def legibility_problems(fig: Figure) -> list[str]:
    """Text under the size floor, reaching past the picture's edge (cut off), or drawn
    over another text (two labels that overlap read as neither)."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    width, height = fig.bbox.width, fig.bbox.height
    found: list[str] = []
    placed: list[tuple[str, Bbox]] = []
    for artist in fig.findobj(Text):
        content = artist.get_text()
        if not content or not artist.get_visible():
            continue
        size = float(artist.get_fontsize())
        if size < MIN_FONT_PT:
            found.append(f"text {content!r} is {size} pt, under {MIN_FONT_PT}")
        extent = artist.get_window_extent(renderer)
        if extent.x0 < 0 or extent.y0 < 0 or extent.x1 > width or extent.y1 > height:
            found.append(f"text {content!r} reaches past the edge of the picture")
        gid = artist.get_gid() or ""
        if gid.startswith(BOX_GID) and artist.axes is not None:
            x, y, w, h = (float(v) for v in gid.removeprefix(BOX_GID).split(","))
            (x0, y0), (x1, y1) = artist.axes.transData.transform([(x, y), (x + w, y + h)])
            if extent.x0 < x0 - 1 or extent.x1 > x1 + 1 or extent.y0 < y0 - 1 or extent.y1 > y1 + 1:
                found.append(f"text {content!r} spills out of its box")
        inner = extent.expanded(0.98, 0.9)  # touching is fine; covering is not
        for other, box_ in placed:
            if inner.overlaps(box_):
                found.append(f"text {content!r} overlaps {other!r}")
        placed.append((content, inner))
    return found


def texts_of(fig: Figure) -> list[str]:
    """Every piece of text the figure shows (tests check numbers and the glossary)."""
    return [a.get_text() for a in fig.findobj(Text) if a.get_text()]
