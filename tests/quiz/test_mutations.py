"""Random mutations of the bundled question files never crash the loader (issue 10 Tests).

A seeded stream of edits an unlucky author or a fuzzer makes (characters flipped, lines
dropped, doubled or swapped, control characters, deep brackets, huge integers, invisible
strings) goes through `check_files`; every result must be a bank or a list of one-line
problems, never an exception. Seeded, so a failure reproduces.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.bank.loader import bundled_question_files, check_files

INSERTS = [
    "\x07",
    "\x00",
    "\u200b",
    "[" * 300,
    "9" * 5000,
    ": ",
    " #",
    "&a ",
    "*a ",
    "!!python/object:os.system ",
    "\ufeff",
    "\t",
    "- ",
    "{",
    '"',
]


def mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        i = rng.randrange(len(lines))
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            line = lines[i]
            pos = rng.randint(0, len(line))
            lines[i] = line[:pos] + rng.choice(INSERTS) + line[pos + (op == 4) :]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(8))
def test_mutated_bank_files_give_sentences_not_tracebacks(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    rng = random.Random(seed)
    files = bundled_question_files()
    for n in range(25):
        source = rng.choice(files).read_text(encoding="utf-8")
        path = Path(f"m{n}.yaml")
        path.write_text(mutate(source, rng), encoding="utf-8")
        bank, problems = check_files([path])
        assert (bank is None) == bool(problems)
        for problem in problems:
            text = str(problem)
            assert "\n" not in text and len(text) < 1200, text
