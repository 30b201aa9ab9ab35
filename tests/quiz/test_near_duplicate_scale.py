"""The near-duplicate search at scale (issue 31 item 15): same pairs, bounded work and memory.

Speed is bench/bank_scale.py's job; these tests count work (judge calls, pairs
examined) and traced memory, which are the same on every machine, and check that the
faster search still flags exactly the pairs the search before it flagged
(tests/quiz/near_copy_pairs.json, written by that search).
"""

from __future__ import annotations

import difflib
import json
import random
import tracemalloc
from pathlib import Path

import pytest

from bench.synthetic_bank import write_bank
from bot.bank import questions as bank_questions
from bot.bank.loader import bundled_question_files, check_files, inspect_files, load_bank
from bot.bank.near_duplicate_bounds import lcs_length, position_masks
from bot.bank.near_duplicates import (
    PARTIAL_CANDIDATES,
    SEARCH_BUDGET,
    SearchWork,
    exhaustive_pairs,
    near_duplicate_pairs,
    normalise,
)
from tests.quiz.near_copies import PINS, SETS, found, stems

PINNED = json.loads(PINS.read_text(encoding="utf-8"))


def disjoint_stems(n: int, seed: int = 5, vocabulary: int = 2000) -> list[str]:
    """`n` distinct stems of 12-30 words drawn from `vocabulary` random words."""
    rng = random.Random(seed)
    letters = "abcdefghiklmnoprstuvyz"
    words = ["".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(vocabulary)]
    return [normalise(" ".join(rng.choices(words, k=rng.randint(12, 30)))) for _ in range(n)]


def look_alike_family(n: int, seed: int = 9) -> list[str]:
    """`n` copies of one 100-letter stem, each with 8 letters changed: most pairs differ in
    about 16 letters (ratio near 0.85), share half their trigrams, and are not
    near-duplicates: the search before this one called the judge 13,606 times on 200."""
    rng = random.Random(seed)
    base = rng.choices("abcdefghijklmnop", k=100)
    out = []
    for _ in range(n):
        chars = list(base)
        for pos in rng.sample(range(100), 8):
            chars[pos] = rng.choice("qrstuvwxyz")
        out.append("".join(chars))
    return out


@pytest.mark.parametrize("name", [s[0] for s in SETS])
def test_the_same_pairs_as_the_search_before(name: str) -> None:
    """Every pair, and the loader's one pair per stem, exactly as pinned before the change."""
    assert found(stems(name)) == PINNED[name]


def test_the_bundled_bank_gives_the_same_result_within_the_budget() -> None:
    bank = load_bank()
    for lang in ("tr", "en"):
        texts = [normalise(q.text.get(lang)) for q in bank]
        work = SearchWork()
        assert (
            list(near_duplicate_pairs(texts, first_only=True, budget=SEARCH_BUDGET, work=work))
            == []
        )
        assert list(exhaustive_pairs(texts)) == []
        assert work.partial == [] and work.units < SEARCH_BUDGET // 100
    report = inspect_files(bundled_question_files())
    assert report.problems == []
    assert not [w for w in report.warnings if "near-duplicate" in w.message]


def test_look_alikes_below_the_threshold_spare_the_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    """A family of look-alike stems, nearly all under 0.9: the judge (SequenceMatcher.ratio)
    is called less than once per stem, not on a third of all pairs (13,606 calls before)."""
    calls = 0
    judge = difflib.SequenceMatcher.ratio

    def counted(self: difflib.SequenceMatcher[str]) -> float:
        nonlocal calls
        calls += 1
        return judge(self)

    monkeypatch.setattr(difflib.SequenceMatcher, "ratio", counted)
    texts = look_alike_family(200)
    flagged = list(near_duplicate_pairs(texts, first_only=True))
    assert calls <= len(texts)
    monkeypatch.setattr(difflib.SequenceMatcher, "ratio", judge)
    assert {j for _, j, _ in flagged} == {j for _, j, _ in exhaustive_pairs(texts)}


def test_the_lcs_bound_is_the_longest_common_subsequence() -> None:
    rng = random.Random(3)
    for _ in range(300):
        a = "".join(rng.choices("abcd", k=rng.randint(0, 30)))
        b = "".join(rng.choices("abcd", k=rng.randint(0, 30)))
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for x, ca in enumerate(a):
            for y, cb in enumerate(b):
                table[x + 1][y + 1] = (
                    table[x][y] + 1 if ca == cb else max(table[x][y + 1], table[x + 1][y])
                )
        assert lcs_length(a, position_masks(b), len(b)) == table[-1][-1]


def test_work_on_a_bank_of_distinct_stems_is_linear_and_never_reaches_the_judge() -> None:
    small, large = SearchWork(), SearchWork()
    assert list(near_duplicate_pairs(disjoint_stems(1500), first_only=True, work=small)) == []
    assert list(near_duplicate_pairs(disjoint_stems(3000), first_only=True, work=large)) == []
    assert small.ratios == large.ratios == 0 and large.lcs_checks <= 30
    # fewer pairs examined than stems (of 4.5 million pairs), and doubling the bank about
    # doubles the work
    assert large.trigram_checks <= 3000
    assert large.units <= 2.5 * small.units


def test_memory_does_not_keep_a_trigram_set_per_stem() -> None:
    """Traced peak per stem of ~140 letters from a small vocabulary (many look-alike pairs):
    before, 10.6 KB (each compared stem's set of trigram tuples, every stem's candidates)."""
    texts = disjoint_stems(2000, vocabulary=300)
    tracemalloc.start()
    try:
        list(near_duplicate_pairs(texts, first_only=True))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak / len(texts) < 6_000


def test_past_the_budget_work_is_linear_and_copies_are_still_flagged() -> None:
    """Exact copies in one family with no budget left: each stem still finds a copy among
    its likeliest candidates, examining at most PARTIAL_CANDIDATES of them."""
    rng = random.Random(4)
    bases = ["".join(rng.choices("abcdefghij", k=80)) for _ in range(3)]
    texts = [bases[k % 3] for k in range(600)]
    work = SearchWork()
    flagged = list(near_duplicate_pairs(texts, first_only=True, budget=0, work=work))
    assert [j for _, j, _ in flagged] == list(range(3, 600))
    assert work.partial  # reported as compared in part
    assert work.trigram_checks <= PARTIAL_CANDIDATES * len(texts)
    assert work.bucket_entries <= (24 + 1) * 64 * len(texts)


def test_the_loader_warns_once_when_the_budget_runs_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_bank(tmp_path, 120, 2, near_copies=120)  # four families of 30
    monkeypatch.setattr(bank_questions, "SEARCH_BUDGET", 0)
    report = inspect_files([tmp_path])
    limited = [w for w in report.warnings if "work limit" in w.message]
    assert sorted(w.field for w in limited) == ["text.en", "text.tr"]  # one per language
    assert all("likeliest look-alikes" in w.message for w in limited)
    assert report.problems  # the near-copies are still reported
    monkeypatch.setattr(bank_questions, "SEARCH_BUDGET", SEARCH_BUDGET)
    _, problems = check_files([tmp_path])
    assert not [w for w in inspect_files([tmp_path]).warnings if "work limit" in w.message]
    assert problems
