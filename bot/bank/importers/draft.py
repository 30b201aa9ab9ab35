"""What both importers share: a question's draft, the problems found in it, the ids.

An importer reads the input question by question into `Draft`s and reports what it
cannot read to a `Collector`, keyed by the question's position in the file. `finish`
then decides, the same way for every format:

* strict: any problem at all raises `ImportProblems` listing every one (nothing is
  imported, as a CI check wants);
* lenient (the default): each question with a problem is *skipped* and listed once as
  `file:line: skipped: why`; the others are imported. A real Moodle export mixes
  true/false, numeric and essay questions with the multiple-choice ones it is worth
  importing, and refusing the whole file for them helps nobody.

Problems of the file as a whole ("no questions found") are raised in both modes.
"""

from __future__ import annotations

import gc
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.bank.loader import ID_PATTERN, MAX_ID_LENGTH, Problem
from bot.quiz.model import TOPICS, Lang

#: Ids are PREFIX-01 … PREFIX-99, then PREFIX-100 …: at least this many digits.
_MIN_DIGITS = 2


class ImportProblems(Exception):
    """The input has parts that cannot be imported; `problems` lists every one."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


@dataclass(frozen=True)
class Skipped:
    """A question left out of a lenient import, and why (one line, editor-clickable)."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: skipped: {self.reason}"


@dataclass
class ImportResult:
    """The imported questions (bank-shaped dicts, ids assigned) and the skipped ones."""

    questions: list[dict[str, Any]]
    skipped: list[Skipped]
    #: The input line each imported question starts on (a server's upload reports its
    #: problems at the uploaded file's lines: bot/bank/own_upload.py).
    lines: list[int] = field(default_factory=list)


@dataclass
class Draft:
    """One question as read from the input, before it becomes a YAML-shaped dict."""

    number: int  # position in the input, 1-based; ids of problems use it
    line: int
    stem: str = ""
    options: list[tuple[str, str | None]] = field(default_factory=list)
    correct: int | None = None
    explanation: str | None = None


class LineIndex:
    """Offset in a text to its line number in O(log n): built once, asked per answer.

    `numbers[i]` is the input line number of the text's i-th line (an importer that
    drops comment lines passes them); by default lines count up from `first`.
    """

    def __init__(self, text: str, first: int = 1, numbers: list[int] | None = None) -> None:
        self._starts = [0, *(m.end() for m in re.finditer("\n", text))]
        self._numbers = numbers
        self._first = first

    def line_at(self, offset: int) -> int:
        index = bisect_right(self._starts, offset) - 1
        return self._numbers[index] if self._numbers is not None else self._first + index


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a large import builds its objects.

    The collector walks every live object each time enough new ones have been made, so
    building the ~1,000,000 objects of a 10 MB import took 2.4 times as long with it on
    (bench/import_speed.py). What is built here has no reference cycles (reference
    counting frees it); the collector is switched back on, as it was, afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


#: The most characters of the input quoted in one message (a stray line can be 1 MB).
_QUOTE_MAX = 60


def quote(text: str) -> str:
    """`text` as repr() for a message, cut to `_QUOTE_MAX` characters with '…'."""
    if len(text) > _QUOTE_MAX:
        return repr(text[: _QUOTE_MAX - 1] + "…")
    return repr(text)


def input_lines(text: str) -> list[str]:
    """The lines an editor shows: a leading BOM dropped, CRLF and CR ended lines alike.

    (`str.splitlines` would also split at form feeds and U+2028, so line numbers in
    messages would not be the editor's.)
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


#: Turkish letters to their ASCII base letters (NFKD alone leaves the dotless i alone).
_TURKISH = str.maketrans("ıİşŞğĞüÜöÖçÇ", "iIsSgGuUoOcC")


def default_prefix(source_file: str) -> str:
    """An id prefix from the file name: 'Megatron Quiz.txt' -> 'megatron-quiz',
    'Sınav Soruları.gift' -> 'sinav-sorulari' (ids are ASCII)."""
    stem = unicodedata.normalize("NFKD", Path(source_file).stem.translate(_TURKISH))
    ascii_stem = stem.encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_stem.lower()).strip("-")
    return slug[: MAX_ID_LENGTH - 1 - _MIN_DIGITS].strip("-") or "imported"


class Collector:
    """Problems found while reading, per question, so that both importers report alike."""

    def __init__(self, source_file: str, id_prefix: str) -> None:
        self.source_file = source_file
        self.id_prefix = id_prefix
        self.problems: list[Problem] = []
        self.by_question: dict[int, list[Problem]] = {}
        self.file_problems: list[Problem] = []

    def question_id(self, number: int) -> str:
        return f"{self.id_prefix}-{number:0{_MIN_DIGITS}d}"

    def add(self, line: int, number: int | None, field_path: str, message: str) -> None:
        qid = self.question_id(number) if number is not None else "-"
        problem = Problem(self.source_file, line, qid, field_path, message)
        self.problems.append(problem)
        if number is None:
            self.file_problems.append(problem)
        else:
            self.by_question.setdefault(number, []).append(problem)

    def has_problems(self, number: int) -> bool:
        return number in self.by_question


def check_arguments(topic: str, id_prefix: str | None) -> None:
    """Reject arguments that would make every imported question invalid."""
    if topic not in TOPICS:
        raise ValueError(f"unknown topic {topic!r}; topics: {', '.join(TOPICS)}")
    if id_prefix is not None and not ID_PATTERN.match(id_prefix):
        raise ValueError(
            f"id prefix {id_prefix!r} must be lowercase letters, digits and '-', "
            "e.g. 'mlp-split-imp'"
        )


def fit_prefix(prefix: str, count: int, *, explicit: bool) -> str:
    """`prefix`, or for a derived one a shortened one, so that every id fits the limit.

    A prefix the user chose is never changed behind their back: it is refused with the
    length that would fit.
    """
    suffix = 1 + max(_MIN_DIGITS, len(str(count)))
    room = MAX_ID_LENGTH - suffix
    if len(prefix) <= room:
        return prefix
    if not explicit:
        return prefix[:room].strip("-") or "imported"
    raise ValueError(
        f"id prefix {prefix!r} is {len(prefix)} characters: with {count} questions the "
        f"last id ends in '-{count:0{_MIN_DIGITS}d}' and would be {len(prefix) + suffix} "
        f"characters, over the limit of {MAX_ID_LENGTH}; use a prefix of at most {room} "
        "characters, or import the file in parts"
    )


def finish(
    out: Collector,
    drafts: list[Draft],
    *,
    strict: bool,
    lang: Lang,
    topic: str,
    explicit_prefix: bool,
) -> ImportResult:
    """Apply the strict/lenient rule, number the imported questions 01, 02, … in order."""
    if out.file_problems or (strict and out.problems):
        raise ImportProblems(out.problems)
    good = [d for d in drafts if not out.has_problems(d.number)]
    skipped = [
        Skipped(out.source_file, problems[0].line, _reason(problems))
        for _, problems in sorted(out.by_question.items())
    ]
    prefix = fit_prefix(out.id_prefix, len(good), explicit=explicit_prefix)
    with gc_paused():
        questions = [
            to_dict(d, lang=lang, topic=topic, qid=f"{prefix}-{i:0{_MIN_DIGITS}d}")
            for i, d in enumerate(good, start=1)
        ]
    return ImportResult(questions, skipped, [d.line for d in good])


def _reason(problems: list[Problem]) -> str:
    more = len(problems) - 1
    if not more:
        return problems[0].message
    return f"{problems[0].message} (and {more} more problem(s); --strict lists them all)"


def to_dict(draft: Draft, *, lang: Lang, topic: str, qid: str) -> dict[str, Any]:
    """The bank's YAML shape, with placeholders that `tpquiz validate` will flag."""
    choices: list[dict[str, Any]] = []
    for i, (text, feedback) in enumerate(draft.options):
        choice: dict[str, Any] = {"text": {lang: text}}
        if i == draft.correct:
            choice["correct"] = True
        if feedback is not None:
            choice["feedback"] = {lang: feedback}
        elif i != draft.correct:
            choice["feedback"] = {lang: ""}
        choices.append(choice)
    return {
        "id": qid,
        "topic": topic,
        "difficulty": 1,
        "text": {lang: draft.stem},
        "choices": choices,
        "explanation": {lang: draft.explanation or ""},
        "source": "",
    }
