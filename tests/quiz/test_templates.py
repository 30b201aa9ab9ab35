"""The template engine and its file checks, on small templates written here."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from bot.bank.template_files import check_templates
from bot.quiz.expressions import parse
from bot.quiz.model import Bank
from bot.quiz.picking import pick_question
from bot.quiz.templates import (
    COMPUTED_TAG,
    MISTAKES_KEY,
    Rejected,
    TemplateError,
    TemplateSet,
    decode_params,
    encode_params,
)
from tests.factories import make_question

RING = """
- id: tpl-ring
  topic: collectives
  difficulty: 2
  source: "Patarasuk & Yuan 2009"
  params:
    n: [2, 4, 8]
    S: {from: 8, to: 16, step: 8}
  answer:
    value: 2 * (n - 1) / n * S
    unit: MiB
    decimals: 2
  distractors:
    - value: (n - 1) / n * S
      mistake: {tr: "2 unutuldu: {value}", en: "forgot the 2: {value}"}
    - value: 2 * S
      mistake: {tr: "n yerine 1: {value}", en: "1 instead of (n-1)/n: {value}"}
    - value: S / n
      mistake: {tr: "parça: {value}", en: "the chunk: {value}"}
  text:
    tr: "{n} GPU, S = {S} MiB. Her GPU ne kadar gönderir?"
    en: "{n} GPUs, S = {S} MiB. How much does each GPU send?"
  explanation:
    tr: "2({n}−1)/{n} × {S} = {answer}"
    en: "2({n}−1)/{n} × {S} = {answer}"
"""


def load(tmp_path: Path, text: str, bank: Bank | None = None) -> tuple[TemplateSet, list[str]]:
    directory = tmp_path / "templates"
    directory.mkdir(exist_ok=True)
    (directory / "t.yaml").write_text(text, encoding="utf-8")
    templates, problems = check_templates([tmp_path], bank)
    return templates, [str(p) for p in problems]


def ring(tmp_path: Path) -> TemplateSet:
    templates, problems = load(tmp_path, RING)
    assert problems == []
    return templates


def test_a_draw_fills_every_placeholder_in_both_languages(tmp_path: Path) -> None:
    (template,) = ring(tmp_path)
    question = template.materialize({"n": Fraction(4), "S": Fraction(8)})
    assert question.id == "tpl-ring" and COMPUTED_TAG in question.tags
    assert question.text.en == "4 GPUs, S = 8 MiB. How much does each GPU send?"
    assert [c.text.en for c in question.choices] == ["12 MiB", "6 MiB", "16 MiB", "2 MiB"]
    assert question.correct_index == 0
    assert question.explanation.tr == "2(4−1)/4 × 8 = 12 MiB"
    assert question.choices[1].feedback is not None
    assert question.choices[1].feedback.en == "forgot the 2: 6 MiB"


def test_choices_share_one_number_of_decimals(tmp_path: Path) -> None:
    (template,) = ring(tmp_path)
    question = template.materialize({"n": Fraction(8), "S": Fraction(8)})
    # 14, 7, 16 and 1 are whole: no decimals for any of them.
    assert [c.text.tr for c in question.choices] == ["14 MiB", "7 MiB", "16 MiB", "1 MiB"]
    question = template.materialize({"n": Fraction(8), "S": Fraction(12)})
    assert [c.text.tr for c in question.choices] == ["21,0 MiB", "10,5 MiB", "24,0 MiB", "1,5 MiB"]


def test_a_draw_where_two_choices_read_the_same_is_drawn_again(tmp_path: Path) -> None:
    (template,) = ring(tmp_path)
    # n = 2: (n-1)/n*S == S/n, so two choices would be equal.
    with pytest.raises(Rejected, match="two choices read the same"):
        template.materialize({"n": Fraction(2), "S": Fraction(8)})
    rng = random.Random(0)
    drawn = [template.draw(rng)["n"] for _ in range(300)]
    assert Fraction(2) not in drawn and set(drawn) == {4, 8}


def test_constraints_and_counts_reject_a_draw(tmp_path: Path) -> None:
    text = RING.replace("    decimals: 2\n", "    count: true\n").replace(
        "  answer:", "  where:\n    - S == 8\n  answer:"
    )
    (template,) = load(tmp_path, text)[0]
    with pytest.raises(Rejected, match="constraint fails: S == 8"):
        template.materialize({"n": Fraction(4), "S": Fraction(16)})
    template.materialize({"n": Fraction(8), "S": Fraction(8)})  # 14, 7, 16, 1: all whole
    with pytest.raises(Rejected, match="not a whole number"):
        template.materialize({"n": Fraction(16), "S": Fraction(8)})  # 15/16 * 8 = 7.5


def test_a_template_that_can_never_be_asked_fails_with_a_clear_error(tmp_path: Path) -> None:
    never = RING.replace("value: S / n", "value: 2 * (n - 1) / n * S")
    templates, problems = load(tmp_path, never)
    assert len(templates) == 0
    assert (
        len(problems) == 1 and "tpl-ring: params: template tpl-ring: no usable draw" in problems[0]
    )
    assert "200 tries" in problems[0] and "two choices read the same" in problems[0]
    # The engine itself stops after its tries and says why.
    (template,) = ring(tmp_path)
    impossible = replace(template, where=(parse("n > 100"),))
    with pytest.raises(TemplateError, match=r"no usable draw in 5 tries \(constraint fails"):
        impossible.draw(random.Random(1), tries=5)


def test_stored_parameters_give_back_the_same_question(tmp_path: Path) -> None:
    templates = ring(tmp_path)
    (template,) = templates
    params = template.draw(random.Random(7))
    stored = encode_params(params)
    assert decode_params(stored) == params
    assert templates.question("tpl-ring", stored) == template.materialize(params)
    with pytest.raises(TemplateError):
        templates.question("tpl-ring", '{"n": "2", "S": "8"}')  # no longer askable
    with pytest.raises(TemplateError):
        templates.question("tpl-gone", stored)
    with pytest.raises(TemplateError):
        templates.question("tpl-ring", "not json")


def test_the_pool_counts_a_template_as_one_question_of_its_topic(tmp_path: Path) -> None:
    templates = ring(tmp_path)
    bank = Bank.of([make_question("basics-01"), make_question("c-01", topic="collectives")])
    pool = templates.pool(bank)
    assert len(pool) == 3 and "tpl-ring" in pool
    assert {q.id for q in pool.by_topic("collectives")} == {"c-01", "tpl-ring"}
    picked = {pick_question(pool, random.Random(i), topic="collectives").id for i in range(40)}
    assert picked == {"c-01", "tpl-ring"}
    with pytest.raises(ValueError, match="tpl-ring"):
        templates.pool(Bank.of([make_question("tpl-ring")]))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("value: 2 * S", "value: __import__('os')"), "only these functions may be called"),
        (("value: 2 * S", "value: 2 * X"), "unknown name(s) X"),
        (("{n} GPUs", "{m} GPUs"), "text.en: unknown placeholder {m}"),
        (("topic: collectives", "topic: gossip"), "topic: one of"),
        (("unit: MiB", "unit: parsecs"), "answer.unit"),
        (("  difficulty: 2\n", "  difficulty: 2\n  colour: red\n"), "colour: unknown field"),
        (("n: [2, 4, 8]", "n: []"), "params.n"),
        (('      mistake: {tr: "parça: {value}", en: "the chunk: {value}"}\n', ""), ""),
    ],
)
def test_problems_name_the_file_line_template_and_field(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    assert RING.count(change[0]) >= 1
    templates, problems = load(tmp_path, RING.replace(change[0], change[1], 1))
    assert len(templates) == 0 and problems
    first = problems[0]
    assert first.startswith(f"{tmp_path / 'templates' / 't.yaml'}:") and "tpl-ring" in first
    assert expected in "\n".join(problems)


def test_a_broken_distractor_is_reported_at_its_own_line(tmp_path: Path) -> None:
    _, problems = load(tmp_path, RING.replace("value: 2 * S", "value: 2 * X"))
    line = RING.splitlines().index("    - value: 2 * X".replace("X", "S")) + 1
    assert problems == [
        f"{tmp_path / 'templates' / 't.yaml'}:{line}: tpl-ring: distractors[1].value[0]:"
        " unknown name(s) X"
    ]


def test_a_template_id_used_by_a_question_is_refused(tmp_path: Path) -> None:
    _, problems = load(tmp_path, RING, Bank.of([make_question("tpl-ring")]))
    assert len(problems) == 1 and problems[0].endswith("tpl-ring: id: a question's id")


def test_a_template_with_more_mistakes_shows_three_drawn_and_stores_which(
    tmp_path: Path,
) -> None:
    extra = RING.replace(
        "  text:\n",
        '    - value: (n - 1) * S\n      mistake: {tr: "saf: {value}", en: "naive: {value}"}\n'
        "  text:\n",
        1,
    )
    templates, problems = load(tmp_path, extra)
    assert problems == []
    (template,) = templates
    rng = random.Random(3)
    seen = set()
    for _ in range(100):
        params = template.draw(rng)
        shown = template.shown(params)
        assert len(shown) == 3 and params[MISTAKES_KEY] == sum(1 << i for i in shown)
        question = templates.question(template.id, encode_params(params))
        assert len(question.choices) == 4
        feedback = [c.feedback.en for c in question.choices[1:] if c.feedback is not None]
        assert len(feedback) == 3
        seen.update(shown)
    assert seen == {0, 1, 2, 3}
    with pytest.raises(Rejected, match="does not pick 3 mistakes"):
        template.materialize({"n": Fraction(4), "S": Fraction(8), MISTAKES_KEY: Fraction(1)})
