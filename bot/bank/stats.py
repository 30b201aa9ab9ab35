"""Bank-wide choice-balance figures for `tpquiz validate --stats` (issue 9 1).

Per-question clue checks (clues.py) catch the worst questions; these figures show the
bank drifting before any one question is bad. Measured per language over the questions
beyond the starting eight (the original quiz, kept verbatim), each with its target:

* the share of questions whose key is at least as long as every other choice: chance is
  1 in 4, the target at most 30 %;
* the median of key length / mean distractor length: 0.85 to 1.15;
* the number of questions whose key is over 1.5x the longest distractor: 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.bank.clues import ERROR_LONGEST_RATIO, is_exempt, key_ratios, median
from bot.quiz.model import LANGS, Bank, Lang

__all__ = [
    "LONGEST_SHARE_TARGET",
    "MEDIAN_RATIO_TARGET",
    "BalanceFigures",
    "balance",
    "format_balance",
]

LONGEST_SHARE_TARGET = 0.30
MEDIAN_RATIO_TARGET = (0.85, 1.15)


@dataclass(frozen=True)
class BalanceFigures:
    """The three figures for one language."""

    lang: Lang
    questions: int
    key_longest: int
    median_ratio: float
    over_limit: int

    @property
    def longest_share(self) -> float:
        return self.key_longest / self.questions if self.questions else 0.0

    @property
    def longest_met(self) -> bool:
        return self.longest_share <= LONGEST_SHARE_TARGET

    @property
    def median_met(self) -> bool:
        low, high = MEDIAN_RATIO_TARGET
        return self.questions == 0 or low <= self.median_ratio <= high

    @property
    def over_met(self) -> bool:
        return self.over_limit == 0


def balance(bank: Bank) -> list[BalanceFigures]:
    """The figures per language, over the questions that are not exempt."""
    questions = [q for q in bank if not is_exempt(q) and any(not c.correct for c in q.choices)]
    figures = []
    for lang in LANGS:
        key_longest = 0
        ratios: list[float] = []
        over = 0
        for q in questions:
            mean_ratio, longest_ratio = key_ratios(q, lang)
            ratios.append(mean_ratio)
            key_longest += longest_ratio >= 1.0
            over += longest_ratio > ERROR_LONGEST_RATIO
        figures.append(BalanceFigures(lang, len(questions), key_longest, median(ratios), over))
    return figures


def format_balance(figures: list[BalanceFigures]) -> str:
    """The figures as `tpquiz validate --stats` prints them, each with target and verdict."""
    low, high = MEDIAN_RATIO_TARGET

    def verdict(met: bool) -> str:
        return "met" if met else "NOT MET"

    lines = []
    for f in figures:
        rows = (
            (
                "key at least as long as every other choice",
                f"{f.key_longest} ({f.longest_share:.0%})",
                f"<= {LONGEST_SHARE_TARGET:.0%}",
                f.longest_met,
            ),
            ("median key / mean distractor length", f"{f.median_ratio:.2f}",
             f"{low:.2f}-{high:.2f}", f.median_met),
            (f"key over {ERROR_LONGEST_RATIO}x the longest distractor", str(f.over_limit), "0",
             f.over_met),
        )  # fmt: skip
        lines.append(
            f"choice balance ({f.lang}, {f.questions} questions beyond the starting eight):"
        )
        lines += [
            f"  {label:<43} {value:>9}  target {target:<9}  {verdict(met)}"
            for label, value, target, met in rows
        ]
    return "\n".join(lines) + "\n"
