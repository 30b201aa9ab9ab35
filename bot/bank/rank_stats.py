"""Rank strategies: what a member who knows nothing scores by always picking rank k (issue 28 1).

A member who reads no question can still sort the four choices, by length, by number of
words, or (when they are numbers) by value, and always click the second longest, say.
These figures give the best such strategy, with its score and the target:

* the fixed questions beyond the starting eight, per language: by length, by words and,
  for questions whose choices are all numbers, by value; the best rank at most
  `FIXED_TARGET` (chance is 1 in 4);
* the templates, over `STATS_DRAWS` draws each: the key's rank among the four values
  (for a shape, the product of its dimensions), pooled over all templates (at most
  `POOLED_TARGET`) and for the worst single template (at most `TEMPLATE_TARGET`);
  `tpquiz validate` warns on a template whose key sits at one rank in more than
  `WARNING_SHARE` of its draws.

A tie is counted as what the strategy scores on average: a member who always clicks the
second longest, facing two choices of that length, picks one of them at random, so a key
tied with one other choice earns each of its two ranks half a hit (a tie among m choices,
1/m to each of their ranks). That is the strategy's expected score, the figure the
issue's targets are about; a rule that gave every tied rank a whole hit would score a
bank above 100 % in all and make equal lengths, the very balance asked for, look like a
giveaway. Pure functions: the random source for the draws is passed in, nothing is read
or printed here.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.bank.clues import is_exempt
from bot.bank.loader import Problem
from bot.quiz.model import LANGS, Bank, Lang, Question
from bot.quiz.templates import Rejected, Template, TemplateSet

__all__ = [
    "FIXED_TARGET",
    "POOLED_TARGET",
    "STATS_DRAWS",
    "TEMPLATE_TARGET",
    "WARNING_SHARE",
    "RankCounts",
    "choice_value",
    "count_ranks",
    "fixed_rank_counts",
    "format_rank_stats",
    "key_ranks",
    "pooled",
    "rank_warnings",
    "template_rank_counts",
]

FIXED_TARGET = 0.32
POOLED_TARGET = 0.32
TEMPLATE_TARGET = 0.40
WARNING_SHARE = 0.60
STATS_DRAWS = 300
#: Ranks counted: a question has four choices; one with fewer simply never holds rank 3.
RANKS = 4

_NUMBER = r"\d(?:[\d.,]*\d)?"
#: A choice that is a number: a short lead-in ("About ", "Yaklaşık %", "d = ", "("), one
#: number or a shape ("2048×4096", "(16384, 512)"), an optional unit and an optional
#: parenthesis after it ("280 GPUs (35 nodes)"). Anything longer is prose, not a value.
_NUMERIC = re.compile(
    rf"\A(?P<lead>[^\d]{{0,12}}?)(?P<num>{_NUMBER}(?:\s*[×x,]\s*{_NUMBER})*)\)?"
    r"\s*(?P<unit>%|[A-Za-zµ]+(?:/s)?)?\.?\s*(?:\([^()]*\))?\Z"
)
_SCALE: dict[str, Fraction | int] = {
    "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
    "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
    "µs": Fraction(1, 10**6), "ms": Fraction(1, 10**3),
}  # fmt: skip


@dataclass(frozen=True)
class RankCounts:
    """How often the key held each rank (0 = shortest / fewest words / smallest); a tie
    among m choices adds 1/m to each of their ranks."""

    label: str
    posts: int
    hits: tuple[Fraction, ...]

    @property
    def best(self) -> tuple[int, float]:
        """(rank, share) of the best "always pick this rank" strategy."""
        if not self.posts:
            return 0, 0.0
        rank = max(range(len(self.hits)), key=lambda r: (self.hits[r], -r))
        return rank, float(self.hits[rank] / self.posts)

    def share(self, rank: int) -> float:
        return float(self.hits[rank] / self.posts) if self.posts else 0.0


def key_ranks(values: Sequence[Fraction | int], key: int) -> range:
    """The ranks (0 = smallest) the value at `key` holds among `values`: every rank of
    the values equal to it (a tie shares one hit among them: count_ranks)."""
    below = sum(v < values[key] for v in values)
    equal = sum(v == values[key] for v in values)
    return range(below, below + equal)


def count_ranks(label: str, posts: Iterable[tuple[Sequence[Fraction | int], int]]) -> RankCounts:
    """Rank counts over posts given as (values, index of the key)."""
    hits = [Fraction(0)] * RANKS
    total = 0
    for values, key in posts:
        total += 1
        ranks = key_ranks(values, key)
        for rank in ranks:
            if rank < RANKS:
                hits[rank] += Fraction(1, len(ranks))
    return RankCounts(label, total, tuple(hits))


def choice_value(text: str, lang: Lang) -> Fraction | None:
    """The value a choice shows, if it is a number (a shape: the product; a byte or time
    unit: scaled, so that 512 KiB < 1 MiB), else None."""
    match = _NUMERIC.match(text.strip())
    if match is None or any(ch.isdigit() for ch in match["lead"]):
        return None
    thousands, point = (".", ",") if lang == "tr" else (",", ".")
    parts = re.split(r"\s*[×x]\s*|,\s+", match["num"])
    numbers = [p.replace(thousands, "").replace(point, ".") for p in parts]
    try:
        value = Fraction(math.prod(Fraction(n) for n in numbers))
    except ValueError:
        return None
    return value * _SCALE.get(match["unit"] or "", 1)


def _key_index(question: Question) -> int:
    return next(i for i, c in enumerate(question.choices) if c.correct)


def _measured(bank: Bank) -> list[Question]:
    return [q for q in bank if not is_exempt(q) and any(not c.correct for c in q.choices)]


def fixed_rank_counts(bank: Bank, lang: Lang) -> list[RankCounts]:
    """By length, by words and by value (questions whose choices are all numbers), in `lang`,
    over the questions beyond the starting eight."""
    questions = _measured(bank)
    measures: list[tuple[str, Callable[[str], int]]] = [
        ("length", len),
        ("words", lambda text: len(text.split())),
    ]
    found = [
        count_ranks(
            label,
            (([measure(c.text.get(lang)) for c in q.choices], _key_index(q)) for q in questions),
        )
        for label, measure in measures
    ]
    numeric = []
    for q in questions:
        values = [choice_value(c.text.get(lang), lang) for c in q.choices]
        if all(v is not None for v in values):
            numeric.append(([v for v in values if v is not None], _key_index(q)))
    found.append(count_ranks("value", numeric))
    return found


def template_values(template: Template, params: dict[str, Fraction]) -> list[Fraction]:
    """The four values of a post, key first (a shape: the product of its dimensions)."""
    _, choices = template.numbers(params)
    return [Fraction(math.prod(c)) for c in choices]


def template_rank_counts(
    template: Template, rng: random.Random, draws: int = STATS_DRAWS
) -> RankCounts:
    """The key's rank among the four values over `draws` draws with `rng`."""
    posts = []
    for _ in range(draws):
        try:
            posts.append((template_values(template, template.draw(rng)), 0))
        except Rejected:  # pragma: no cover - draw() only returns askable parameters
            continue
    return count_ranks(template.id, posts)


def template_rank_figures(
    templates: TemplateSet | Sequence[Template], draws: int = STATS_DRAWS
) -> list[RankCounts]:
    """template_rank_counts for each template, each with its own seeded random source,
    so that `tpquiz validate` gives the same figures on every run."""
    return [template_rank_counts(t, random.Random(f"ranks:{t.id}"), draws) for t in templates]


def template_rank_problems(
    templates: TemplateSet | Sequence[Template], counts: Sequence[RankCounts]
) -> list[Problem]:
    """A warning, at the template's line, for each template whose key sits at one rank
    in more than WARNING_SHARE of its draws (rank_warnings)."""
    by_id = {t.id: t for t in templates}
    return [
        Problem(
            by_id[c.label].file,
            by_id[c.label].line,
            c.label,
            "distractors",
            f"the key is the {rank_name('value', rank)} value in {share:.0%} of "
            f"{c.posts} draws (more than {WARNING_SHARE:.0%}): a member who always picks "
            "that rank beats chance; add mistakes on the other side of the key",
        )
        for c, rank, share in rank_warnings(counts)
        if c.label in by_id
    ]


def pooled(counts: Sequence[RankCounts], label: str = "pooled") -> RankCounts:
    """All the counts as one."""
    hits = tuple(sum((c.hits[r] for c in counts), Fraction(0)) for r in range(RANKS))
    return RankCounts(label, sum(c.posts for c in counts), hits)


def rank_warnings(counts: Sequence[RankCounts]) -> list[tuple[RankCounts, int, float]]:
    """(template counts, rank, share) for each template whose key sits at one rank in more
    than WARNING_SHARE of its draws."""
    return [(c, *c.best) for c in counts if c.best[1] > WARNING_SHARE]


_VALUE_NAMES = ("smallest", "2nd smallest", "2nd largest", "largest")
_NAMES = {
    "length": ("shortest", "2nd shortest", "2nd longest", "longest"),
    "words": ("fewest words", "2nd fewest words", "2nd most words", "most words"),
    "value": _VALUE_NAMES,
}


def rank_name(measure: str, rank: int) -> str:
    """'2nd longest' for ("length", 2): ranks count from the smallest."""
    return _NAMES.get(measure, _VALUE_NAMES)[rank]


def _line(label: str, counts: RankCounts, measure: str, target: float) -> str:
    rank, share = counts.best
    verdict = "met" if share <= target else "NOT MET"
    if not counts.posts:
        return f"  {label}: no questions"
    return (
        f"  {label}: always the {rank_name(measure, rank)}: {share:.0%} of {counts.posts}"
        f"  target <= {target:.0%}  {verdict}"
    )


def format_rank_stats(
    fixed: Sequence[tuple[Lang, Sequence[RankCounts]]], templates: Sequence[RankCounts]
) -> str:
    """The figures as `tpquiz validate --stats` prints them, each with target and verdict."""
    lines = []
    for lang, counts in fixed:
        lines.append(f"rank strategies ({lang}, questions beyond the starting eight):")
        for c in counts:
            label = "by value (numeric choices)" if c.label == "value" else f"by {c.label}"
            lines.append(_line(label, c, c.label, FIXED_TARGET))
    if templates:
        lines.append(
            f"rank strategies (templates, {len(templates)} x {STATS_DRAWS} draws, by value;"
            " a shape by its product):"
        )
        lines.append(_line("pooled", pooled(templates), "value", POOLED_TARGET))
        worst = max(templates, key=lambda c: (c.best[1], c.label))
        lines.append(_line(f"worst: {worst.label}", worst, "value", TEMPLATE_TARGET))
    lines.append(
        "  (a tie among m choices counts 1/m for each tied rank: the strategy's expected score)"
    )
    return "\n".join(lines) + "\n"


def fixed_figures(bank: Bank) -> list[tuple[Lang, list[RankCounts]]]:
    """fixed_rank_counts for every language."""
    return [(lang, fixed_rank_counts(bank, lang)) for lang in LANGS]
