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
* candidates pass the exact length and shared-trigram bounds, then SequenceMatcher.

A stem pair at ratio >= 0.9 differs in at most a tenth of its characters, which leaves
most trigrams shared (Jaccard well above 0.6 unless the edits are scattered one every
ten characters); bench/near_duplicates.py measures that every pair the exhaustive method
finds on a 1,000-5,000 question bank is found here too.
"""

from __future__ import annotations

import collections
import difflib
import math
import re
import unicodedata
import zlib
from collections.abc import Iterator, Sequence

__all__ = [
    "NEAR_DUPLICATE_RATIO",
    "exhaustive_pairs",
    "near_duplicate_pairs",
    "normalise",
]

#: Two stems at least this similar (after `normalise`) are reported as near-duplicates.
NEAR_DUPLICATE_RATIO = 0.9

_ROWS = 4
_BANDS = 24
_BINS = _ROWS * _BANDS
_EMPTY = -1

_WHITESPACE_OR_PUNCT = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Fold `text` for similarity checks: lowercase, no accents, punctuation or spaces.

    Accents are dropped and Turkish dotless ı is folded to i so that "HİÇBİRİ",
    "hiçbiri" and "hicbiri" compare equal, and so that stems differing only in
    typography are still caught as near-duplicates.
    """
    decomposed = unicodedata.normalize("NFKD", text.lower())
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _WHITESPACE_OR_PUNCT.sub("", stripped.replace("ı", "i"))


def _trigrams(text: str) -> frozenset[tuple[str, int]]:
    """The trigram multiset of `text` as a set of (trigram, occurrence) pairs.

    A set, so that intersections run in C; the occurrence number keeps it a multiset.
    """
    seen: collections.Counter[str] = collections.Counter()
    grams: set[tuple[str, int]] = set()
    for i in range(len(text) - 2):
        gram = text[i : i + 3]
        seen[gram] += 1
        grams.add((gram, seen[gram]))
    return frozenset(grams)


def _sketch(text: str) -> list[int]:
    """One-permutation MinHash of the text's distinct trigrams, densified by rotation."""
    bins = [_EMPTY] * _BINS
    for i in range(len(text) - 2):
        h = zlib.crc32(text[i : i + 3].encode())
        h = (h * 0x9E3779B1) & 0xFFFFFFFF  # spread crc32's low bits across the bins
        slot, value = h % _BINS, h // _BINS
        if bins[slot] == _EMPTY or value < bins[slot]:
            bins[slot] = value
    if all(b == _EMPTY for b in bins):
        return bins
    # Rotation densification (Shrivastava & Li 2014): an empty bin borrows the next
    # filled bin's value, offset by the distance, so equal sets still agree bin by bin.
    out = list(bins)
    nxt = 0
    for step in range(2 * _BINS - 1, -1, -1):  # twice round, so every bin sees a filled one
        slot = step % _BINS
        if bins[slot] != _EMPTY:
            nxt = step
        elif step < _BINS:
            out[slot] = bins[nxt % _BINS] + ((nxt - step) << 32)
    return out


def _candidates(texts: Sequence[str]) -> dict[int, collections.Counter[int]]:
    """For each stem j, the earlier stems sharing a band with it, counted by bands shared."""
    buckets: dict[tuple[int, ...], list[int]] = collections.defaultdict(list)
    found: dict[int, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    short: list[int] = []
    for j, text in enumerate(texts):
        mine = found[j]
        mine.update(short)
        if len(text) < 3:  # no trigram at all: compare with everything (rare)
            mine.update(range(j))
            short.append(j)
            continue
        sketch = _sketch(text)
        for band in range(_BANDS):
            key = (band, *sketch[band * _ROWS : (band + 1) * _ROWS])
            members = buckets[key]
            mine.update(members)
            members.append(j)
    return found


def near_duplicate_pairs(
    texts: Sequence[str], threshold: float = NEAR_DUPLICATE_RATIO, *, first_only: bool = False
) -> Iterator[tuple[int, int, float]]:
    """(i, j, ratio) with i < j for pairs whose SequenceMatcher ratio >= threshold.

    Sorted by (j, i). Candidates come from MinHash banding (see the module docstring),
    so the cost grows with the number of stems and of look-alike pairs, not with the
    number of all pairs. With `first_only`, each stem yields at most one earlier match,
    the likeliest tried first (most bands shared): what the loader reports, and what
    keeps a bank of many copies of one question linear in its size.
    """
    grams: dict[int, frozenset[tuple[str, int]]] = {}
    slope = 2.5 * threshold - 2
    for j, counts in sorted(_candidates(texts).items()):
        order = sorted(counts, key=lambda i: (-counts[i], i)) if first_only else sorted(counts)
        for i in order:
            ratio = _verified(texts, grams, i, j, threshold, slope)
            if ratio is not None:
                yield i, j, ratio
                if first_only:
                    break


def _verified(
    texts: Sequence[str],
    grams: dict[int, frozenset[tuple[str, int]]],
    i: int,
    j: int,
    threshold: float,
    slope: float,
) -> float | None:
    """The pair's ratio if it reaches `threshold`, after the exact cheap bounds."""
    a, b = texts[i], texts[j]
    total = len(a) + len(b)
    if total == 0:
        return 1.0
    # ratio <= 2 * min(len) / total
    if 2 * min(len(a), len(b)) < threshold * total:
        return None
    # with M matched characters in at most (unmatched + 1) blocks, a pair at ratio r
    # shares at least (2.5r - 2) * total - 2 trigrams
    for k in (i, j):
        if k not in grams:
            grams[k] = _trigrams(texts[k])
    if len(grams[i] & grams[j]) < slope * total - 2:
        return None
    # Autojunk is off: with spaces removed every letter of a long stem is "popular" and
    # would be ignored, making unrelated stems look alike. quick_ratio (shared letters,
    # linear) bounds ratio from above and is much cheaper.
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.quick_ratio() < threshold:
        return None
    ratio = matcher.ratio()
    return ratio if ratio >= threshold else None


def exhaustive_pairs(
    texts: Sequence[str], threshold: float = NEAR_DUPLICATE_RATIO
) -> Iterator[tuple[int, int, float]]:
    """Every pair at `threshold` or more, found exactly (the reference; quadratic).

    The loader's method before MinHash: exact bounds and a prefix filter (two sets
    sharing >= k elements, each sorted by one global order, share an element within
    their first size - k + 1), which no longer prunes once many stems look alike.
    """
    slope = 2.5 * threshold - 2
    grams = [_trigrams(t) for t in texts]
    frequency = collections.Counter(g for gs in grams for g in gs)
    postings: dict[tuple[str, int], list[int]] = collections.defaultdict(list)
    short: list[int] = []
    cache = dict(enumerate(grams))
    for j, text in enumerate(texts):
        need = math.ceil(slope * 2 * len(text) / (2 - threshold) - 2)
        ordered = sorted(grams[j], key=lambda g: (frequency[g], g))
        if need <= 0 or not ordered:
            candidates = set(range(j))
            short.append(j)
        else:
            prefix = ordered[: len(ordered) - need + 1]
            candidates = {i for g in prefix for i in postings[g]}
            candidates.update(short)
            for g in prefix:
                postings[g].append(j)
        for i in sorted(candidates):
            ratio = _verified(texts, cache, i, j, threshold, slope)
            if ratio is not None:
                yield i, j, ratio
