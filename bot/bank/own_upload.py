"""A server's upload of its own questions, checked as `tpquiz validate` checks the bank.

Why: issue 27 lets a server's moderators upload questions (`/tpquiz-admin bank upload`)
in the bank's YAML format, or in Moodle's GIFT or Aiken as `tpquiz import` reads them.
Whatever the format, the file goes through the bank's own checks (bot/bank/questions.py)
and every problem is reported at the uploaded file's line with the field and the reason;
with any problem nothing is stored (the caller stores only an `UploadCheck` that is
`ok`). Two differences from the bundled bank, both for a study group's own material:

* a question may be written in one language (all its texts in the same one);
* near-duplicates of the bundled bank's questions and of the server's own are warnings,
  not errors (a group may well ask again, in its own words, what the bank asks).
  Near-duplicates inside one upload stay errors, as in the bank.

A GIFT or Aiken file is first turned into the bank's YAML by the importers (strict: a
question they cannot read is an error, not skipped), then checked; each problem is
moved back to the line its question starts on in the uploaded file.

`export_yaml` writes a server's questions back in the bank's format, so that an export
uploads back to the same questions (tests/quiz/test_own_upload.py checks the round trip).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bot.bank.clues import clues
from bot.bank.importers import (
    ImportProblems,
    SourceError,
    dump_yaml,
    import_aiken,
    import_gift,
)
from bot.bank.importers.source import decode
from bot.bank.near_duplicates import SEARCH_BUDGET, near_duplicate_pairs, normalise
from bot.bank.problems import Problem
from bot.bank.questions import QuestionChecker, _line_of
from bot.bank.yaml_lines import Map
from bot.quiz.model import LANGS, Lang, Question, Text
from bot.quiz.own_questions import (
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_QUESTIONS,
    ONLY_TAGS,
    OwnQuestion,
)

__all__ = ["FORMATS", "Format", "UploadCheck", "check_upload", "export_yaml", "guess_format"]

Format = Literal["yaml", "gift", "aiken"]
FORMATS: tuple[Format, ...] = ("yaml", "gift", "aiken")


@dataclass(frozen=True)
class UploadCheck:
    """An upload's questions (each with its languages) when it has no problem, its
    problems (errors: nothing may be stored) and its warnings."""

    questions: tuple[tuple[Question, tuple[Lang, ...]], ...]
    problems: tuple[Problem, ...]
    warnings: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def guess_format(filename: str) -> Format:
    """The format a file's name suggests: .gift GIFT, .txt Aiken, anything else YAML."""
    name = filename.lower()
    if name.endswith(".gift"):
        return "gift"
    if name.endswith(".txt"):
        return "aiken"
    return "yaml"


class OwnQuestionChecker(QuestionChecker):
    """The bank's checks, a question in one language allowed (all its texts alike)."""

    def __init__(self) -> None:
        super().__init__()
        self.one_language = True
        #: The languages of each question in `questions`, in the same order.
        self.languages: list[tuple[Lang, ...]] = []

    def _current_languages(self) -> tuple[Lang, ...]:
        seen = set().union(*self.languages_seen) if self.languages_seen else set(LANGS)
        return tuple(lang for lang in LANGS if lang in seen)

    def _fewest(self) -> frozenset[str]:
        return sorted(self.languages_seen, key=len)[0]

    def _check_question(self, item: object, item_line: int) -> None:
        self.languages_seen = set()
        kept = len(self.questions)
        super()._check_question(item, item_line)
        if len(self.languages_seen) > 1:
            if len(self.questions) > kept:
                self.questions.pop()
            line = item.line if isinstance(item, Map) else item_line
            self.add(
                line,
                "text",
                "every text of a question must be in the same languages (some have "
                f"{' and '.join(sorted(self._fewest()))} only); "
                "write them all in tr, all in en, or all in both",
            )
        elif len(self.questions) > kept:
            self.languages.append(self._current_languages())

    def _check_clues(self, question: Question, item: Map) -> None:
        if len(self.languages_seen) > 1:
            # Texts in different languages (say a figure's alt in both, the rest in en):
            # the question is refused for that (`_check_question`), and a clue in a
            # language some field lacks would name a line that does not exist.
            return
        languages = self._current_languages()
        for clue in clues(question):
            if clue.lang not in languages:
                continue
            problem = Problem(
                self._file, _line_of(item, clue.field), self._qid, clue.field, clue.message
            )
            (self.problems if clue.severity == "error" else self.warnings).append(problem)

    def _check_glossary(self, question: Question, item: Map) -> None:
        if len(self.languages_seen) == 1 and "tr" in self._current_languages():
            super()._check_glossary(question, item)


def _problem(filename: str, message: str, line: int = 1) -> Problem:
    return Problem(filename, line, "-", "-", message)


def _source_problem(filename: str, exc: SourceError) -> Problem:
    """A SourceError's one line ('name:line: what') as a Problem at that line."""
    text = str(exc)
    rest = text[len(filename) + 1 :] if text.startswith(filename + ":") else text
    head, _, tail = rest.partition(":")
    if head.strip().isdigit():
        return _problem(filename, tail.strip(), int(head))
    return _problem(filename, rest.strip())


def _imported(
    text: str, filename: str, fmt: Format, lang: Lang, topic: str
) -> tuple[str, list[int]] | list[Problem]:
    """A GIFT or Aiken text as bank YAML and each question's line in the input."""
    importer = import_gift if fmt == "gift" else import_aiken
    try:
        result = importer(text, lang=lang, source_file=filename, topic=topic, strict=True)
    except ImportProblems as exc:
        return exc.problems
    except ValueError as exc:
        return [_problem(filename, str(exc))]
    return dump_yaml(result.questions), result.lines


def _moved(problems: Iterable[Problem], yaml_text: str, lines: list[int]) -> list[Problem]:
    """Problems found in the importer's YAML, at their question's line in the input."""
    starts = [n for n, line in enumerate(yaml_text.splitlines(), 1) if line.startswith("- ")]
    moved = []
    for p in problems:
        index = bisect_right(starts, p.line) - 1
        line = lines[index] if 0 <= index < len(lines) else 1
        moved.append(Problem(p.file, line, p.question_id, p.field, p.message))
    return moved


def check_upload(
    data: bytes,
    filename: str,
    *,
    fmt: Format | None = None,
    lang: Lang = "en",
    topic: str = "basics",
    bundled: Iterable[Question] = (),
    own: Iterable[OwnQuestion] = (),
) -> UploadCheck:
    """Check an uploaded file (`fmt` None: from its name); `lang` and `topic` are what a
    GIFT or Aiken file's questions are written in and about. `bundled` and `own` (the
    server's questions now) are what near-duplicates are looked for in, as warnings."""
    fmt = fmt or guess_format(filename)
    if len(data) > MAX_UPLOAD_BYTES:
        limit = MAX_UPLOAD_BYTES // 1024
        return UploadCheck(
            (), (_problem(filename, f"is over the limit of {limit} KiB; split it"),), ()
        )
    try:
        text = decode(data, filename)
    except SourceError as exc:
        return UploadCheck((), (_source_problem(filename, exc),), ())
    lines: list[int] | None = None
    if fmt != "yaml":
        imported = _imported(text, filename, fmt, lang, topic)
        if isinstance(imported, list):
            return UploadCheck((), tuple(imported), ())
        text, lines = imported
    checker = OwnQuestionChecker()
    checker.check_source(filename, text)
    count = len(checker.questions) + len({p.question_id for p in checker.problems})
    if count > MAX_UPLOAD_QUESTIONS:
        message = f"holds over {MAX_UPLOAD_QUESTIONS} questions, the most one upload may; split it"
        return UploadCheck((), (_problem(filename, message),), ())
    checker.check_near_duplicates()
    problems, warnings = list(checker.problems), list(checker.warnings)
    if not problems:
        warnings += _look_alikes(checker.questions, filename, bundled, own)
    if lines is not None:
        problems, warnings = _moved(problems, text, lines), _moved(warnings, text, lines)
    problems.sort(key=lambda p: p.line)
    warnings.sort(key=lambda p: p.line)
    questions = tuple(zip(checker.questions, checker.languages, strict=True))
    return UploadCheck(questions if not problems else (), tuple(problems), tuple(warnings))


def _look_alikes(
    uploaded: Sequence[Question],
    filename: str,
    bundled: Iterable[Question],
    own: Iterable[OwnQuestion],
) -> list[Problem]:
    """Warnings for uploaded stems nearly the same as a bundled or a server question's
    (a server question this upload replaces is not compared with its new version)."""
    replacing = {q.id for q in uploaded}
    earlier: list[tuple[str, Text]] = [(q.id, q.text) for q in bundled]
    earlier += [
        (f"{o.question_id} (this server's)", o.question.text)
        for o in own
        if o.question_id not in replacing
    ]
    found: dict[int, Problem] = {}
    for lang in LANGS:
        texts = [normalise(t.get(lang)) for _, t in earlier]
        texts += [normalise(q.text.get(lang)) for q in uploaded]
        for i, j, ratio in near_duplicate_pairs(texts, first_only=True, budget=SEARCH_BUDGET):
            if i >= len(earlier) or j < len(earlier) or j in found:
                continue
            question = uploaded[j - len(earlier)]
            found[j] = Problem(
                filename,
                question.line,
                question.id,
                f"text.{lang}",
                f"stem is nearly identical ({ratio:.0%}) to {earlier[i][0]}; "
                "make sure it asks something the other does not",
            )
    return list(found.values())


def _bank_text(text: Text, languages: tuple[Lang, ...]) -> dict[str, str]:
    return {lang: text.get(lang) for lang in languages}


def export_yaml(questions: Iterable[OwnQuestion]) -> str:
    """A server's questions in the bank's YAML format, under their own ids."""
    out: list[dict[str, Any]] = []
    for own in questions:
        q, langs = own.question, own.languages
        choices: list[dict[str, Any]] = []
        for choice in q.choices:
            entry: dict[str, Any] = {"text": _bank_text(choice.text, langs)}
            if choice.correct:
                entry["correct"] = True
            if choice.feedback is not None:
                entry["feedback"] = _bank_text(choice.feedback, langs)
            choices.append(entry)
        item: dict[str, Any] = {"id": own.question_id, "topic": q.topic}
        item["difficulty"] = q.difficulty
        tags = sorted(q.tags - set(ONLY_TAGS.values()))
        if tags:
            item["tags"] = tags
        item |= {
            "text": _bank_text(q.text, langs),
            "choices": choices,
            "explanation": _bank_text(q.explanation, langs),
            "source": q.source,
        }
        out.append(item)
    return dump_yaml(out)
