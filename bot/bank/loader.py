"""Read `questions/*.yaml` into a validated `Bank`, or say exactly what is wrong.

The question bank is written by hand by several people, so the loader is built for the
author more than for the bot: it never stops at the first mistake, it reports every
problem across every file in one pass, and each report carries `file:line`, the
question id, the field path and a message saying what is wrong *and* what to do. The
bot refuses to start on a bank with problems (`load_bank` raises), and `tpquiz validate`
prints the same list, so a broken question never reaches a Discord channel.

This module is the public face; each job has its own module:

* files.py: finding question files, reading only regular files of bounded size;
* yaml_lines.py: the line-tracking YAML reader;
* fields.py, choices.py, questions.py: the per-field and per-question checks;
* clues.py: choices that give the key away (errors past 1.5x, warnings);
* glossary.py: Turkish variants docs/glossary.md rules out;
* near_duplicates.py: stems written twice, found in near-linear time.

Field paths use 0-based indices (`choices[0]` is the first choice in the file, the one
shown as A before shuffling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.bank.choices import ALLOWED_CHOICE_KEYS
from bot.bank.files import bundled_dir as _bundled_dir
from bot.bank.files import bundled_question_files, expand_paths, find_files, read_question_file
from bot.bank.near_duplicates import NEAR_DUPLICATE_RATIO, near_duplicate_pairs, normalise
from bot.bank.problems import BankError, Problem, display_path
from bot.bank.questions import (
    ALLOWED_QUESTION_KEYS,
    ID_PATTERN,
    MAX_ID_LENGTH,
    MAX_TAG_LENGTH,
    REQUIRED_QUESTION_KEYS,
    TAG_PATTERN,
    QuestionChecker,
)
from bot.quiz.model import Bank

__all__ = [
    "ALLOWED_CHOICE_KEYS",
    "ALLOWED_QUESTION_KEYS",
    "BankError",
    "BankReport",
    "ID_PATTERN",
    "MAX_ID_LENGTH",
    "MAX_TAG_LENGTH",
    "NEAR_DUPLICATE_RATIO",
    "Problem",
    "REQUIRED_QUESTION_KEYS",
    "TAG_PATTERN",
    "_bundled_dir",
    "bundled_question_files",
    "check_files",
    "expand_paths",
    "inspect_files",
    "load_bank",
    "near_duplicate_pairs",
    "normalise",
]


@dataclass(frozen=True)
class BankReport:
    """One pass over the files: the bank (None if any problem), problems and warnings."""

    bank: Bank | None
    problems: list[Problem]
    warnings: list[Problem] = field(default_factory=list)
    file_count: int = 0


def inspect_files(paths: Sequence[str | Path]) -> BankReport:
    """Validate every file: the bank if there is no problem, and the warnings either way.

    All files are checked even after problems are found, so one run of `tpquiz validate`
    shows the author everything to fix, including cross-file duplicates.
    """
    files, problems = find_files(paths)
    if not files and not problems:
        where = ", ".join(str(p) for p in paths) or "questions/"
        problems = [Problem(where, 1, "-", "-", "no question files (*.yaml) found; check the path")]
    if not files:
        return BankReport(None, problems)
    checker = QuestionChecker()
    checker.problems.extend(problems)
    for path in files:
        source = read_question_file(path)
        if isinstance(source, Problem):
            checker.problems.append(source)
        else:
            checker.check_source(display_path(path), source)
    checker.check_near_duplicates()
    order = {display_path(p): i for i, p in enumerate(files)}

    def in_order(found: list[Problem]) -> list[Problem]:
        return sorted(found, key=lambda p: (order.get(p.file, len(order)), p.line))

    bank = None if checker.problems else Bank.of(checker.questions)
    return BankReport(bank, in_order(checker.problems), in_order(checker.warnings), len(files))


def check_files(paths: Sequence[str | Path]) -> tuple[Bank | None, list[Problem]]:
    """Validate every file and return (bank, []) or (None, every problem found)."""
    report = inspect_files(paths)
    return report.bank, report.problems


def load_bank(paths: Sequence[str | Path] | None = None) -> Bank:
    """The validated bank from `paths` (default: the bundled files); raises BankError."""
    bank, problems = check_files(bundled_question_files() if paths is None else paths)
    if bank is None:
        raise BankError(problems)
    return bank
