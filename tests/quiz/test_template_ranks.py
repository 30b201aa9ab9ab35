"""The draw rule that spreads a template's key over the four ranks (issue 28 1):
Template.draw chooses the key's rank evenly first, then redraws parameters and picks
the shown mistakes until the four values put the key there; a three in which a mistake
equals the key (a tie, which would give the key two ranks at once) is not shown."""

from __future__ import annotations

import math
import random
from pathlib import Path

from bot.bank.rank_stats import template_rank_counts, template_values
from bot.bank.template_files import check_templates
from bot.quiz.templates import Template

HEAD = """
- id: tpl-test
  topic: collectives
  difficulty: 2
  source: "Patarasuk & Yuan 2009"
  text:
    tr: "S = {S}. Kaç?"
    en: "S = {S}. How many?"
  explanation:
    tr: "{answer}"
    en: "{answer}"
"""

#: Three mistakes, each on a side of the key that its own parameter decides: drawn at
#: random, the key sits at rank 1 or 2 three times in four (a binomial), so "always
#: the second smallest" scores about 37 %.
SIDES = (
    HEAD
    + """\
  params:
    S: [1, 2, 3]
    a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19]
    b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19]
    c: [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19]
  where:
    - a != b and b != c and a != c
  answer:
    value: 10 * S
    count: true
  distractors:
    - value: a * S
      mistake: {tr: "a: {value}", en: "a: {value}"}
    - value: b * S
      mistake: {tr: "b: {value}", en: "b: {value}"}
    - value: c * S
      mistake: {tr: "c: {value}", en: "c: {value}"}
"""
)

#: A shape with a transposed mistake: same product as the key, a tie.
SHAPES = (
    HEAD
    + """\
  params:
    S: [64, 128, 256]
  answer:
    value: [S, 4 * S]
  distractors:
    - value: [4 * S, S]
      mistake: {tr: "ters: {value}", en: "transposed: {value}"}
    - value: [S, S]
      mistake: {tr: "dörtte bir: {value}", en: "a quarter: {value}"}
    - value: [S / 2, S]
      mistake: {tr: "sekizde bir: {value}", en: "an eighth: {value}"}
    - value: [S, 8 * S]
      mistake: {tr: "iki kat: {value}", en: "twice: {value}"}
    - value: [S, 16 * S]
      mistake: {tr: "dört kat: {value}", en: "four times: {value}"}
    - value: [S / 4, S]
      mistake: {tr: "on altıda bir: {value}", en: "a sixteenth: {value}"}
"""
)


def load(tmp_path: Path, text: str) -> Template:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "t.yaml").write_text(text, encoding="utf-8")
    templates, problems = check_templates([tmp_path])
    assert problems == []
    (template,) = templates
    return template


def test_parameters_are_redrawn_until_the_key_sits_at_the_chosen_rank(tmp_path: Path) -> None:
    """Three mistakes only: the parameters alone move the key's rank, and the draw
    balances it over the four ranks instead of leaving it in the middle."""
    counts = template_rank_counts(load(tmp_path, SIDES), random.Random(5), 400)
    assert counts.posts == 400 and sum(counts.hits) == 400
    assert all(0.18 <= counts.share(r) <= 0.32 for r in range(4)), counts.hits


def test_a_mistake_equal_to_the_key_is_not_shown_beside_it(tmp_path: Path) -> None:
    template = load(tmp_path, SHAPES)
    rng = random.Random(2)
    for _ in range(200):
        params = template.draw(rng)
        key, *others = template_values(template, params)
        assert key not in others, (params, template.shown(params))
        assert 0 not in template.shown(params)  # the transposed shape always ties
    # With the tie left out only two mistakes are larger: the key is never the
    # smallest, and the other three ranks share the draws evenly.
    counts = template_rank_counts(template, random.Random(3), 400)
    assert counts.hits[0] == 0 and sum(counts.hits) == 400
    assert max(counts.hits) <= 0.40 * 400, counts.hits
    assert math.isclose(sum(counts.share(r) for r in range(4)), 1.0)
