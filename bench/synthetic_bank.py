"""A large question bank on disk, valid per the schema, for benches and scale tests.

The bundled bank has 226 questions; a community's may hold 10,000 (issue 31 item 15).
`write_bank` writes `n` questions into `files` YAML files: each is a bundled question
(choices, feedback, explanation and source as written, so every check has real work)
under a new id, with a new stem in each language drawn from the bundled stems' own
words. Such stems share almost no character trigrams with each other, so the bank
passes `tpquiz validate` (warnings allowed), as a large bank of distinct questions would.

With `near_copies` > 0, that many of the stems are instead near-copies of a few base
stems, as computed and templated questions look: a base stem with one number redrawn
and one word swapped. Many of those pairs are near-duplicates (the bank then fails
validation, as it should), and every pair of a family shares most of its trigrams: the
shape that makes a candidate filter let everything through.

    .venv/bin/python -m bench.synthetic_bank DIR --questions 10000 --files 20
"""

from __future__ import annotations

import argparse
import copy
import random
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from bot.bank.files import bundled_question_files
from bot.bank.glossary import ruled_out_in
from bot.quiz.model import LANGS

try:
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

__all__ = ["bundled_raw", "near_copy_stems", "write_bank"]

#: Stems of a near-copy family start from this many base stems.
FAMILIES = 4


@cache
def bundled_raw() -> tuple[dict[str, Any], ...]:
    """The bundled questions as plain YAML data (the starting eight left out)."""
    found: list[dict[str, Any]] = []
    for path in bundled_question_files():
        for item in yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader):  # noqa: S506
            if "starting" not in item.get("tags", ()):
                found.append(item)
    return tuple(found)


@cache
def _vocabulary(lang: str) -> tuple[str, ...]:
    words = {w for item in bundled_raw() for w in item["text"][lang].split() if w.isalpha()}
    return tuple(sorted(words))


def _new_stem(rng: random.Random, lang: str) -> str:
    """Random bundled words; drawn again if two of them form a form the glossary rules out."""
    while True:
        words = rng.choices(_vocabulary(lang), k=rng.randint(14, 30))
        stem = " ".join(words).capitalize() + "?"
        if not ruled_out_in(stem):
            return stem


def near_copy_stems(n: int, rng: random.Random, lang: str) -> list[str]:
    """`n` stems in `FAMILIES` families, each a base stem with a number and a word changed."""
    bases = [_new_stem(rng, lang) for _ in range(FAMILIES)]
    out: list[str] = []
    while len(out) < n:
        words = bases[len(out) % FAMILIES].rstrip("?").split()
        words[rng.randrange(len(words))] = rng.choice(_vocabulary(lang))
        words.insert(rng.randrange(len(words)), str(rng.randint(2, 99_999)))
        stem = " ".join(words) + "?"
        if not ruled_out_in(stem):
            out.append(stem)
    return out


def write_bank(
    directory: Path, n: int, files: int, *, near_copies: int = 0, seed: int = 2026
) -> list[Path]:
    """Write `n` questions into `files` files under `directory`; the paths written.

    The last `near_copies` questions get near-copy stems (see the module docstring).
    """
    rng = random.Random(seed)
    base = bundled_raw()
    copies = {lang: near_copy_stems(near_copies, rng, lang) for lang in LANGS}
    items: list[dict[str, Any]] = []
    for k in range(n):
        item = copy.deepcopy(base[k % len(base)])
        item["id"] = f"syn-{k:05d}"
        item.pop("tags", None)
        near = k - (n - near_copies)
        item["text"] = {
            lang: copies[lang][near] if near >= 0 else _new_stem(rng, lang) for lang in LANGS
        }
        items.append(item)
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    per_file = -(-n // files)
    for f in range(files):
        chunk = items[f * per_file : (f + 1) * per_file]
        if not chunk:
            break
        path = directory / f"bank-{f:03d}.yaml"
        path.write_text(
            yaml.dump(chunk, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=10_000),
            encoding="utf-8",
        )
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--near-copies", type=int, default=0)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    paths = write_bank(
        args.directory, args.questions, args.files, near_copies=args.near_copies, seed=args.seed
    )
    print(f"{args.questions} questions in {len(paths)} files under {args.directory}")


if __name__ == "__main__":
    main()
