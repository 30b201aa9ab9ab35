"""Rank strategies (bot/bank/rank_stats.py, issue 28 1) on small banks built here.

A bank built to fail must fail: keys always the second longest, always the second
smallest value, a template whose key can only be second smallest. A tie among m
choices counts 1/m for each tied rank (the strategy's expected score).
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

from bot.bank.rank_stats import (
    FIXED_TARGET,
    POOLED_TARGET,
    TEMPLATE_TARGET,
    RankCounts,
    choice_value,
    fixed_rank_counts,
    format_rank_stats,
    key_ranks,
    pooled,
    rank_warnings,
    template_rank_counts,
)
from bot.bank.template_files import check_templates
from bot.quiz.model import STARTING_TAG, Bank, Choice, Question, Text
from bot.quiz.templates import Template


def q(qid: str, texts: list[str], key: int, tags: frozenset[str] = frozenset()) -> Question:
    choices = tuple(
        Choice(
            Text(tr=t, en=t),
            correct=i == key,
            feedback=None if i == key else Text(tr="değil", en="not"),
        )
        for i, t in enumerate(texts)
    )
    return Question(
        id=qid,
        topic="basics",
        difficulty=1,
        text=Text(tr="Soru?", en="Question?"),
        choices=choices,
        explanation=Text(tr="Açıklama", en="Explanation"),
        source="Shoeybi et al. 2019, 3",
        tags=tags,
    )


def by_label(bank: Bank, lang: str = "en") -> dict[str, RankCounts]:
    return {c.label: c for c in fixed_rank_counts(bank, lang)}  # type: ignore[arg-type]


def test_key_ranks_counts_a_tie_for_every_tied_rank() -> None:
    assert key_ranks([3, 1, 2, 4], 0) == range(2, 3)
    assert key_ranks([2, 1, 2, 4], 0) == range(1, 3)  # tied with one: ranks 1 and 2
    assert key_ranks([5, 5, 5, 5], 2) == range(0, 4)


def test_a_bank_whose_key_is_always_second_longest_fails() -> None:
    bank = Bank.of([q(f"q-{i}", ["aa", "a", "aaaa", "aaa"], 0) for i in range(8)])
    length = by_label(bank)["length"]
    assert length.posts == 8 and length.hits == (0, 8, 0, 0)
    assert length.best == (1, 1.0) and length.best[1] > FIXED_TARGET


def test_a_bank_with_the_key_spread_over_the_ranks_passes() -> None:
    texts = ["a", "aa bb", "aaa bb cc", "aaaa bb cc dd"]
    bank = Bank.of([q(f"q-{k}", texts, k) for k in range(4)])
    for counts in (by_label(bank)["length"], by_label(bank)["words"]):
        assert counts.hits == (1, 1, 1, 1) and counts.best[1] <= FIXED_TARGET


def test_a_tie_shares_one_hit_among_the_tied_ranks() -> None:
    """The key as long as one distractor: a member who always picks that rank clicks one
    of the two at random, so each tied rank earns half a hit."""
    bank = Bank.of(
        [
            q("q-1", ["bb", "aa", "ccc", "d"], 0),  # ranks 1 and 2
            q("q-2", ["bb", "aa", "c", "d"], 0),  # ranks 2 and 3
            q("q-3", ["b", "a", "ccc", "dd"], 0),  # ranks 0 and 1
            q("q-4", ["b", "aaaa", "cc", "dd"], 0),  # rank 0
        ]
    )
    half = Fraction(1, 2)
    assert by_label(bank)["length"].hits == (half + 1, 2 * half, 2 * half, half)
    assert sum(by_label(bank)["length"].hits) == 4  # one hit a question, whatever the ties


def test_the_starting_eight_are_left_out() -> None:
    tag = frozenset({STARTING_TAG})
    bank = Bank.of([q("start-01", ["a", "aa", "aaa", "aaaa"], 3, tag), q("q-1", ["a", "b"], 0)])
    assert by_label(bank)["length"].posts == 1


def test_choice_values_read_both_languages_units_and_shapes() -> None:
    assert choice_value("1,75 GiB", "tr") == Fraction(7, 4) * 2**30
    assert choice_value("1.75 GiB", "en") == Fraction(7, 4) * 2**30
    assert choice_value("512 KiB", "en") == 512 * 2**10  # below 1 MiB, as a reader sees it
    assert choice_value("134.217.728", "tr") == 134217728
    assert choice_value("About 7.3%", "en") == Fraction(73, 10)
    assert choice_value("Yaklaşık %7,3", "tr") == Fraction(73, 10)
    assert choice_value("(16384, 512)", "en") == 16384 * 512
    assert choice_value("4096×16384", "en") == 4096 * 16384
    assert choice_value("280 GPUs (35 nodes)", "en") == 280
    assert choice_value("d = 48", "en") == 48
    assert choice_value("All-reduce", "en") is None
    assert choice_value("Each GPU sends 2(n-1)/n of the data to its neighbour", "en") is None


def test_the_value_rank_counts_only_questions_whose_choices_are_all_numbers() -> None:
    bank = Bank.of(
        [
            q("q-1", ["48 MiB", "24 MiB", "96 MiB", "6 MiB"], 0),  # 2nd largest
            q("q-2", ["1 GiB", "512 MiB", "2 GiB", "4 GiB"], 0),  # 2nd smallest
            q("q-3", ["All-reduce", "Broadcast", "7", "8"], 0),  # not counted
        ]
    )
    value = by_label(bank)["value"]
    assert value.posts == 2 and value.hits == (0, 1, 1, 0)


TEMPLATE = """
- id: tpl-fixed
  topic: collectives
  difficulty: 2
  source: "Patarasuk & Yuan 2009"
  params:
    n: [2, 4, 8]
    S: [8, 16, 32]
  answer:
    value: 2 * (n - 1) / n * S
    unit: MiB
    decimals: 2
  distractors:
    - value: (n - 1) / n * S
      mistake: {tr: "2 unutuldu: {value}", en: "forgot the 2: {value}"}
    - value: 4 * S
      mistake: {tr: "dört kat: {value}", en: "four times: {value}"}
    - value: 8 * S
      mistake: {tr: "sekiz kat: {value}", en: "eight times: {value}"}
MORE
  text:
    tr: "{n} GPU, S = {S} MiB. Her GPU ne kadar gönderir?"
    en: "{n} GPUs, S = {S} MiB. How much does each GPU send?"
  explanation:
    tr: "{answer}"
    en: "{answer}"
"""

BOTH_SIDES = """\
    - value: S / n
      mistake: {tr: "parça: {value}", en: "the chunk: {value}"}
    - value: S / (2 * n)
      mistake: {tr: "yarım parça: {value}", en: "half a chunk: {value}"}
    - value: 16 * S
      mistake: {tr: "on altı kat: {value}", en: "sixteen times: {value}"}"""


def template(tmp_path: Path, more: str = "") -> Template:
    folder = tmp_path / "templates"
    folder.mkdir()
    text = TEMPLATE.replace("MORE\n", more + "\n" if more else "")
    (folder / "t.yaml").write_text(text, encoding="utf-8")
    templates, problems = check_templates([tmp_path])
    assert problems == []
    (found,) = templates
    return found


def test_a_template_whose_key_can_only_be_second_smallest_fails(tmp_path: Path) -> None:
    counts = template_rank_counts(template(tmp_path), random.Random(1), 300)
    assert counts.posts == 300 and counts.hits == (0, 300, 0, 0)
    assert counts.best == (1, 1.0) and counts.best[1] > TEMPLATE_TARGET
    ((warned, rank, share),) = rank_warnings([counts])
    assert (warned.label, rank, share) == ("tpl-fixed", 1, 1.0)


def test_mistakes_on_both_sides_spread_the_key_over_every_rank(tmp_path: Path) -> None:
    """Six mistakes, three each side: the draw reaches each rank about a quarter of the
    time (the draw rule in Template._pick_mistakes), well under the 40 % target."""
    counts = template_rank_counts(template(tmp_path, BOTH_SIDES), random.Random(1), 300)
    assert counts.posts == 300 and sum(counts.hits) == 300  # no ties
    assert all(0.18 <= counts.share(r) <= 0.32 for r in range(4)), counts.hits
    assert counts.best[1] <= TEMPLATE_TARGET and rank_warnings([counts]) == []


def test_pooled_adds_the_counts_and_the_output_names_targets_and_ties() -> None:
    a = RankCounts("tpl-a", 300, (0, 300, 0, 0))
    b = RankCounts("tpl-b", 300, (75, 75, 75, 75))
    both = pooled([a, b])
    assert both.hits == (75, 375, 75, 75) and both.best == (1, 0.625) and both.posts == 600
    fixed = RankCounts("length", 4, (1, 1, 1, 1))
    text = format_rank_stats([("en", [fixed])], [a, b])
    assert text.splitlines() == [
        "rank strategies (en, questions beyond the starting eight):",
        f"  by length: always the shortest: 25% of 4  target <= {FIXED_TARGET:.0%}  met",
        "rank strategies (templates, 2 x 300 draws, by value; a shape by its product):",
        f"  pooled: always the 2nd smallest: 62% of 600  target <= {POOLED_TARGET:.0%}  NOT MET",
        f"  worst: tpl-a: always the 2nd smallest: 100% of 300  target <= {TEMPLATE_TARGET:.0%}"
        "  NOT MET",
        "  (a tie among m choices counts 1/m for each tied rank: the strategy's expected score)",
    ]
