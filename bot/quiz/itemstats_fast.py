"""Item statistics over plain rows: `bank_stats` at a million first answers (issue #13).

`bot.quiz.itemstats.bank_stats` is the straightforward definition, written over
`FirstAnswer` records; at 1,000,000 first answers building those records and walking
them question by question took about 7 s, over the report's goal of 5 s. This computes
exactly the same figures (tests/quiz/test_itemstats_fast.py compares the two on random
data) from the plain tuples the database returns, without a per-answer object:

- member totals are two `Counter`s over (guild, user) keys, not a dict of lists;
- each question's answers are grouped once, as the rows came;
- the correlation goes through the same `_correlation` (`statistics.correlation`,
  whose `fsum` sums are exact, so the result does not depend on the order either), and
  the thirds are the same tuples sorted the same way.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

from .itemstats import Item, ItemStats, _correlation, _with_flags, sort_stats

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
    return _with_flags(stats, item)
