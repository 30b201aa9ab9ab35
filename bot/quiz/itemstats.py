"""Item statistics: which questions fail, computed from members' first answers.

A question with a wrong key, a trick wording or a dead distractor shows in the answers
long before anyone writes in (issue #13). These are the figures of Moodle's quiz
statistics report, as pure functions over plain records, so they can be checked on
answer sets small enough to compute by hand:

- facility: the share of first answers that are right;
- discrimination: the corrected point-biserial, i.e. the correlation between answering
  this question right (0/1) and the member's accuracy on their *other* first answers
  (the question itself is left out, or a one-question member would correlate perfectly);
- each choice's pick rate, overall and among the top and bottom thirds of the members
  who answered, ranked by that same accuracy on their other answers.

Only first answers count: retries and reviews are biased (the member has seen the key).
A member is (guild, user): the bank is shared but a member's answers are per server.

Flags carry a code and the numbers their reason is written from (`bot.i18n` renders them
in the reader's language). No flag is raised before `MIN_FLAG_ANSWERS` first answers:
below that, noise looks like a broken question.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot.quiz.model import LETTERS, Question

#: No flag before this many first answers; the figures still say how many there are.
MIN_FLAG_ANSWERS = 30
#: A distractor picked by fewer than DEAD_SHARE of answers is dead, once there are
#: DEAD_MIN_ANSWERS (below that, 3 % is one or two clicks).
DEAD_SHARE = 0.03
DEAD_MIN_ANSWERS = 50
#: Too easy above this facility.
EASY_FACILITY = 0.95
#: Too hard below chance (1 / choices) plus this margin.
HARD_MARGIN = 0.05
#: Open reports that flag a question.
REPORTS_FLAG = 2

#: Flag codes, in the order a question's flags are listed (the most serious first).
FLAG_ORDER = ("wrong_key", "top_prefers", "reported", "too_hard", "dead_distractor", "too_easy")


@dataclass(frozen=True, slots=True)
class FirstAnswer:
    """One member's first answer to one question (`choice_index` in file order)."""

    guild_id: int
    user_id: int
    question_id: str
    choice_index: int
    correct: bool


@dataclass(frozen=True, slots=True)
class Item:
    """What the statistics need of a question: its choices and key (file order)."""

    question_id: str
    n_choices: int
    key_index: int
    #: A computed question (template): its wrong choices differ from post to post, so
    #: the slots are not the same distractor and none is called dead.
    computed: bool = False


@dataclass(frozen=True, slots=True)
class Flag:
    """A reason to look at a question: `code` (FLAG_ORDER) and the figures behind it."""

    code: str
    params: Mapping[str, str]


@dataclass(frozen=True)
class ItemStats:
    question_id: str
    answers: int
    correct: int
    #: Share right, or None with no answers.
    facility: float | None
    #: Corrected point-biserial, or None when it is undefined (fewer than two members
    #: with other answers, or no spread in either variable).
    discrimination: float | None
    #: Members whose other answers ranked them (those with at least one other answer).
    ranked: int
    #: Pick counts per choice (file order), overall and in the top and bottom thirds.
    picks: tuple[int, ...]
    top_picks: tuple[int, ...]
    bottom_picks: tuple[int, ...]
    key_index: int
    open_reports: int = 0
    flags: tuple[Flag, ...] = field(default=())

    @staticmethod
    def _rates(counts: tuple[int, ...]) -> tuple[float, ...]:
        total = sum(counts)
        return tuple(c / total if total else 0.0 for c in counts)

    @property
    def pick_rates(self) -> tuple[float, ...]:
        return self._rates(self.picks)

    @property
    def top_rates(self) -> tuple[float, ...]:
        return self._rates(self.top_picks)

    @property
    def bottom_rates(self) -> tuple[float, ...]:
        return self._rates(self.bottom_picks)

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


def _pct(share: float) -> str:
    return f"{share * 100:.0f}%"


def member_totals(answers: Iterable[FirstAnswer]) -> dict[tuple[int, int], tuple[int, int]]:
    """(guild, user) -> (first answers, right first answers), over every question."""
    totals: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for a in answers:
        t = totals[(a.guild_id, a.user_id)]
        t[0] += 1
        t[1] += a.correct
    return {k: (v[0], v[1]) for k, v in totals.items()}


def _correlation(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 2:
        return None
    try:
        return statistics.correlation(xs, ys)
    except statistics.StatisticsError:  # constant input: no spread to correlate
        return None


def item_stats(
    item: Item,
    answers: Iterable[FirstAnswer],
    totals: Mapping[tuple[int, int], tuple[int, int]],
    *,
    open_reports: int = 0,
) -> ItemStats:
    """The statistics of one question from its first answers and every member's totals
    (`member_totals` over all the questions in scope, this one included)."""
    n = item.n_choices
    picks = [0] * n
    correct = 0
    count = 0
    # (minus the accuracy on the member's other first answers, guild, user, right?,
    # choice): sorted as plain tuples, best first, ties broken by member (stable split).
    ranked: list[tuple[float, int, int, int, int]] = []
    for a in answers:
        count += 1
        correct += a.correct
        if 0 <= a.choice_index < n:
            picks[a.choice_index] += 1
        answered, right = totals[(a.guild_id, a.user_id)]
        if answered > 1:
            rest = (right - a.correct) / (answered - 1)
            ranked.append((-rest, a.guild_id, a.user_id, int(a.correct), a.choice_index))
    discrimination = _correlation([float(r[3]) for r in ranked], [-r[0] for r in ranked])
    ranked.sort()
    third = len(ranked) // 3
    top, bottom = [0] * n, [0] * n
    for r in ranked[:third]:
        if 0 <= r[4] < n:
            top[r[4]] += 1
    for r in ranked[len(ranked) - third :] if third else []:
        if 0 <= r[4] < n:
            bottom[r[4]] += 1
    stats = ItemStats(
        question_id=item.question_id,
        answers=count,
        correct=correct,
        facility=correct / count if count else None,
        discrimination=discrimination,
        ranked=len(ranked),
        picks=tuple(picks),
        top_picks=tuple(top),
        bottom_picks=tuple(bottom),
        key_index=item.key_index,
        open_reports=open_reports,
    )
    return with_flags(stats, item)


def flags_for(stats: ItemStats, item: Item) -> tuple[Flag, ...]:
    """The flags of a question, most serious first (none before MIN_FLAG_ANSWERS)."""
    if stats.answers < MIN_FLAG_ANSWERS or stats.facility is None:
        return ()
    found: list[Flag] = []
    n = stats.answers
    key = item.key_index
    if stats.discrimination is not None and stats.discrimination < 0:
        found.append(
            Flag("wrong_key", {"discrimination": f"{stats.discrimination:.2f}", "n": str(n)})
        )
    top_total = sum(stats.top_picks)
    if top_total:
        key_top = stats.top_picks[key]
        best = max(
            (i for i in range(item.n_choices) if i != key),
            key=lambda i: (stats.top_picks[i], -i),
            default=None,
        )
        if best is not None and stats.top_picks[best] > key_top:
            found.append(
                Flag(
                    "top_prefers",
                    {
                        "choice": LETTERS[best],
                        "choice_rate": _pct(stats.top_picks[best] / top_total),
                        "key_choice": LETTERS[key],
                        "key_rate": _pct(key_top / top_total),
                        "n": str(top_total),
                    },
                )
            )
    if stats.open_reports >= REPORTS_FLAG:
        found.append(Flag("reported", {"reports": str(stats.open_reports)}))
    chance = 1 / item.n_choices
    if stats.facility < chance + HARD_MARGIN:
        found.append(
            Flag(
                "too_hard",
                {"facility": _pct(stats.facility), "limit": _pct(chance + HARD_MARGIN)},
            )
        )
    if n >= DEAD_MIN_ANSWERS and not item.computed:
        for i in range(item.n_choices):
            if i != key and stats.picks[i] / n < DEAD_SHARE:
                found.append(
                    Flag(
                        "dead_distractor",
                        {"choice": LETTERS[i], "rate": _pct(stats.picks[i] / n), "n": str(n)},
                    )
                )
    if stats.facility > EASY_FACILITY:
        found.append(Flag("too_easy", {"facility": _pct(stats.facility)}))
    return tuple(found)


def with_flags(stats: ItemStats, item: Item) -> ItemStats:
    """`stats` with its flags (from its figures and open reports) set."""
    flags = flags_for(stats, item)
    if not flags:
        return stats
    return ItemStats(**{**stats.__dict__, "flags": flags})


def bank_stats(
    items: Iterable[Item],
    answers: Iterable[FirstAnswer],
    open_reports: Mapping[str, int] | None = None,
) -> list[ItemStats]:
    """Statistics of every item, flagged first (most flags, then fewest answers right),
    then by id. Answers to questions not in `items` still count for members' accuracy."""
    answers = list(answers)
    totals = member_totals(answers)
    by_question: dict[str, list[FirstAnswer]] = defaultdict(list)
    for a in answers:
        by_question[a.question_id].append(a)
    reports = open_reports or {}
    found = [
        item_stats(
            item,
            by_question.get(item.question_id, []),
            totals,
            open_reports=reports.get(item.question_id, 0),
        )
        for item in items
    ]
    return sort_stats(found)


def sort_stats(found: Iterable[ItemStats]) -> list[ItemStats]:
    """Flagged first (most serious flag, then more flags), then by id."""

    def order(s: ItemStats) -> tuple[int, int, int, str]:
        if not s.flags:
            return (1, len(FLAG_ORDER), 0, s.question_id)
        worst = min(FLAG_ORDER.index(f.code) for f in s.flags)
        return (0, worst, -len(s.flags), s.question_id)

    return sorted(found, key=order)


def item_of(question: Question, *, computed: bool = False) -> Item:
    """The `Item` of a bank question, or of a template's stand-in (`computed=True`: its
    key is choice 0 and its wrong choices vary from post to post)."""
    return Item(question.id, len(question.choices), question.correct_index, computed)
