"""Every registered figure draws in both languages within the limits members read it in.

800 px wide, a PNG under 200 KiB, no text under 12 px or cut at the picture's edge (read
through matplotlib's text artists, not pixels), Turkish labels in the glossary's forms;
and a computed question's figure shows the numbers drawn for it.
"""

from __future__ import annotations

import io
from fractions import Fraction

import pytest
from PIL import Image

from bot.bank.figure_checks import MAX_PNG_BYTES, WIDTH_PX, png_size
from bot.bank.figures import (
    REGISTRY,
    FigureError,
    draw_figure,
    figure_params,
    legibility_problems,
    render_png,
    texts_of,
)
from bot.bank.figures.style import MIN_FONT_PT
from bot.bank.glossary import ruled_out_in
from bot.quiz.model import LANGS


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_figure_draws_a_legible_png(name: str, lang: str) -> None:
    png = render_png(name, lang)  # type: ignore[arg-type]
    assert len(png) < MAX_PNG_BYTES
    width, height = png_size(png)
    assert width == WIDTH_PX and 300 <= height <= 600
    with Image.open(io.BytesIO(png)) as image:
        image.verify()
    fig = draw_figure(name, lang)  # type: ignore[arg-type]
    assert legibility_problems(fig) == []
    texts = texts_of(fig)
    assert texts, "a figure without labels teaches nothing"
    if lang == "tr":
        assert [v.found for t in texts for v in ruled_out_in(t)] == []


def test_the_two_languages_differ_where_words_are_drawn() -> None:
    for name in REGISTRY:
        assert texts_of(draw_figure(name, "tr")) != texts_of(draw_figure(name, "en")), name


def test_the_legibility_check_sees_small_and_cut_text() -> None:
    fig = draw_figure("allreduce-sum", "en")
    ax = fig.axes[0]
    ax.text(99, 20, "a label running off the right edge", fontsize=11)
    ax.text(50, 20, "tiny", fontsize=MIN_FONT_PT - 2)
    found = legibility_problems(fig)
    assert any("past the edge" in f for f in found)
    assert any("tiny" in f and "pt" in f for f in found)


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("pipeline-bubble", {"p": 8, "m": 32}, ["(p − 1) / m = 7/32", "p = 8", "m = 32"]),
        (
            "grid-3d",
            {"N": 512, "t": 8, "p": 4},
            ["512 GPUs = t · p · d = 8 · 4 · 16", "= 16 data-parallel replicas"],
        ),
        ("ring-allreduce-volume", {"n": 8, "S": 24}, ["S = 24 MiB", "24 / 8 = 3 MiB", "= 42 MiB"]),
        ("mlp-shard-shapes", {"h": 1024, "t": 4}, ["1,024 × 1,024", "4h / t = 4,096 / 4 = 1,024"]),
        (
            "gqa-heads",
            {"a": 64, "kv": 4, "t": 16},
            ["4 query heads and 1 KV head, copied on 4 GPUs"],
        ),
        (
            "activation-memory",
            {"s": 2048, "b": 1, "h": 12288, "a": 96, "t": 8},
            ["342 MiB", "552 MiB"],
        ),
    ],
)
def test_a_figure_with_parameters_shows_them(
    name: str, params: dict[str, int], expected: list[str]
) -> None:
    values = {k: Fraction(v) for k, v in params.items()}
    texts = " | ".join(texts_of(draw_figure(name, "en", values)))
    for piece in expected:
        assert piece in texts, (piece, texts)
    assert legibility_problems(draw_figure(name, "tr", values)) == []


def test_turkish_numbers_are_written_the_turkish_way() -> None:
    texts = " | ".join(
        texts_of(draw_figure("grid-3d", "tr", {"N": Fraction(2048), "t": 8, "p": 4}))
    )
    assert "2.048 GPU = t · p · d = 8 · 4 · 64" in texts


def test_parameters_outside_a_figure_are_ignored_and_bad_ones_refused() -> None:
    assert figure_params("pipeline-bubble", {"p": Fraction(8), "other": Fraction(1)}) == (
        ("m", Fraction(8)),
        ("p", Fraction(8)),
    )
    with pytest.raises(FigureError):
        draw_figure("grid-3d", "en", {"N": Fraction(10), "t": Fraction(4), "p": Fraction(2)})
    with pytest.raises(FigureError):
        draw_figure("no-such-figure", "en")


def test_the_largest_drawn_numbers_still_fit() -> None:
    """The extremes the templates can draw: 16 stages × 128 micro-batches, 3072 GPUs."""
    for name, params in (
        ("pipeline-bubble", {"p": 16, "m": 128}),
        ("grid-3d", {"N": 3072, "t": 8, "p": 16}),
        ("ring-allreduce-volume", {"n": 16, "S": 96}),
        ("gqa-heads", {"a": 64, "kv": 8, "t": 2}),
        ("gqa-heads", {"a": 64, "kv": 4, "t": 16}),
        ("activation-memory", {"s": 4096, "b": 4, "h": 12288, "a": 96, "t": 2}),
    ):
        values = {k: Fraction(v) for k, v in params.items()}
        for lang in LANGS:
            assert legibility_problems(draw_figure(name, lang, values)) == [], (name, lang)
