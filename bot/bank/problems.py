"""What the bank's checks report, and how a value is described inside a report.

Every check module returns `Problem`s: `file:line: id: field: message`, the format editors
and CI annotate. Values from a question file may be anything (a 6,000-character key, an
integer of thousands of digits), so they reach a message only through `shown` and
`type_name`, which bound what they print.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bot.bank.yaml_lines import HugeInt

__all__ = ["BankError", "Problem", "display_path", "shown", "suggest", "type_name"]

#: The most of a value a message quotes (more would bury the sentence around it).
SHOWN_LIMIT = 60


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the bank, located precisely enough to fix without searching."""

    file: str
    line: int
    question_id: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.question_id}: {self.field}: {self.message}"


class BankError(Exception):
    """The bank has problems; `problems` lists every one of them."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


def shown(value: object, limit: int = SHOWN_LIMIT) -> str:
    """`value` quoted for a message, at most about `limit` characters of it.

    An integer is never turned into text whole: over 4,300 digits Python refuses
    (ValueError), so a long one is described by its number of digits."""
    if isinstance(value, HugeInt):
        return repr(value)
    if isinstance(value, int) and abs(value) >= 10**limit:
        return f"<an integer of {_decimal_digits(abs(value))} digits>"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...'"


def _decimal_digits(n: int) -> int:
    """How many decimal digits the positive `n` has, without converting it to text."""
    guess = int(n.bit_length() * math.log10(2))  # the count is guess or guess + 1
    return guess + 1 if n >= 10**guess else guess


def type_name(value: object) -> str:
    """What YAML made of a value, for 'must be X, got Y' messages."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({value!r})"
    if isinstance(value, HugeInt):
        return f"an integer of {value.digits} digits"
    if isinstance(value, int):
        return f"an integer ({shown(value)})"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__} ({shown(value)})"


def suggest(word: object, allowed: Iterable[str]) -> str:
    """'did you mean X? ' for a near miss of one of `allowed`, else ''."""
    text = str(word) if not isinstance(word, HugeInt) else ""
    if len(text) > 100:  # no real key is that long; difflib would only be slow
        return ""
    close = difflib.get_close_matches(text, list(allowed), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""


def display_path(path: Path) -> str:
    """Show paths under the working directory relative to it, as editors expect."""
    if path.is_absolute():
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)
    return str(path)
