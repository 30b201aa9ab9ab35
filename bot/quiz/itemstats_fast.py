"""Item statistics over plain rows: `bank_stats` at a million first answers (issue #13).

`bot.quiz.itemstats.bank_stats` is the straightforward definition, written over
`FirstAnswer` records. Two faster ways to exactly the same figures (tests/quiz/
test_itemstats_fast.py compares them with it on random data):

- `bank_stats_rows`, over the plain tuples of the first answers: member totals in two
  `Counter`s, a sort per question for the thirds, `statistics.correlation` per
  question. About 8 s at a million answers (docs/performance.md 7): every step walks
  every answer in Python bytecode.
- `bank_stats_member_rows`, what `tpquiz questions report` and the admin view's refresh
  use: SQLite does the per-member pass (`bot.storage.sqlite.itemstats.member_rows`: each row
  arrives with its member's accuracy on their other answers, in (guild, user) order),
  and Python only counts, mostly in C: the correlation from how often each distinct
  (right, accuracy) pair occurs, with the same exact sums `statistics.correlation`
  makes (`exact_correlation`), and the thirds from how many members share each
  accuracy, without sorting the answers.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress
from math import sqrt
from operator import itemgetter

from bot.quiz.itemstats import (
    FirstAnswer,
    Item,
    ItemStats,
    _correlation,
    member_totals,
    sort_stats,
    with_flags,
)

#: One first answer as the storage reads it: (guild, user, question, choice, correct 0/1).
Row = tuple[int, int, str, int, int]


def bank_stats_rows(
    items: Iterable[Item],
    rows: Sequence[Row],
    open_reports: Mapping[str, int] | None = None,
) -> list[ItemStats]:
    """`bank_stats` over plain rows (correct must be 0 or 1): the same list, same order."""
    answered: Counter[tuple[int, int]] = Counter()
    right: Counter[tuple[int, int]] = Counter()
    by_question: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        key = (row[0], row[1])
        answered[key] += 1
        if row[4]:
            right[key] += 1
        by_question[row[2]].append(row)
    reports = open_reports or {}
    found = [
        _item_stats(
            item,
            by_question.get(item.question_id, []),
            answered,
            right,
            reports.get(item.question_id, 0),
        )
        for item in items
    ]
    return sort_stats(found)


def _item_stats(
    item: Item,
    rows: list[Row],
    answered: Mapping[tuple[int, int], int],
    right: Mapping[tuple[int, int], int],
    open_reports: int,
) -> ItemStats:
    n = item.n_choices
    chosen = Counter(row[3] for row in rows)
    picks = tuple(chosen.get(i, 0) for i in range(n))
    correct = sum(row[4] for row in rows)
    count = len(rows)
    # The same tuples as item_stats ranks: (-rest accuracy, guild, user, right?, choice).
    ranked: list[tuple[float, int, int, int, int]] = []
    append = ranked.append
    for g, u, _, c, r in rows:
        total = answered[(g, u)]
        if total > 1:
            rest = (right.get((g, u), 0) - r) / (total - 1)
            append((-rest, g, u, r, c))
    discrimination = _correlation([float(r[3]) for r in ranked], [-r[0] for r in ranked])
    ranked.sort()
    third = len(ranked) // 3
    top = Counter(r[4] for r in ranked[:third])
    bottom = Counter(r[4] for r in ranked[len(ranked) - third :]) if third else Counter()
    stats = ItemStats(
        question_id=item.question_id,
        answers=count,
        correct=correct,
        facility=correct / count if count else None,
        discrimination=discrimination,
        ranked=len(ranked),
        picks=picks,
        top_picks=tuple(top.get(i, 0) for i in range(n)),
        bottom_picks=tuple(bottom.get(i, 0) for i in range(n)),
        key_index=item.key_index,
        open_reports=open_reports,
    )
    return with_flags(stats, item)


# -- rows that arrive with their member's figures (SQLite did the per-member pass) ----

#: One first answer as `bot.storage.sqlite.itemstats.member_rows` reads it, in (guild, user)
#: order: (question, correct 0/1, the member's accuracy on their *other* first answers or
#: None when they have no other, choice).
MemberRow = tuple[str, int, float | None, int]


def member_rows(answers: Iterable[FirstAnswer]) -> list[MemberRow]:
    """What `bot.storage.sqlite.itemstats.member_rows` reads from the database, computed in
    Python: the straightforward definition of those rows, for tests and small sets."""
    ordered = sorted(answers, key=lambda a: (a.guild_id, a.user_id))
    totals = member_totals(ordered)
    rows: list[MemberRow] = []
    for a in ordered:
        answered, right = totals[(a.guild_id, a.user_id)]
        rest = (right - a.correct) / (answered - 1) if answered > 1 else None
        rows.append((a.question_id, int(a.correct), rest, a.choice_index))
    return rows


def bank_stats_member_rows(
    items: Iterable[Item],
    rows: Sequence[MemberRow],
    open_reports: Mapping[str, int] | None = None,
) -> list[ItemStats]:
    """`bank_stats` over rows in (guild, user) order that carry each member's accuracy on
    their other answers: the same list, same order, same figures.

    The rows are walked twice, both times in C: once to count each distinct row (a
    member's row is (question, right, accuracy, choice): at a million answers there are
    some tens of thousands of distinct ones), once to pick out the members tied at the
    edge of a third, who are split in (guild, user) order as a sort by (-accuracy,
    guild, user) would split them. Everything else is over the distinct rows: counts,
    the correlation (`exact_correlation`) and the thirds level by level.
    """
    distinct: dict[str, list[tuple[int, float | None, int, int]]] = defaultdict(list)
    for (question, right, rest, choice), members in Counter(rows).items():
        distinct[question].append((right, rest, choice, members))
    parts = [_Question(item, distinct.get(item.question_id, [])) for item in items]
    wanted = {(p.item.question_id, level) for p in parts for level, _, _ in p.edges}
    tied: dict[tuple[str, float], list[int]] = defaultdict(list)
    if wanted:
        for question, _, rest, choice in compress(rows, map(wanted.__contains__, map(_AT, rows))):
            tied[(question, rest)].append(choice)  # type: ignore[index]
    reports = open_reports or {}
    return sort_stats(p.stats(tied, reports.get(p.item.question_id, 0)) for p in parts)


#: (question, accuracy) of a row, to find the members tied at a third's edge.
_AT = itemgetter(0, 2)


class _Question:
    """One question's figures from its distinct rows; the thirds but for the members
    tied at their edges (`edges`: accuracy, how many of them, top third or not)."""

    def __init__(self, item: Item, distinct: list[tuple[int, float | None, int, int]]):
        self.item = item
        self.answers = sum(m for _, _, _, m in distinct)
        self.correct = sum(m for right, _, _, m in distinct if right)
        self.picks: Counter[int] = Counter()
        pairs: Counter[tuple[int, float]] = Counter()
        by_level: dict[float, Counter[int]] = defaultdict(Counter)
        for right, rest, choice, members in distinct:
            self.picks[choice] += members
            if rest is not None:
                pairs[(right, rest)] += members
                by_level[rest][choice] += members
        self.ranked = sum(pairs.values())
        self.discrimination = exact_correlation(pairs)
        self.top: Counter[int] = Counter()
        self.bottom: Counter[int] = Counter()
        self.edges: list[tuple[float, int, bool]] = []
        third = self.ranked // 3
        if third:
            levels = sorted(by_level, reverse=True)
            self._band(self.top, levels, by_level, third, top=True)
            self._band(self.bottom, levels[::-1], by_level, third, top=False)

    def _band(
        self,
        picks: Counter[int],
        levels: list[float],
        by_level: Mapping[float, Counter[int]],
        size: int,
        *,
        top: bool,
    ) -> None:
        """Take `size` members level by level (best accuracy first for the top third,
        worst first for the bottom one); the level that does not fit whole is an edge."""
        taken = 0
        for level in levels:
            counts = by_level[level]
            members = sum(counts.values())
            if taken + members > size:
                self.edges.append((level, size - taken, top))
                return
            picks.update(counts)
            taken += members
            if taken == size:
                return

    def stats(self, tied: Mapping[tuple[str, float], list[int]], open_reports: int) -> ItemStats:
        """The figures, the members at the edges taken from `tied` (their choices in
        (guild, user) order): the first ones for the top third, the last for the bottom."""
        for level, need, top in self.edges:
            choices = tied[(self.item.question_id, level)]
            if top:
                self.top.update(choices[:need])
            else:
                self.bottom.update(choices[len(choices) - need :])
        n = self.item.n_choices
        stats = ItemStats(
            question_id=self.item.question_id,
            answers=self.answers,
            correct=self.correct,
            facility=self.correct / self.answers if self.answers else None,
            discrimination=self.discrimination,
            ranked=self.ranked,
            picks=tuple(self.picks.get(i, 0) for i in range(n)),
            top_picks=tuple(self.top.get(i, 0) for i in range(n)),
            bottom_picks=tuple(self.bottom.get(i, 0) for i in range(n)),
            key_index=self.item.key_index,
            open_reports=open_reports,
        )
        return with_flags(stats, self.item)


def exact_correlation(pairs: Mapping[tuple[int, float], int]) -> float | None:
    """`statistics.correlation(xs, ys)` (None where `_correlation` gives None) for the
    points `pairs` counts, without walking every point.

    Python 3.11's correlation is fsum(x)/n, fsum(y)/n, then fsum of each product of
    deviations; `math.fsum` is the correctly rounded exact sum, so the sum of `count`
    equal terms is the exact `count * term` rounded once, which integer arithmetic on
    the floats' exact ratios gives: every intermediate float is the one correlation
    computes, and so is the result (tests/quiz/test_itemstats_fast.py compares them).
    """
    n = sum(pairs.values())
    if n < 2:
        return None
    xbar = _exact_sum((float(x), m) for (x, _), m in pairs.items()) / n
    ybar = _exact_sum((y, m) for (_, y), m in pairs.items()) / n
    sxy = _exact_sum(((x - xbar) * (y - ybar), m) for (x, y), m in pairs.items())
    sxx = _exact_sum(((x - xbar) * (x - xbar), m) for (x, _), m in pairs.items())
    syy = _exact_sum(((y - ybar) * (y - ybar), m) for (_, y), m in pairs.items())
    try:
        return sxy / sqrt(sxx * syy)
    except ZeroDivisionError:  # constant input: no spread to correlate
        return None


def _exact_sum(terms: Iterable[tuple[float, int]]) -> float:
    """fsum of each float repeated its count of times, without repeating it: the exact
    sum of the floats' integer ratios (their denominators are powers of two), rounded
    once by int division."""
    ratios = [(value.as_integer_ratio(), count) for value, count in terms]
    scale = max(den for (_, den), _ in ratios)
    return sum(num * count * (scale // den) for (num, den), count in ratios) / scale
