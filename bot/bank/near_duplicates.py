"""Find stems that are (almost) the same question written twice, in near-linear time.

`difflib.SequenceMatcher` is the judge (a ratio of at least `NEAR_DUPLICATE_RATIO` on
normalised stems is a near-duplicate), but calling it on every pair is quadratic, and
the older exact pre-filter (`exhaustive_pairs`, kept as the reference for tests and
`bench/near_duplicates.py`) degrades to every pair once a bank holds many stems that
look alike, as computed and templated questions do (issue 10 item 21: 600 similar
stems took 119 s). So candidates come from MinHash with locality-sensitive banding:

* each stem's set of character trigrams is summarised by one-permutation MinHash
  (one hash per trigram, `_BINS` bins, empty bins filled by rotation), so the sketch
  costs O(length), not O(length x hashes);
* the sketch is cut into `_BANDS` bands of `_ROWS` bins; stems sharing a whole band
  are candidates (Jaccard s is caught with probability 1 - (1 - s^ROWS)^BANDS:
  0.9986 at s = 0.7, 0.964 at s = 0.6, 0.25 at s = 0.33, so stems sharing a third of
  their trigrams are mostly not compared at all);
* candidates pass exact bounds (length, shared trigrams, longest common subsequence:
  near_duplicate_bounds.py), then SequenceMatcher.

A stem pair at ratio >= 0.9 differs in at most a tenth of its characters, which leaves
most trigrams shared (Jaccard well above 0.6 unless the edits are scattered one every
ten characters); bench/near_duplicates.py measures that every pair the exhaustive method
finds on a 1,000-5,000 question bank is found here too.

Issue 31 item 15 (10,000 questions: 121 s and 963 MiB to validate; 2,000 near-copy
stems: 42 s) made the search one pass that keeps little per stem: each stem's
candidates are counted when it is reached (not all stems' at once), trigrams are kept
as tuples of small shared ids, and the LCS bound spares the judge nearly every pair it would reject.
The same pairs come out in the same order (tests/quiz/near_copy_pairs.json pins them).
What stays quadratic is a family of thousands of look-alike stems (every pair a
candidate); the loader gives the search a work `budget`, counted in deterministic units
(`SearchWork`), past which each stem is compared with only its likeliest look-alikes
and is listed in `SearchWork.partial`, so start-up stays bounded and says so.
"""

from __future__ import annotations

import bisect
import collections
import math
import re
import unicodedata
from collections.abc import Iterator, Sequence

from bot.bank.near_duplicate_bounds import PairCheck, SearchWork, Trigrams, length_window

__all__ = [
    "NEAR_DUPLICATE_RATIO",
    "SEARCH_BUDGET",
    "SearchWork",
    "exhaustive_pairs",
    "near_duplicate_pairs",
    "normalise",
]

#: Two stems at least this similar (after `normalise`) are reported as near-duplicates.
NEAR_DUPLICATE_RATIO = 0.9

#: The loader's work budget per language, in `SearchWork.units` (about 13 s of a busy
#: 2-core VM): three times what the stems of 10,000 distinct questions need, reached by
#: families of thousands of look-alike stems (or banks several times larger).
SEARCH_BUDGET = 100_000_000
#: Past the budget: the newest members of each shared band counted, and the likeliest
#: candidates (most bands shared) compared.
PARTIAL_BAND_MEMBERS = 64
PARTIAL_CANDIDATES = 16

_ROWS = 4
_BANDS = 24
_BINS = _ROWS * _BANDS
#: A densified bin value is below 2**32 // _BINS plus (distance < 2 * _BINS) << 32, so
#: below 2**40: a band's four values and its number pack exactly into one integer key.
_VALUE_BITS = 40

_WHITESPACE_OR_PUNCT = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Fold `text` for similarity checks: lowercase, no accents, punctuation or spaces.

    Accents are dropped and Turkish dotless ı is folded to i so that "HİÇBİRİ",
    "hiçbiri" and "hicbiri" compare equal, and so that stems differing only in
    typography are still caught as near-duplicates.
    """
    decomposed = unicodedata.normalize("NFKD", text.lower())
    stripped = decomposed.translate(_NO_COMBINING)
    return _WHITESPACE_OR_PUNCT.sub("", stripped.replace("ı", "i"))


class _DropCombining(dict[int, "int | None"]):
    """A `str.translate` table deleting combining marks, filled as characters are met.

    Same result as testing `unicodedata.combining` on each character in Python, at C
    speed once a character has been seen (normalise runs on every stem and choice).
    """

    def __missing__(self, code: int) -> int | None:
        kept = None if unicodedata.combining(chr(code)) else code
        self[code] = kept
        return kept


_NO_COMBINING = _DropCombining()


def _sketch(distinct: list[int], minhash: list[tuple[int, int]]) -> list[int]:
    """One-permutation MinHash of a stem's distinct trigrams (at least one), densified.

    Each trigram's hash picks a bin (hash % _BINS) and a value (hash // _BINS); a bin
    keeps its smallest value. Rotation densification (Shrivastava & Li 2014): an empty
    bin borrows the next filled bin's value (cyclically), offset by the distance, so
    equal sets still agree bin by bin.
    """
    # Sorted by value, largest first, so each bin's smallest value is written last.
    by_value = sorted(map(minhash.__getitem__, distinct), reverse=True)
    best = {slot: value for value, slot in by_value}
    filled = sorted(best)
    out = []
    for slot in range(_BINS):
        value = best.get(slot)
        if value is None:
            k = bisect.bisect_right(filled, slot)
            nxt = filled[k] if k < len(filled) else filled[0] + _BINS
            value = best[nxt % _BINS] + ((nxt - slot) << 32)
        out.append(value)
    return out


def _band_keys(sketch: list[int]) -> list[int]:
    """One exact integer key per band: the band's number and its `_ROWS` values."""
    keys = []
    for band in range(_BANDS):
        key = band
        for value in sketch[band * _ROWS : (band + 1) * _ROWS]:
            key = (key << _VALUE_BITS) | value
        keys.append(key)
    return keys


class _Bands:
    """Band key -> the stems with that band, in order; a lone stem kept without a list."""

    def __init__(self) -> None:
        self.first: dict[int, int] = {}
        self.more: dict[int, list[int]] = {}

    def members_then_add(self, key: int, j: int, newest: int | None) -> tuple[list[int], bool]:
        """The stems already in band `key` (only the `newest` if given), and whether some
        were left out; then j is added to the band."""
        first = self.first.setdefault(key, j)
        if first == j:
            return [], False
        more = self.more.get(key)
        if more is None:
            self.more[key] = [j]
            return [first], False
        if newest is None or len(more) < newest:
            members = [first, *more]
        else:
            members = more[-newest:]
        more.append(j)
        return members, len(members) < len(more)


def near_duplicate_pairs(
    texts: Sequence[str],
    threshold: float = NEAR_DUPLICATE_RATIO,
    *,
    first_only: bool = False,
    budget: int | None = None,
    work: SearchWork | None = None,
) -> Iterator[tuple[int, int, float]]:
    """(i, j, ratio) with i < j for pairs whose SequenceMatcher ratio >= threshold.

    Sorted by (j, i). Candidates come from MinHash banding (see the module docstring),
    so the cost grows with the number of stems and of look-alike pairs, not with the
    number of all pairs. With `first_only`, each stem yields at most one earlier match,
    the likeliest tried first (most bands shared): what the loader reports, and what
    keeps a bank of many copies of one question linear in its size. With a `budget`,
    once `work.units` exceeds it, each later stem is compared with only its likeliest
    candidates and listed in `work.partial` (pass `work` to read it).
    """
    work = SearchWork() if work is None else work
    texts = list(texts)
    lengths = [len(t) for t in texts]
    trigrams = Trigrams(_BINS)
    codes: list[tuple[int, ...]] = []
    bands = _Bands()
    short: list[int] = []
    for j, text in enumerate(texts):
        partial = budget is not None and work.units > budget
        newest = PARTIAL_BAND_MEMBERS if partial else None
        # Stems under three letters have no trigram: they are compared with everything.
        shorts = short if newest is None else short[-newest:]
        counts: collections.Counter[int] = collections.Counter(shorts)
        cut = len(shorts) < len(short)
        stem_codes, distinct = trigrams.of(text)
        codes.append(stem_codes)
        work.stems += 1
        if len(text) < 3:
            everyone = range(j if newest is None else max(0, j - newest), j)
            counts.update(everyone)
            work.bucket_entries += len(everyone)
            cut = cut or len(everyone) < j
            short.append(j)
        else:
            for key in _band_keys(_sketch(distinct, trigrams.minhash)):
                members, left_out = bands.members_then_add(key, j, newest)
                counts.update(members)
                work.bucket_entries += len(members)
                cut = cut or left_out
        work.bucket_entries += len(shorts)
        if not counts:
            continue
        # The length bound is nearly free: drop those pairs before ordering the rest.
        lo, hi = length_window(len(text), threshold)
        fitting = [i for i in counts if lo <= lengths[i] <= hi]
        work.length_checks += len(counts)
        fitting.sort()
        if first_only:  # most bands shared first, ties in index order (the sort is stable)
            fitting.sort(key=counts.__getitem__, reverse=True)
        if partial and len(fitting) > PARTIAL_CANDIDATES:
            fitting = fitting[:PARTIAL_CANDIDATES] if first_only else _likeliest(fitting, counts)
            cut = True
        if cut:
            work.partial.append(j)
        check = PairCheck(texts, codes, j, threshold, work)
        for i in fitting:
            ratio = check.ratio(i)
            if ratio is not None:
                yield i, j, ratio
                if first_only:
                    break


def _likeliest(fitting: list[int], counts: collections.Counter[int]) -> list[int]:
    """The `PARTIAL_CANDIDATES` with the most bands shared, back in index order."""
    return sorted(sorted(fitting, key=counts.__getitem__, reverse=True)[:PARTIAL_CANDIDATES])


def exhaustive_pairs(
    texts: Sequence[str], threshold: float = NEAR_DUPLICATE_RATIO
) -> Iterator[tuple[int, int, float]]:
    """Every pair at `threshold` or more, found exactly (the reference; quadratic).

    The loader's method before MinHash: exact bounds and a prefix filter (two sets
    sharing >= k elements, each sorted by one global order, share an element within
    their first size - k + 1), which no longer prunes once many stems look alike.
    """
    texts = list(texts)
    slope = 2.5 * threshold - 2
    trigrams = Trigrams(_BINS)
    codes = [trigrams.of(t)[0] for t in texts]
    frequency = collections.Counter(c for cs in codes for c in cs)
    postings: dict[int, list[int]] = collections.defaultdict(list)
    short: list[int] = []
    work = SearchWork()
    for j, text in enumerate(texts):
        need = math.ceil(slope * 2 * len(text) / (2 - threshold) - 2)
        ordered = sorted(codes[j], key=lambda g: (frequency[g], g))
        if need <= 0 or not ordered:
            candidates = set(range(j))
            short.append(j)
        else:
            prefix = ordered[: len(ordered) - need + 1]
            candidates = {i for g in prefix for i in postings[g]}
            candidates.update(short)
            for g in prefix:
                postings[g].append(j)
        check = PairCheck(texts, codes, j, threshold, work)
        lo, hi = length_window(len(text), threshold)
        for i in sorted(candidates):
            ratio = check.ratio(i) if lo <= len(texts[i]) <= hi else None
            if ratio is not None:
                yield i, j, ratio
