"""The `figure` and `explanation_figure` fields: the loader, the template reader and
`tpquiz validate` accept good ones and put every mistake at its `file:line`."""

from __future__ import annotations

import io
import json
import random
import shutil
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from bot.bank import figures as figure_package
from bot.bank.figure_checks import figure_jobs, figure_problems
from bot.bank.figures import draw_figure, texts_of
from bot.bank.figures.registry import REGISTRY, FigureDef
from bot.bank.loader import bundled_question_files, check_files, load_bank
from bot.bank.template_files import check_templates, load_templates
from bot.cli.bank import main
from bot.quiz.model import STARTING_TAG
from tests.quiz.test_loader import FIXTURES
from tests.quiz.test_templates import RING

QUESTION = """\
- id: fig-01
  topic: collectives
  difficulty: 1
  text: {tr: "all-reduce sonunda her rank ne tutar?", en: "What does each rank hold after an all-reduce?"}
  choices:
    - text: {tr: "Toplamı", en: "The sum"}
      correct: true
    - text: {tr: "Kendi girdisini", en: "Its own input"}
      feedback: {tr: "Hayır, toplamı tutar.", en: "No, it holds the sum."}
  explanation: {tr: "all-reduce toplamı her rank'e bırakır.", en: "An all-reduce leaves the sum on every rank."}
  source: "NCCL User Guide, Collective Operations"
"""


def write(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "q.yaml"
    path.write_text(QUESTION + extra, encoding="utf-8")
    return path


def problems_of(tmp_path: Path, extra: str) -> list[str]:
    bank, problems = check_files([write(tmp_path, extra)])
    assert (bank is None) == bool(problems)
    return [str(p) for p in problems]


def test_a_named_figure_with_alt_text_is_loaded(tmp_path: Path) -> None:
    extra = (
        "  figure:\n    name: allreduce-sum\n"
        '    alt: {tr: "Dört rank ve toplamları", en: "Four ranks and their sum"}\n'
    )
    bank, problems = check_files([write(tmp_path, extra)])
    assert problems == [] and bank is not None
    ref = bank["fig-01"].figure
    assert ref is not None and ref.name == "allreduce-sum" and ref.params == ()
    assert ref.alt.en == "Four ranks and their sum"
    assert bank["fig-01"].explanation_figure is None


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            '  figure:\n    name: allreduce-summ\n    alt: {tr: "a", en: "b"}\n',
            "q.yaml:13: fig-01: figure.name: no figure named 'allreduce-summ'; "
            "did you mean 'allreduce-sum'?",
        ),
        (
            "  explanation_figure:\n    name: allreduce-sum\n",
            "q.yaml:12: fig-01: explanation_figure.alt: missing alt text",
        ),
        (
            '  figure:\n    name: allreduce-sum\n    alt: {tr: "yalnızca Türkçe"}\n',
            "q.yaml:14: fig-01: figure.alt.en: missing language en",
        ),
        (
            "  figure: allreduce-sum\n",
            "q.yaml:12: fig-01: figure: must be a mapping {name: <figure>, alt:",
        ),
        (
            '  figure:\n    name: allreduce-sum\n    alt: {tr: "a", en: "b"}\n    size: 3\n',
            "q.yaml:15: fig-01: figure.size: unknown key 'size'",
        ),
        (
            '  figure:\n    name: allreduce-sum\n    alt: {tr: "tensör paralelizm", en: "b"}\n',
            "q.yaml:14: fig-01: figure.alt.tr: 'tensör paralelizm' is a form docs/glossary.md rules out",
        ),
        (
            f'  figure:\n    name: allreduce-sum\n    alt: {{tr: "a", en: "{"x" * 501}"}}\n',
            "q.yaml:14: fig-01: figure.alt.en: is 501 characters, over the limit of 500",
        ),
    ],
)
def test_a_bad_figure_field_is_reported_at_its_line(
    tmp_path: Path, extra: str, expected: str
) -> None:
    found = problems_of(tmp_path, extra)
    assert any(expected in p for p in found), found


FIGURED_RING = (
    RING
    + """\
  explanation_figure:
    name: ring-allreduce-volume
    alt: {tr: "{n} GPU'luk ring, S = {S} MiB", en: "A ring of {n} GPUs, S = {S} MiB"}
"""
)


def template_problems(tmp_path: Path, text: str) -> list[str]:
    directory = tmp_path / "templates"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "t.yaml").write_text(text, encoding="utf-8")
    return [str(p) for p in check_templates([tmp_path])[1]]


def test_a_template_figure_gets_the_drawn_numbers_and_fills_its_alt(tmp_path: Path) -> None:
    assert template_problems(tmp_path, FIGURED_RING) == []
    (template,) = load_templates([tmp_path])
    question = template.materialize({"n": Fraction(4), "S": Fraction(8)})
    ref = question.explanation_figure
    assert ref is not None and ref.name == "ring-allreduce-volume"
    assert dict(ref.params) == {"n": 4, "S": 8}
    assert ref.alt.en == "A ring of 4 GPUs, S = 8 MiB" and ref.alt.tr == "4 GPU'luk ring, S = 8 MiB"


def test_a_template_figure_must_find_its_parameters(tmp_path: Path) -> None:
    text = FIGURED_RING.replace("name: ring-allreduce-volume", "name: pipeline-bubble")
    found = template_problems(tmp_path, text)
    assert any(
        ": tpl-ring: explanation_figure.name: figure pipeline-bubble reads m, p, which this "
        "template neither draws (params) nor computes (let)" in p
        for p in found
    ), found
    line = next(p for p in found if "pipeline-bubble" in p).split(":")[1]
    assert line == str(FIGURED_RING.splitlines().index("    name: ring-allreduce-volume") + 1)


def test_a_template_figure_with_an_unknown_name_or_no_alt_is_refused(tmp_path: Path) -> None:
    text = FIGURED_RING.replace("name: ring-allreduce-volume", "name: ring")
    assert any("no figure named 'ring'" in p for p in template_problems(tmp_path, text))
    text = FIGURED_RING.split("    alt:")[0]
    assert any("needs exactly name" in p for p in template_problems(tmp_path / "b", text))


@pytest.fixture
def broken_figure() -> Iterator[str]:
    """A figure that raises when drawn, registered for one test."""

    def draw(*_: object) -> None:
        raise ValueError("a planted failure")

    REGISTRY["planted-broken"] = FigureDef("planted-broken", "basics", draw)
    try:
        yield "planted-broken"
    finally:
        del REGISTRY["planted-broken"]


def test_validate_draws_each_figure_and_reports_a_failure_at_file_line(
    tmp_path: Path, broken_figure: str
) -> None:
    for file in (FIXTURES / "good").glob("*.yaml"):
        shutil.copy(file, tmp_path / file.name)
    extra = f'  figure:\n    name: {broken_figure}\n    alt: {{tr: "a", en: "b"}}\n'
    path = write(tmp_path, extra)
    out, err = io.StringIO(), io.StringIO()
    assert main(["validate", str(tmp_path)], stdout=out, stderr=err) == 1
    assert (
        f"{path}:1: fig-01: figure.name: planted-broken (tr): figure planted-broken cannot be drawn"
        in err.getvalue()
    )
    assert "a planted failure" in err.getvalue()


def test_the_bundled_bank_draws_every_figure_without_a_problem() -> None:
    bank = load_bank()
    templates = load_templates(bank=bank)
    assert figure_problems(bank, templates) == []


def test_the_bank_has_the_figures_the_issue_asks_for() -> None:
    bank = load_bank()
    templates = load_templates(bank=bank)
    starting = bank.tagged(STARTING_TAG)
    assert len(starting) == 8 and all(q.explanation_figure is not None for q in starting)
    named = {j.ref.name for j in figure_jobs(bank, templates, draws=1)}
    starting_names = {q.explanation_figure.name for q in starting if q.explanation_figure}
    others = named - starting_names
    assert len(starting_names) == 8 and len(others) >= 12
    assert len({REGISTRY[n].topic for n in others}) >= 8
    with_own_numbers = [t for t in templates if t.figure or t.explanation_figure]
    assert len(with_own_numbers) >= 6
    assert all(REGISTRY[(t.figure or t.explanation_figure).name].defaults for t in with_own_numbers)  # type: ignore[union-attr]
    assert set(REGISTRY) == named, "every registered figure is used by the bank"


def test_the_schema_lists_exactly_the_registered_figures() -> None:
    schema_path = bundled_question_files()[0].parent / "question.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    assert schema["$defs"]["figure"]["properties"]["name"]["enum"] == sorted(REGISTRY)
    assert figure_package.REGISTRY is REGISTRY


def test_a_question_figure_does_not_show_the_key() -> None:
    """A figure shown with the question must not print the right choice (or, for a
    template, its number): checked on the figure's own text, in both languages."""
    bank = load_bank()
    templates = load_templates(bank=bank)
    shown = [q for q in bank if q.figure is not None]
    drawn = [
        q
        for t in templates
        if t.figure is not None
        for q in (t.materialize(t.draw(random.Random(n))) for n in range(5))
    ]
    assert shown, "the bank shows at least one figure with a question"
    for question in [*shown, *drawn]:
        assert question.figure is not None
        for lang in ("en", "tr"):
            texts = " ".join(
                texts_of(draw_figure(question.figure.name, lang, question.figure.params))
            )
            key = question.choices[question.correct_index].text.get(lang)
            assert key not in texts, (question.id, lang, key)
