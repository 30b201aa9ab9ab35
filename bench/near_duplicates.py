"""The near-duplicate check on a bank of 1,000-5,000 questions, MinHash against exhaustive.

Issue 10 item 21: the check was quadratic (600 similar questions took 119 s). Two banks
are generated deterministically from the bundled stems. "distinct": mostly new
questions (the bank's words in new orders, 80 %), families of look-alikes (15 %) and
planted duplicates (5 %), as a large community's bank would be. "look-alike": the hard
case, in these shapes:

* look-alikes (40 %): a bundled stem with its numbers redrawn and one word changed, as
  computed and templated questions look: many pairs close to the 0.9 threshold;
* composites (50 %): halves of two bundled stems joined, distinct questions on the same
  vocabulary;
* planted duplicates (10 %): an earlier stem with two characters edited, which must be
  reported.

The methods run on the same stems in the same run: `exhaustive_pairs` (the loader's
method before, the reference), `near_duplicate_pairs` (MinHash banding) listing every
pair, and the same with `first_only=True`, what the loader runs (each stem reported once,
naming one earlier look-alike). For each size: CPU seconds of each, the pairs each
reports, the pairs MinHash misses against the reference (recall), and whether the
loader's mode flags exactly the stems the reference flags.

    .venv/bin/python -m bench.near_duplicates            # 1,000, 2,000 and 5,000
    .venv/bin/python -m bench.near_duplicates --quick    # 1,000 only
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

from bench.common import machine_line, table, write_json
from bot.bank.loader import load_bank
from bot.bank.near_duplicates import exhaustive_pairs, near_duplicate_pairs, normalise

_WORDS = ["tensor", "pipeline", "ring", "rank", "shard", "gradient", "activation", "layer"]


def stems(n: int, seed: int = 2026, *, look_alike_heavy: bool = True) -> list[str]:
    """`n` English stems shaped as the module docstring says (`look_alike_heavy`), or a
    bank of mostly distinct questions (`look_alike_heavy=False`)."""
    rng = random.Random(seed)
    base = [q.text.en for q in load_bank()]
    vocabulary = sorted({w for b in base for w in b.split()})
    out: list[str] = []
    shares = (0.4, 0.9) if look_alike_heavy else (0.15, 0.95)
    for _ in range(n):
        kind = rng.random()
        if kind < shares[0]:
            stem = re.sub(r"\d+", lambda _m: str(rng.randint(2, 9999)), rng.choice(base))
            words = stem.split()
            words[rng.randrange(len(words))] = rng.choice(_WORDS)
            out.append(" ".join(words))
        elif kind < shares[1] or not out:
            if look_alike_heavy:
                a, b = rng.choice(base), rng.choice(base)
                out.append(a[: len(a) // 2] + " " + rng.choice(_WORDS) + " " + b[len(b) // 2 :])
            else:  # a new question: the bank's words, in a new order, at a bank length
                words = rng.choice(base).split()[:3]
                words += rng.choices(vocabulary, k=rng.randint(8, 30))
                out.append(" ".join(words))
        else:
            chars = list(rng.choice(out))
            for _ in range(2):
                chars[rng.randrange(len(chars))] = rng.choice("abcdefghij")
            out.append("".join(chars))
    return out


def timed(
    method: Callable[[list[str]], Iterator[tuple[int, int, float]]], texts: list[str]
) -> tuple[float, set[tuple[int, int]]]:
    """CPU seconds of one method on `texts`, and the pairs it yields."""
    start = time.process_time()
    pairs = {(i, j) for i, j, _ in method(texts)}
    return time.process_time() - start, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 questions only")
    args = parser.parse_args()
    runs = [("distinct", 1000), ("look-alike", 1000)]
    if not args.quick:
        runs += [("distinct", 2000), ("distinct", 5000), ("look-alike", 2000), ("look-alike", 5000)]
    rows: list[list[object]] = []
    figures: dict[str, Any] = {"sizes": {}}
    for bank, n in runs:
        texts = [normalise(t) for t in stems(n, look_alike_heavy=bank == "look-alike")]
        old_s, old = timed(exhaustive_pairs, texts)
        new_s, new = timed(near_duplicate_pairs, texts)
        first_s, first = timed(lambda t: near_duplicate_pairs(t, first_only=True), texts)
        same_stems = {j for _, j in first} == {j for _, j in old}
        missed = sorted(old - new)
        extra = sorted(new - old)  # must be empty: both verify with SequenceMatcher
        figures["sizes"][f"{bank} {n}"] = {
            "exhaustive_cpu_s": round(old_s, 3),
            "minhash_cpu_s": round(new_s, 3),
            "loader_first_only_cpu_s": round(first_s, 3),
            "loader_flags_the_same_stems": same_stems,
            "pairs_exhaustive": len(old),
            "pairs_minhash": len(new),
            "missed": len(missed),
            "extra": len(extra),
        }
        rows.append(
            [bank, n, f"{old_s:.2f}", f"{new_s:.2f}", f"{first_s:.2f}", len(old), len(new), len(missed),
             "yes" if same_stems else "NO"]
        )  # fmt: skip
        print(
            f"{bank} {n} stems: exhaustive {old_s:.2f} s, MinHash {new_s:.2f} s, loader {first_s:.2f} s",
            flush=True,
        )
    print(machine_line())
    print(
        table(
            [
                "bank",
                "stems",
                "exhaustive s",
                "MinHash s",
                "loader s",
                "pairs (exh.)",
                "pairs (MinHash)",
                "missed",
                "same stems flagged",
            ],
            rows,
        )
    )
    print(f"written {write_json('near_duplicates', figures)}")


if __name__ == "__main__":
    main()
