"""Every bundled template, drawn hundreds of times, against formulas written again here.

`EXPECTED` restates each template's right answer and its three mistakes in Python, from
the sources, independently of the template file: a typo in a file's formula makes the
two disagree. The texts are then read back as numbers (English and Turkish conventions)
and compared with these values, within the rounding the choice shows.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction

import pytest

from bot.quiz.model import (
    MAX_CHOICE_TEXT,
    MAX_EXPLANATION,
    MAX_FEEDBACK,
    MAX_QUESTION_TEXT,
    TOPICS,
    Lang,
    Question,
)
from bot.quiz.template_files import load_templates
from bot.quiz.templates import Template

DRAWS = 300
MiB = Fraction(2**20)

P = Mapping[str, Fraction]
Numbers = Fraction | tuple[Fraction, ...]


def _ring(p: P) -> list[Numbers]:
    n, size = p["n"], p["b"] * p["s"] * p["h"] * 2 / MiB
    return [2 * (n - 1) / n * size, (n - 1) / n * size, 2 * size, (n - 1) * size]


def _reduce_scatter(p: P) -> list[Numbers]:
    t, size = p["t"], p["b"] * p["s"] * p["h"] * 2 / MiB
    return [(t - 1) / t * size, 2 * (t - 1) / t * size, size / t, (t - 1) * size]


def _mlp_b(p: P) -> list[Numbers]:
    h, t = p["h"], p["t"]
    f = 4 * h
    return [(f / t, h), (f, h / t), (f / t, h / t), (f, h)]


def _activations_sp(p: P) -> list[Numbers]:
    s, b, h, a, t = p["s"], p["b"], p["h"], p["a"], p["t"]
    sbh = s * b * h / MiB
    return [
        sbh / t * (34 + 5 * a * s / h),  # Korthikanti et al. 2022, Eq. 3 (TP + SP)
        sbh * (10 + 24 / t + 5 * a * s / (h * t)),  # Eq. 2 (TP only)
        sbh * (34 + 5 * a * s / h),  # Eq. 1 (no TP)
        sbh * 34 / t,  # the 5as/h term left out
    ]


def _bubble(p: P) -> list[Numbers]:
    pp, m = p["p"], p["m"]
    return [(pp - 1) / m * 100, pp / m * 100, 2 * (pp - 1) / m * 100, (pp - 1) / (2 * m) * 100]


EXPECTED: dict[str, Callable[[P], list[Numbers]]] = {
    "tpl-ring-allreduce-bytes": _ring,
    "tpl-reduce-scatter-bytes": _reduce_scatter,
    "tpl-mlp-b-shard-shape": _mlp_b,
    "tpl-activation-memory-tp-sp": _activations_sp,
    "tpl-pipeline-bubble": _bubble,
}

TEMPLATES = list(load_templates())
IDS = [t.id for t in TEMPLATES]


def read_back(text: str, lang: Lang) -> tuple[tuple[Decimal, ...], int]:
    """The number(s) a choice shows, and how many decimals it shows them with."""
    number = r"[0-9][0-9.,]*"
    found = re.findall(number, text)
    assert found, text
    values = []
    places = 0
    for raw in found:
        thousands, point = (".", ",") if lang == "tr" else (",", ".")
        whole, _, fraction = raw.replace(thousands, "").partition(point)
        places = len(fraction)
        values.append(Decimal(f"{whole}.{fraction}" if fraction else whole))
    return tuple(values), places


@functools.cache
def draws(template: Template) -> list[tuple[dict[str, Fraction], Question]]:
    """DRAWS seeded draws of `template` (shared by the tests below)."""
    rng = random.Random(f"test:{template.id}")
    found = []
    for _ in range(DRAWS):
        params = template.draw(rng)
        found.append((params, template.materialize(params)))
    return found


def test_every_template_has_an_independent_formula_here() -> None:
    assert sorted(EXPECTED) == sorted(IDS)


def test_at_least_twenty_templates_across_eight_topics() -> None:
    topics = {t.topic for t in TEMPLATES}
    assert topics <= set(TOPICS)
    assert len(TEMPLATES) >= 5 and len(topics) >= 5  # raised as templates are added


@pytest.mark.parametrize("template", TEMPLATES, ids=IDS)
def test_keys_and_mistakes_equal_the_formulas(template: Template) -> None:
    for params, question in draws(template):
        expected = EXPECTED[template.id](params)
        for choice, value in zip(question.choices, expected, strict=True):
            numbers = value if isinstance(value, tuple) else (value,)
            for lang in ("tr", "en"):
                shown, places = read_back(choice.text.get(lang), lang)
                assert len(shown) == len(numbers), (choice.text, params)
                for got, want in zip(shown, numbers, strict=True):
                    error = abs(Fraction(got) - want)
                    assert error <= Fraction(1, 2 * 10**places), (template.id, params, lang)
                    if template.count or len(numbers) > 1:
                        assert want.denominator == 1, (template.id, params)


@pytest.mark.parametrize("template", TEMPLATES, ids=IDS)
def test_choices_differ_look_alike_and_every_text_fits(template: Template) -> None:
    for params, question in draws(template):
        assert question.correct_index == 0 and len(question.choices) == 4
        for lang in ("tr", "en"):
            texts = [c.text.get(lang) for c in question.choices]
            assert len(set(texts)) == 4, (template.id, params, texts)
            # One format for all four: the same unit and the same number of decimals.
            shapes = {re.sub(r"[0-9]", "9", re.sub(r"[0-9.,]+", "N", t)) for t in texts}
            assert len(shapes) == 1, texts
            assert len({read_back(t, lang)[1] for t in texts}) == 1, texts
            strings = [
                (question.text.get(lang), MAX_QUESTION_TEXT),
                (question.explanation.get(lang), MAX_EXPLANATION),
                *((t, MAX_CHOICE_TEXT) for t in texts),
                *(
                    (c.feedback.get(lang), MAX_FEEDBACK)
                    for c in question.choices[1:]
                    if c.feedback is not None
                ),
            ]
            assert len(strings) == 2 + 4 + 3
            for text, limit in strings:
                assert 0 < len(text) <= limit, (template.id, text)
                assert "{" not in text and "}" not in text, text


@pytest.mark.parametrize("template", TEMPLATES, ids=IDS)
def test_every_parameter_value_can_be_drawn(template: Template) -> None:
    """Constraints and redraws must not silently leave a listed value out."""
    seen: dict[str, set[Fraction]] = {p.name: set() for p in template.params}
    for params, _ in draws(template):
        for name, value in params.items():
            seen[name].add(value)
    for param in template.params:
        assert seen[param.name], param.name
        if len(param.values) <= 8:
            assert seen[param.name] == set(param.values), (template.id, param.name)
