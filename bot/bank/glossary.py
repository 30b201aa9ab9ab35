"""The bank's Turkish vocabulary (issue 9 3): one form per term, the others flagged.

`questions/glossary/turkish.yaml` is the one source of truth: for each term, the English
term, the Turkish form the bank uses, the variants it rules out and a note. The table in
docs/glossary.md is rendered from it (`python -m bot.bank.glossary` prints it; a test
checks the document agrees), and `tpquiz validate` reports every Turkish text holding a
ruled-out form: matched regardless of case (Turkish İ/I/ı folded to i), at the start of a
word, with any suffix after it.

The Turkish stems and choices of start-01..06 are the original quiz, pinned verbatim by
tests/quiz/test_starting_quiz.py, so they are exempt (`PINNED_TURKISH`); their feedback
and explanations follow the glossary like every other text.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from bot.bank.files import bundled_dir

__all__ = [
    "PINNED_TURKISH",
    "Term",
    "glossary_path",
    "load_terms",
    "render_table",
    "ruled_out_in",
]

#: Questions whose Turkish stem and choices are the original quiz, kept verbatim.
PINNED_TURKISH = frozenset(f"start-0{i}" for i in range(1, 7))


@dataclass(frozen=True)
class Term:
    english: str
    turkish: str
    ruled_out: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True)
class Variant:
    """A ruled-out form found in a text, and the form to write instead."""

    found: str
    term: Term


def glossary_path() -> Path:
    return bundled_dir() / "glossary" / "turkish.yaml"


def fold(text: str) -> str:
    """Lowercase with the Turkish dotted and dotless i folded together, length kept."""
    return text.replace("İ", "i").replace("I", "i").replace("ı", "i").lower()


@functools.cache
def load_terms(path: Path | None = None) -> tuple[Term, ...]:
    """The glossary's terms, in the document's order."""
    raw = yaml.safe_load((path or glossary_path()).read_text(encoding="utf-8"))
    return tuple(
        Term(
            english=str(entry["english"]),
            turkish=str(entry["turkish"]),
            ruled_out=tuple(str(v) for v in entry.get("ruled_out") or ()),
            note=str(entry.get("note") or ""),
        )
        for entry in raw
    )


@functools.cache
def _pattern(path: Path | None = None) -> tuple[re.Pattern[str], dict[str, Term]]:
    terms = load_terms(path)
    by_form = {fold(v): t for t in terms for v in t.ruled_out}
    # Longest first, so "dikkat mekanizma" is named rather than a shorter form inside it.
    forms = sorted(by_form, key=len, reverse=True)
    alternatives = "|".join(re.escape(f).replace(r"\ ", r"\s+") for f in forms)
    return re.compile(rf"(?<!\w)({alternatives})"), by_form


def ruled_out_in(text: str) -> list[Variant]:
    """Every ruled-out form in `text` (a Turkish string), in order of appearance."""
    pattern, by_form = _pattern()
    folded = fold(text)
    found: list[Variant] = []
    for match in pattern.finditer(folded):
        form = " ".join(match.group(1).split())
        found.append(Variant(found=text[match.start() : match.end()], term=by_form[form]))
    return found


def render_table(terms: tuple[Term, ...]) -> str:
    """The Terms table of docs/glossary.md."""
    rows = [
        "| English | Turkish (the bank's form) | ruled out | note |",
        "| --- | --- | --- | --- |",
    ]
    for t in terms:
        ruled = ", ".join(f"`{v}`" for v in t.ruled_out)
        cells = (t.english, t.turkish, ruled, t.note)
        rows.append("|" + "|".join(f" {c} " if c else " " for c in cells) + "|")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # pragma: no cover - a maintainer's tool
    sys.stdout.write(render_table(load_terms()))
