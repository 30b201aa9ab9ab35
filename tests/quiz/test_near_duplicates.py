"""The MinHash near-duplicate search finds what the exhaustive reference finds (item 21).

Speed is measured in bench/near_duplicates.py (no timed asserts here); these tests check
that the faster candidate search loses no pair on the bundled stems, on planted
duplicates and on a bank of look-alike stems like the bench's.
"""

from __future__ import annotations

import random

from bench.near_duplicates import stems
from bot.bank.loader import load_bank
from bot.bank.near_duplicates import exhaustive_pairs, near_duplicate_pairs, normalise


def both(texts: list[str]) -> tuple[list[tuple[int, int, float]], list[tuple[int, int, float]]]:
    return list(near_duplicate_pairs(texts)), sorted(
        exhaustive_pairs(texts), key=lambda p: (p[1], p[0])
    )


def test_the_bundled_stems_have_no_pair_by_either_method() -> None:
    bank = load_bank()
    for lang in ("tr", "en"):
        texts = [normalise(q.text.get(lang)) for q in bank]
        assert both(texts) == ([], [])


def test_planted_duplicates_are_all_found() -> None:
    rng = random.Random(7)
    base = [normalise(q.text.en) for q in load_bank()]
    texts = list(base)
    for original in rng.sample(base, 20):
        chars = list(original)
        for _ in range(2):
            chars[rng.randrange(len(chars))] = "x"
        texts.append("".join(chars))
    new, old = both(texts)
    assert new == old
    assert len(new) >= 20


def test_look_alike_stems_give_the_same_pairs_as_the_reference() -> None:
    texts = [normalise(t) for t in stems(300, seed=11)]
    new, old = both(texts)
    assert new == old and new


def test_empty_and_very_short_stems_are_still_compared() -> None:
    assert list(near_duplicate_pairs(["", "", "ab", "ab", "abc"])) == [
        (0, 1, 1.0),
        (2, 3, 1.0),
    ]
