"""`tpquiz validate`'s drawing check: every figure the bank names, drawn in both languages.

The loader checks names, alt texts and a template's parameters without drawing (a bot
restart should not wait for matplotlib). Here each figure a question names is drawn once
per language, and each template's figure with a few seeded draws of its numbers; a figure
that raises, weighs MAX_PNG_BYTES or more, is not WIDTH_PX wide, has text under the size
floor or cut at the edge, or shows a Turkish form the glossary rules out, is reported at
the question's `file:line`. `figure_jobs` also feeds `tpquiz figures`, which writes them.
"""

from __future__ import annotations

import io
import random
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from bot.bank.figures import FigureError, draw_figure, figure_params, legibility_problems, texts_of
from bot.bank.glossary import ruled_out_in
from bot.bank.problems import Problem
from bot.quiz.model import LANGS, Bank, FigureRef, Lang
from bot.quiz.templates import TemplateSet

__all__ = [
    "MAX_PNG_BYTES",
    "TEMPLATE_DRAWS",
    "WIDTH_PX",
    "FigureJob",
    "figure_jobs",
    "figure_problems",
]

MAX_PNG_BYTES = 200 * 1024
WIDTH_PX = 800
#: Seeded draws of each template whose figure is drawn (its numbers change the picture).
TEMPLATE_DRAWS = 3


@dataclass(frozen=True)
class FigureJob:
    """One picture to draw: whose it is, which field, the figure and its parameters."""

    owner: str
    field: str
    file: str
    line: int
    ref: FigureRef

    @property
    def params(self) -> tuple[tuple[str, Fraction], ...]:
        return figure_params(self.ref.name, self.ref.params)


def figure_jobs(
    bank: Bank, templates: TemplateSet, draws: int = TEMPLATE_DRAWS
) -> Iterator[FigureJob]:
    """Every figure of the bank, and each template's with `draws` seeded draws."""
    for question in bank:
        for field, ref in (
            ("figure", question.figure),
            ("explanation_figure", question.explanation_figure),
        ):
            if ref is not None:
                yield FigureJob(question.id, field, question.file, question.line, ref)
    for template in templates:
        if template.figure is None and template.explanation_figure is None:
            continue
        rng = random.Random(f"figures:{template.id}")
        for _ in range(draws):
            question = template.materialize(template.draw(rng))
            for field, ref in (
                ("figure", question.figure),
                ("explanation_figure", question.explanation_figure),
            ):
                if ref is not None:
                    yield FigureJob(template.id, field, template.file, template.line, ref)


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def draw_job(job: FigureJob, lang: Lang) -> tuple[bytes, list[str]]:
    """The PNG and what is wrong with it (nothing, for a good figure)."""
    fig = draw_figure(job.ref.name, lang, job.params)
    found = legibility_problems(fig)
    if lang == "tr":
        for text in texts_of(fig):
            found += [
                f"{v.found!r} is ruled out by docs/glossary.md; write {v.term.turkish!r}"
                for v in ruled_out_in(text)
            ]
    out = io.BytesIO()
    fig.savefig(out, format="png", facecolor=fig.get_facecolor(), metadata={"Software": None})
    png = out.getvalue()
    if len(png) >= MAX_PNG_BYTES:
        found.append(
            f"the PNG is {len(png) // 1024} KiB, over the {MAX_PNG_BYTES // 1024} KiB limit"
        )
    if png_size(png)[0] != WIDTH_PX:
        found.append(f"the PNG is {png_size(png)[0]} px wide, not {WIDTH_PX}")
    return png, found


def figure_problems(bank: Bank, templates: TemplateSet) -> list[Problem]:
    """Each failure of drawing the bank's figures, at its question's file:line."""
    problems: list[Problem] = []
    seen: set[tuple[str, tuple[tuple[str, Fraction], ...]]] = set()
    for job in figure_jobs(bank, templates):
        key = (job.ref.name, job.params)
        if key in seen:
            continue
        seen.add(key)
        for lang in LANGS:
            try:
                found = draw_job(job, lang)[1]
            except FigureError as exc:
                found = [str(exc)]
            for message in found:
                problems.append(
                    Problem(
                        job.file,
                        job.line,
                        job.owner,
                        f"{job.field}.name",
                        f"{job.ref.name} ({lang}): {message}",
                    )
                )
    return problems
