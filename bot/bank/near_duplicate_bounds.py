"""The exact test of one stem pair, cheapest bound first (near_duplicates.py finds the pairs).

`difflib.SequenceMatcher.ratio` is the judge, and costs about a millisecond for two
unrelated 150-letter stems. Each bound below is an upper bound of that ratio, so a
pair a bound rejects would have been rejected by the judge; they only save time:

1. length: ratio <= 2 * min(len) / total;
2. shared trigrams: with M matched characters in at most (unmatched + 1) blocks, a
   pair at ratio r shares at least (2.5r - 2) * total - 2 trigrams (a few microseconds:
   one C set intersection);
3. longest common subsequence: SequenceMatcher's matching blocks are a common
   subsequence, so ratio <= 2 * LCS / total. The LCS length is computed bit-parallel
   (Hyyro 2004: one big-integer step per character, about 50 us), and is usually the
   ratio itself for look-alike stems, so nearly only pairs that will be flagged reach
   the judge (issue 31 item 15: families of near-copy stems made thousands of judge
   calls fail).

Trigrams are kept per stem as a tuple of small shared integer ids (one per trigram
occurrence), not as sets of string tuples: a 10,000-question bank's sets took 250 MB.
"""

from __future__ import annotations

import collections
import difflib
import functools
import zlib
from dataclasses import dataclass, field
from typing import cast

__all__ = ["PairCheck", "SearchWork", "Trigrams", "lcs_length", "length_window", "position_masks"]


@dataclass
class SearchWork:
    """What one search did, counted: for the work budget, tests and benches.

    `units` is a deterministic estimate of the time spent (about 0.1 us each on a 2-core
    VM), so a budget in units gives the same result on every machine.
    """

    stems: int = 0  # stems sketched (trigrams, MinHash, band keys)
    bucket_entries: int = 0  # earlier stems counted while gathering candidates
    length_checks: int = 0  # candidate pairs given the length bound
    trigram_checks: int = 0  # pairs past the length bound, given the trigram bound
    lcs_checks: int = 0  # pairs past the trigram bound, given the LCS bound
    ratios: int = 0  # SequenceMatcher.ratio calls (the judge)
    #: Stems compared with only their likeliest look-alikes, the budget being spent.
    partial: list[int] = field(default_factory=list)

    @property
    def units(self) -> int:
        return (
            2_000 * self.stems
            + self.bucket_entries
            + self.length_checks
            + 50 * self.trigram_checks
            + 500 * self.lcs_checks
            + 5_000 * self.ratios
        )


class Trigrams:
    """Small integer ids for the trigram occurrences of one search, and each stem's codes."""

    def __init__(self, bins: int) -> None:
        #: A trigram's first occurrence is keyed by the trigram, its k-th by (trigram, k).
        self.ids: dict[str | tuple[str, int], int] = {}
        #: Per id of a first occurrence, the trigram's MinHash (value, bin) among `bins`
        #: bins, from crc32 spread over 32 bits; (0, 0) for later occurrences (unused).
        self.minhash: list[tuple[int, int]] = []
        self._bins = bins

    def _new(self, key: str | tuple[str, int]) -> int:
        gid = self.ids[key] = len(self.ids)
        if isinstance(key, str):  # spread crc32's low bits across the MinHash bins
            h = (zlib.crc32(key.encode()) * 0x9E3779B1) & 0xFFFFFFFF
            self.minhash.append(divmod(h, self._bins))
        else:
            self.minhash.append((0, 0))
        return gid

    def of(self, text: str) -> tuple[tuple[int, ...], list[int]]:
        """The stem's trigram multiset as ids (one per occurrence), and its distinct trigrams'.

        Equal trigram occurrences get equal ids in every stem, so the size of a set
        intersection of two stems' ids is the size of their multisets' intersection.
        The ids are small ints stored once in `ids` and shared by every stem's tuple, so
        a stem costs 8 bytes a trigram, and intersections hash one-digit ints.
        """
        grams = [text[i : i + 3] for i in range(len(text) - 2)]
        counted = collections.Counter(grams)
        get = self.ids.get
        found = [get(gram) for gram in counted]  # None: a trigram new to the search
        if None in found:
            distinct = [
                self._new(g) if d is None else d for g, d in zip(counted, found, strict=True)
            ]
        else:
            distinct = cast(list[int], found)
        if len(counted) == len(grams):  # no trigram twice: the usual case
            return tuple(distinct), distinct
        out = list(distinct)
        for gram, count in counted.items():
            for k in range(2, count + 1):
                again = get((gram, k))
                out.append(self._new((gram, k)) if again is None else again)
        return tuple(out), distinct


@functools.lru_cache(maxsize=4096)
def length_window(b: int, threshold: float) -> tuple[int, int]:
    """The lengths a for which 2 * min(a, b) >= threshold * (a + b), as (lowest, highest).

    ratio <= 2 * min(len) / total, so a stem of length b is compared only with stems in
    this window. The bound is evaluated as written for each length (it holds on an
    interval around b), so rounding cannot make the window narrower than the bound.
    """

    def fits(a: int) -> bool:
        return 2 * min(a, b) >= threshold * (a + b)

    lo = hi = b
    while lo > 0 and fits(lo - 1):
        lo -= 1
    while fits(hi + 1):
        hi += 1
    return lo, hi


def lcs_length(a: str, masks: dict[str, int], width: int) -> int:
    """The longest common subsequence of `a` and the string `masks` describes.

    `masks` maps each character of the other string b to the bit set of its positions,
    `width` = len(b). Bit-parallel (Hyyro 2004): V starts all ones; each character of a
    turns the zeros it extends into the LCS; the zeros of V's low `width` bits count it.
    """
    full = (1 << width) - 1
    v = full
    for c in a:
        u = v & masks.get(c, 0)
        v = (v + u) | (v - u)
    return width - (v & full).bit_count()


def position_masks(b: str) -> dict[str, int]:
    """Each character of `b` to the bit set of its positions (for `lcs_length`)."""
    masks: dict[str, int] = {}
    for k, c in enumerate(b):
        masks[c] = masks.get(c, 0) | (1 << k)
    return masks


class PairCheck:
    """The exact test of (earlier stem i, stem j) for one j, with j's side prepared once.

    `ratio(i)` is the SequenceMatcher ratio of texts[i] (as a) and texts[j] (as b) if it
    reaches the threshold, else None; the same answer as calling the judge on every pair.
    """

    def __init__(
        self,
        texts: list[str] | tuple[str, ...],
        codes: list[tuple[int, ...]],
        j: int,
        threshold: float,
        work: SearchWork,
    ) -> None:
        self._texts, self._codes, self._threshold, self._work = texts, codes, threshold, work
        self._j, self._b = j, texts[j]
        self._slope = 2.5 * threshold - 2
        self._grams: set[int] | None = None
        self._masks: dict[str, int] | None = None
        self._matcher: difflib.SequenceMatcher[str] | None = None

    def ratio(self, i: int) -> float | None:
        """The pair's ratio if it reaches the threshold (given a length in `length_window`)."""
        a, b = self._texts[i], self._b
        total = len(a) + len(b)
        if total == 0:
            return 1.0
        work = self._work
        work.trigram_checks += 1
        if self._grams is None:
            self._grams = set(self._codes[self._j])
        if len(self._grams.intersection(self._codes[i])) < self._slope * total - 2:
            return None
        work.lcs_checks += 1
        if self._masks is None:
            self._masks = position_masks(b)
        if 2.0 * lcs_length(a, self._masks, len(b)) / total < self._threshold:
            return None
        work.ratios += 1
        if self._matcher is None:
            # Autojunk off: with spaces removed every letter of a long stem is "popular"
            # and would be ignored, making unrelated stems look alike.
            self._matcher = difflib.SequenceMatcher(None, "", b, autojunk=False)
        self._matcher.set_seq1(a)
        ratio = self._matcher.ratio()
        return ratio if ratio >= self._threshold else None
