"""Seeded sets of near-copy stems for the near-duplicate tests, and the pairs pinned on them.

The stems do not depend on the bundled bank (which changes), so the pairs the search
found on them before issue 31 item 15 can be pinned in `near_copy_pairs.json` and
compared with what it finds now: a faster search must flag the same pairs. Each set is
a few base stems and many copies of them with 0-5 edits (a word swapped, a number
redrawn, a letter changed, a word dropped), so pairs fall on both sides of the 0.9
threshold, with some unrelated stems between them.

    .venv/bin/python -m tests.quiz.near_copies   # rewrite the pins (only on purpose)
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from bot.bank.near_duplicates import near_duplicate_pairs, normalise

PINS = Path(__file__).with_name("near_copy_pairs.json")

_WORDS = (
    "tensor parallel rank shard gradient activation layer attention head pipeline ring "
    "all-reduce all-gather reduce-scatter column row split matrix weight bias dropout "
    "sequence hidden size batch micro-batch stage bubble memory bandwidth latency GPU node "
    "link NVLink embedding vocabulary softmax logits optimizer state checkpoint recompute "
    "forward backward pass degree group communication overlap kernel fused megatron"
).split()

#: (name, seed, families, copies, unrelated stems): the sets the pins cover.
SETS: tuple[tuple[str, int, int, int, int], ...] = (
    ("few-families", 31, 4, 400, 100),
    ("many-families", 32, 60, 600, 200),
    ("short-stems", 33, 8, 300, 50),
)


def _base(rng: random.Random, short: bool) -> list[str]:
    n = rng.randint(4, 9) if short else rng.randint(10, 32)
    words = rng.choices(_WORDS, k=n)
    words.insert(rng.randrange(n), str(rng.randint(2, 4096)))
    return words


def _edit(rng: random.Random, words: list[str]) -> list[str]:
    out = list(words)
    for _ in range(rng.randint(0, 5)):
        op = rng.randrange(4)
        pos = rng.randrange(len(out))
        if op == 0:
            out[pos] = rng.choice(_WORDS)
        elif op == 1:
            out[pos] = str(rng.randint(2, 99_999))
        elif op == 2:
            word = out[pos]
            k = rng.randrange(len(word))
            out[pos] = word[:k] + rng.choice("aeiouxyz") + word[k + 1 :]
        elif len(out) > 3:
            del out[pos]
    return out


def stems(name: str) -> list[str]:
    """The normalised stems of the set called `name` (see SETS)."""
    _, seed, families, copies, unrelated = next(s for s in SETS if s[0] == name)
    rng = random.Random(seed)
    short = name == "short-stems"
    bases = [_base(rng, short) for _ in range(families)]
    raw = [" ".join(_edit(rng, rng.choice(bases))) for _ in range(copies)]
    raw += [" ".join(_base(rng, short)) for _ in range(unrelated)]
    rng.shuffle(raw)
    return [normalise(s + "?") for s in raw]


def found(texts: list[str]) -> dict[str, list[list[Any]]]:
    """What the search reports on `texts`: the loader's mode and every pair."""
    return {
        "first_only": [
            [i, j, round(r, 9)] for i, j, r in near_duplicate_pairs(texts, first_only=True)
        ],
        "every_pair": [[i, j, round(r, 9)] for i, j, r in near_duplicate_pairs(texts)],
    }


def main() -> None:
    pins = {name: found(stems(name)) for name, *_ in SETS}
    PINS.write_text(json.dumps(pins, separators=(",", ":")) + "\n", encoding="utf-8")
    for name, got in pins.items():
        print(f"{name}: {len(got['first_only'])} stems flagged, {len(got['every_pair'])} pairs")


if __name__ == "__main__":
    main()
