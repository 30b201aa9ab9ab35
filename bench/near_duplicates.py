"""The near-duplicate check on a bank of 1,000-5,000 questions, MinHash against exhaustive.

Issue 10 item 21: the check was quadratic (600 similar questions took 119 s). The bank
here is generated deterministically from the bundled stems, in the shapes a large
community's bank would take:

* look-alikes (40 %): a bundled stem with its numbers redrawn and one word changed, as
  computed and templated questions look: many pairs close to the 0.9 threshold;
* composites (50 %): halves of two bundled stems joined, distinct questions on the same
  vocabulary;
* planted duplicates (10 %): an earlier stem with two characters edited, which must be
  reported.

Both methods run on the same stems in the same run: `exhaustive_pairs` (the loader's
method before, the reference) and `near_duplicate_pairs` (MinHash banding, what the
loader uses now). For each size: CPU seconds of each, the pairs each reports, and the
pairs the new method misses (recall against the reference). The whole `check_files` on a
written bank of that size is timed too, to show what `tpquiz validate` costs.

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
from bot.quiz.loader import load_bank
from bot.quiz.near_duplicates import exhaustive_pairs, near_duplicate_pairs, normalise

_WORDS = ["tensor", "pipeline", "ring", "rank", "shard", "gradient", "activation", "layer"]


def stems(n: int, seed: int = 2026) -> list[str]:
    """`n` English stems shaped as the module docstring says."""
    rng = random.Random(seed)
    base = [q.text.en for q in load_bank()]
    out: list[str] = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.4:
            stem = re.sub(r"\d+", lambda _m: str(rng.randint(2, 9999)), rng.choice(base))
            words = stem.split()
            words[rng.randrange(len(words))] = rng.choice(_WORDS)
            out.append(" ".join(words))
        elif kind < 0.9 or not out:
            a, b = rng.choice(base), rng.choice(base)
            out.append(a[: len(a) // 2] + " " + rng.choice(_WORDS) + " " + b[len(b) // 2 :])
        else:
            chars = list(rng.choice(out))
            for _ in range(2):
                chars[rng.randrange(len(chars))] = rng.choice("abcdefghij")
            out.append("".join(chars))
    return out


def timed(
    method: Callable[[list[str]], Iterator[tuple[int, int, float]]], texts: list[str]
) -> tuple[float, set[tuple[int, int]]]:
    start = time.process_time()
    pairs = {(i, j) for i, j, _ in method(texts)}
    return time.process_time() - start, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 questions only")
    args = parser.parse_args()
    sizes = [1000] if args.quick else [1000, 2000, 5000]
    rows: list[list[object]] = []
    figures: dict[str, Any] = {"sizes": {}}
    for n in sizes:
        texts = [normalise(t) for t in stems(n)]
        old_s, old = timed(exhaustive_pairs, texts)
        new_s, new = timed(near_duplicate_pairs, texts)
        missed = sorted(old - new)
        extra = sorted(new - old)  # must be empty: both verify with SequenceMatcher
        figures["sizes"][str(n)] = {
            "exhaustive_cpu_s": round(old_s, 3),
            "minhash_cpu_s": round(new_s, 3),
            "pairs_exhaustive": len(old),
            "pairs_minhash": len(new),
            "missed": len(missed),
            "extra": len(extra),
        }
        rows.append([n, f"{old_s:.2f}", f"{new_s:.2f}", len(old), len(new), len(missed)])
        print(f"{n} stems: exhaustive {old_s:.2f} s, MinHash {new_s:.2f} s", flush=True)
    print(machine_line())
    print(
        table(
            ["stems", "exhaustive s", "MinHash s", "pairs (exh.)", "pairs (MinHash)", "missed"],
            rows,
        )
    )
    print(f"written {write_json('near_duplicates', figures)}")


if __name__ == "__main__":
    main()
