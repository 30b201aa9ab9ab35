"""A member's suggested question, checked as an upload is (issue 27).

Why through the upload: a suggestion, once accepted, is stored as a server question like
any uploaded one, so it must pass the same checks (bot/bank/own_upload.py: the fields,
the clue checks, the glossary for Turkish, near-duplicates of the bundled bank and of
the server's own as warnings). The modal's text is first read by the pure rules
(bot/quiz/suggestions.py: every field filled, lengths, the `answer | why` lines, no
choice twice); when those pass it is written as one question of the bank's YAML and
given to `check_upload`. Each problem the bank finds is named by the modal field it is
in (`choices[2]` is the second wrong answer), so the member knows what to edit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.bank.importers import dump_yaml
from bot.bank.own_upload import check_upload
from bot.bank.problems import Problem
from bot.quiz.model import Lang, Question
from bot.quiz.own_questions import OwnQuestion
from bot.quiz.suggestions import Draft, DraftProblem, draft_problems, to_question

__all__ = ["DraftCheck", "check_draft"]

FILENAME = "suggestion.yaml"
_CHOICE = re.compile(r"choices\[(\d+)\]")


@dataclass(frozen=True)
class DraftCheck:
    """The question a draft makes (with its one language) when it has no problem, its
    problems and its warnings."""

    question: tuple[Question, tuple[Lang, ...]] | None
    problems: tuple[DraftProblem, ...]
    warnings: tuple[DraftProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def _field(problem: Problem) -> str:
    """The modal field a bank problem is in."""
    field = problem.field
    match = _CHOICE.match(field)
    if match:
        return "right" if match.group(1) == "0" else "wrong"
    head = field.split(".", 1)[0]
    if head == "choices":  # about the choices together (a length clue): the right one
        return "right"
    return head if head in ("text", "explanation", "source") else "text"


def _wrong_line(problem: Problem) -> str:
    match = _CHOICE.match(problem.field)
    return f"#{match.group(1)}: " if match and match.group(1) != "0" else ""


def _as_draft_problem(problem: Problem) -> DraftProblem:
    return DraftProblem(_field(problem), "", (), _wrong_line(problem) + problem.message)


def check_draft(
    draft: Draft,
    question_id: str,
    lang: Lang,
    *,
    bundled: Iterable[Question] = (),
    own: Iterable[OwnQuestion] = (),
) -> DraftCheck:
    """Check what a member typed, as question `question_id` written in `lang`."""
    problems = draft_problems(draft)
    if problems:
        return DraftCheck(None, tuple(problems), ())
    text = dump_yaml([to_question(draft, question_id, lang)])
    check = check_upload(text.encode("utf-8"), FILENAME, fmt="yaml", bundled=bundled, own=own)
    found = tuple(_as_draft_problem(p) for p in check.problems)
    warnings = tuple(_as_draft_problem(p) for p in check.warnings)
    if found or not check.questions:
        return DraftCheck(None, found or (DraftProblem("text", "suggest_unreadable"),), warnings)
    return DraftCheck(check.questions[0], (), warnings)
