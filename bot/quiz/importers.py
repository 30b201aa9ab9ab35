"""Turn quizzes written for Moodle-style tools (Aiken, GIFT) into bank YAML drafts.

Many teachers already have multiple-choice questions in one of these two plain-text
formats. An import is a *draft*, not a finished question: the formats carry one
language and (Aiken) no feedback, explanation or source, so the importer fills what it
can in the given language and leaves the rest for the author, in a way that
`tpquiz validate` keeps flagging until it is done:

* the other language is left **out** (not filled with a "TODO" string, which would pass
  the "missing language" check), so validate reports `missing language en`;
* `explanation`, `source` and the feedback of wrong choices without GIFT feedback are
  written as empty strings, so the slot is visible in the YAML and validate reports
  `is empty`;
* `difficulty` is set to 1 and `topic` to the one given; review both.

Anything the importer cannot read is reported as `Problem`s with `file:line` (raised
together as `ImportProblems`), never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from bot.quiz.loader import ID_PATTERN, MAX_ID_LENGTH, Problem
from bot.quiz.model import TOPICS, Lang

__all__ = ["ImportProblems", "dump_yaml", "import_aiken", "import_gift"]

SCHEMA_COMMENT = "# yaml-language-server: $schema=./question.schema.json"

#: Room left in an id after the prefix, for "-NN" (up to 999 questions per import).
_SUFFIX_ROOM = 4


class ImportProblems(Exception):
    """The input has parts that cannot be imported; `problems` lists every one."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


# --------------------------------------------------------------------------- shared


@dataclass
class _Draft:
    """One question as read from the input, before it becomes a YAML-shaped dict."""

    number: int
    line: int
    stem: str = ""
    options: list[tuple[str, str | None]] = field(default_factory=list)
    correct: int | None = None
    explanation: str | None = None


class _Collector:
    """Problem list shared by both importers, so both report in the same shape."""

    def __init__(self, source_file: str, id_prefix: str) -> None:
        self.source_file = source_file
        self.id_prefix = id_prefix
        self.problems: list[Problem] = []

    def question_id(self, number: int) -> str:
        return f"{self.id_prefix}-{number:02d}"

    def add(self, line: int, number: int | None, field_path: str, message: str) -> None:
        qid = self.question_id(number) if number is not None else "-"
        self.problems.append(Problem(self.source_file, line, qid, field_path, message))


def _check_arguments(topic: str, id_prefix: str) -> None:
    """Reject arguments that would make every imported question invalid."""
    if topic not in TOPICS:
        raise ValueError(f"unknown topic {topic!r}; topics: {', '.join(TOPICS)}")
    if not ID_PATTERN.match(id_prefix) or len(id_prefix) > MAX_ID_LENGTH - _SUFFIX_ROOM:
        raise ValueError(
            f"id prefix {id_prefix!r} must be lowercase letters, digits and '-' "
            f"(at most {MAX_ID_LENGTH - _SUFFIX_ROOM} characters), e.g. 'mlp-split-imp'"
        )


def _to_dict(draft: _Draft, *, lang: Lang, topic: str, qid: str) -> dict[str, Any]:
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


# --------------------------------------------------------------------------- Aiken

_AIKEN_OPTION = re.compile(r"([A-Z])[.)]\s+(\S.*)")
_AIKEN_ANSWER = re.compile(r"ANSWER:(.*)", re.IGNORECASE)


@dataclass
class _AikenBlock:
    draft: _Draft
    stem_lines: list[str] = field(default_factory=list)
    letters: list[str] = field(default_factory=list)
    option_lines: list[int] = field(default_factory=list)
    answer: str | None = None
    answer_line: int = 0
    done: bool = False
    broken: bool = False


def import_aiken(
    text: str, *, lang: Lang, source_file: str, topic: str = "basics", id_prefix: str
) -> list[dict[str, Any]]:
    """Questions from Aiken text; raises ImportProblems listing everything unreadable.

    Aiken: the question on one (or, here, more) lines, then options `A. text` or
    `A) text`, one per line, then `ANSWER: X`. Questions are separated by a blank line
    (or simply follow the previous ANSWER line).
    """
    _check_arguments(topic, id_prefix)
    out = _Collector(source_file, id_prefix)
    blocks: list[_AikenBlock] = []
    current: _AikenBlock | None = None

    def start(line: int) -> _AikenBlock:
        block = _AikenBlock(_Draft(number=len(blocks) + 1, line=line))
        blocks.append(block)
        return block

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            current = None
            continue
        if current is None or current.done:
            current = start(lineno)
        number = current.draft.number
        answer = _AIKEN_ANSWER.fullmatch(line)
        option = _AIKEN_OPTION.fullmatch(line)
        if answer:
            current.answer = answer.group(1).strip().upper()
            current.answer_line = lineno
            current.done = True
        elif option:
            letter, option_text = option.groups()
            if not current.stem_lines and not current.letters:
                out.add(
                    lineno,
                    number,
                    "text",
                    f"option '{letter}.' comes before any question text; write the question "
                    "on the line(s) before its options",
                )
                current.broken = True
            expected = chr(ord("A") + len(current.letters))
            if letter != expected:
                out.add(
                    lineno,
                    number,
                    f"choices[{len(current.letters)}]",
                    f"option letter {letter} out of order, expected {expected}; "
                    "letter the options A, B, C, ... in order",
                )
                current.broken = True
            current.letters.append(letter)
            current.option_lines.append(lineno)
            current.draft.options.append((option_text.strip(), None))
        elif current.letters:
            out.add(
                lineno,
                number,
                f"choices[{len(current.letters) - 1}]",
                "line is neither an option ('A. text') nor 'ANSWER: X'; Aiken options are "
                "one line each and the question ends with an ANSWER line",
            )
            current.broken = True
        else:
            current.stem_lines.append(line)

    for block in blocks:
        draft = block.draft
        number = draft.number
        draft.stem = "\n".join(block.stem_lines)
        if len(draft.options) < 2:
            out.add(
                draft.line,
                number,
                "choices",
                f"has {len(draft.options)} option(s); write at least 2 lines like 'A. text'",
            )
            block.broken = True
        if block.answer is None:
            out.add(
                draft.line,
                number,
                "answer",
                "no ANSWER line; end the question with 'ANSWER: X' naming the right option",
            )
            continue
        if not re.fullmatch(r"[A-Z]", block.answer):
            out.add(
                block.answer_line,
                number,
                "answer",
                f"'ANSWER: {block.answer}' must name one option letter, e.g. 'ANSWER: B'",
            )
        elif block.answer not in block.letters:
            listed = ", ".join(block.letters) or "none"
            out.add(
                block.answer_line,
                number,
                "answer",
                f"ANSWER {block.answer} is not among the options ({listed}); "
                "fix the letter or add the option",
            )
        else:
            draft.correct = block.letters.index(block.answer)

    if not blocks:
        out.add(1, None, "-", "no questions found; Aiken is 'question / A. ... / ANSWER: A'")
    if out.problems:
        raise ImportProblems(out.problems)
    return [
        _to_dict(b.draft, lang=lang, topic=topic, qid=out.question_id(b.draft.number))
        for b in blocks
    ]


# --------------------------------------------------------------------------- GIFT

_GIFT_SPECIAL = "~=#{}:"
_FORMAT_MARKER = re.compile(r"\s*\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
_WEIGHT = re.compile(r"\s*%(-?\d+(?:\.\d+)?)%")
_TRUE_FALSE = {"T", "F", "TRUE", "FALSE"}


def _find(text: str, token: str, start: int = 0) -> int:
    """Index of the first `token` at or after `start` not escaped by a backslash, or -1."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(token, i):
            return i
        i += 1
    return -1


def _unescape(raw: str) -> str:
    """GIFT text to plain text: whitespace runs become one space, escapes resolved."""
    raw = re.sub(r"\s+", " ", raw).strip()
    out: list[str] = []
    i = 0
    while i < len(raw):
        char = raw[i]
        if char == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in _GIFT_SPECIAL or nxt == "\\":
                out.append(nxt)
            elif nxt == "n":
                out.append("\n")
            else:
                out.append(char + nxt)
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out).strip()


@dataclass
class _Answer:
    right: bool
    raw: str
    offset: int


def _split_answers(block: str) -> tuple[str, list[_Answer], str | None]:
    """(text before the first answer, answers, general feedback after '####')."""
    answers: list[_Answer] = []
    general: str | None = None
    lead_end = len(block)
    i = 0
    current: _Answer | None = None
    while i < len(block):
        char = block[i]
        if char == "\\":
            i += 2
            continue
        if block.startswith("####", i):
            general = block[i + 4 :]
            if current is None:
                lead_end = min(lead_end, i)
            else:
                current.raw = block[current.offset + 1 : i]
            current = None
            break
        if char in "=~":
            if current is None:
                lead_end = min(lead_end, i)
            else:
                current.raw = block[current.offset + 1 : i]
            current = _Answer(right=char == "=", raw="", offset=i)
            answers.append(current)
        i += 1
    if current is not None:
        current.raw = block[current.offset + 1 :]
    return block[:lead_end], answers, general


def _gift_chunks(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each question: blank-line separated, comments dropped."""
    chunks: list[tuple[int, str]] = []
    lines: list[str] = []
    first = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped.startswith("//") or stripped.upper().startswith("$CATEGORY:"):
            continue
        if not stripped:
            if lines:
                chunks.append((first, "\n".join(lines)))
                lines = []
            continue
        if not lines:
            first = lineno
        lines.append(raw)
    if lines:
        chunks.append((first, "\n".join(lines)))
    return chunks


def import_gift(
    text: str, *, lang: Lang, source_file: str, topic: str = "basics", id_prefix: str
) -> list[dict[str, Any]]:
    """Multiple-choice questions from GIFT text; raises ImportProblems for the rest.

    Supported: `::title:: stem {=right#feedback ~wrong#feedback ... ####general feedback}`
    (the general feedback becomes the explanation; a title is dropped), the missing-word
    form `text {…} more text` (the blank is shown as `___`), `//` comments, `$CATEGORY`
    lines (ignored) and the escapes `\\=`, `\\~`, `\\#`, `\\{`, `\\}`, `\\:`, `\\\\`, `\\n`.
    Every other GIFT question kind is reported, not converted.
    """
    _check_arguments(topic, id_prefix)
    out = _Collector(source_file, id_prefix)
    drafts: list[_Draft] = []
    chunks = _gift_chunks(text)
    for number, (first_line, chunk) in enumerate(chunks, start=1):
        draft = _parse_gift_question(chunk, first_line, number, out)
        if draft is not None:
            drafts.append(draft)
    if not chunks:
        out.add(1, None, "-", "no questions found; GIFT is 'stem {=right ~wrong ~wrong}'")
    if out.problems:
        raise ImportProblems(out.problems)
    return [_to_dict(d, lang=lang, topic=topic, qid=out.question_id(d.number)) for d in drafts]


def _parse_gift_question(
    chunk: str, first_line: int, number: int, out: _Collector
) -> _Draft | None:
    """One GIFT question, or None after reporting why it cannot be imported."""

    def line_at(offset: int) -> int:
        return first_line + chunk.count("\n", 0, offset)

    before = len(out.problems)
    pos = len(chunk) - len(chunk.lstrip())
    if chunk.startswith("::", pos):
        end = _find(chunk, "::", pos + 2)
        if end < 0:
            out.add(first_line, number, "title", "'::' opens a title that is never closed")
            return None
        pos = end + 2
    marker = _FORMAT_MARKER.match(chunk, pos)
    if marker:
        pos = marker.end()
    open_at = _find(chunk, "{", pos)
    if open_at < 0:
        out.add(
            first_line,
            number,
            "answers",
            "no answer block {...} (a GIFT description); only multiple choice "
            "'{=right ~wrong ...}' is supported",
        )
        return None
    close_at = _find(chunk, "}", open_at + 1)
    if close_at < 0:
        out.add(line_at(open_at), number, "answers", "'{' is never closed; add the '}'")
        return None
    if _find(chunk, "{", close_at + 1) >= 0:
        out.add(
            line_at(_find(chunk, "{", close_at + 1)),
            number,
            "answers",
            "more than one answer block; a question has exactly one {...}",
        )
        return None

    stem_raw = chunk[pos:open_at]
    after = chunk[close_at + 1 :]
    if after.strip():
        stem_raw = stem_raw + "___" + after  # missing-word form: keep the blank visible
    stem = _unescape(stem_raw)
    block = chunk[open_at + 1 : close_at]
    block_line = line_at(open_at)

    kind = _unsupported_kind(block)
    if kind is not None:
        out.add(
            block_line,
            number,
            "answers",
            f"{kind} questions are not supported; only multiple choice "
            "'{=right ~wrong ...}' can be imported",
        )
        return None
    if not stem:
        out.add(first_line, number, "text", "no question text before the answer block")

    lead, answers, general = _split_answers(block)
    if lead.strip():
        out.add(
            block_line,
            number,
            "answers",
            f"text {_unescape(lead)!r} before the first answer; start each answer with "
            "'=' (right) or '~' (wrong), and escape a literal '=' or '~' as '\\=' or '\\~'",
        )
    rights = [a for a in answers if a.right]
    wrongs = [a for a in answers if not a.right]
    if any(_find(a.raw, "->") >= 0 for a in answers):
        out.add(
            block_line,
            number,
            "answers",
            "matching questions ('a -> b') are not supported; only multiple choice can be imported",
        )
        return None
    if not wrongs:
        out.add(
            block_line,
            number,
            "answers",
            "short answer questions (only '=' answers) are not supported; only multiple "
            "choice with one '=right' and '~wrong' answers can be imported",
        )
        return None
    weighted = any(_WEIGHT.match(a.raw) for a in answers)
    if not rights and not weighted:
        out.add(
            block_line,
            number,
            "answers",
            "no right answer; mark exactly one answer with '=' (the others with '~')",
        )
    elif len(rights) > 1 and not weighted:
        out.add(
            line_at(open_at + 1 + rights[1].offset),
            number,
            "answers",
            f"{len(rights)} answers are marked '='; a question has exactly one right answer "
            "(escape a literal '=' inside an answer as '\\=')",
        )

    draft = _Draft(number=number, line=first_line, stem=stem)
    for index, answer in enumerate(answers):
        answer_line = line_at(open_at + 1 + answer.offset)
        weight = _WEIGHT.match(answer.raw)
        if weight:
            out.add(
                answer_line,
                number,
                f"choices[{index}]",
                f"percentage weight '%{weight.group(1)}%' is not supported; use exactly one "
                "'=' right answer and '~' wrong answers without weights",
            )
            continue
        hash_at = _find(answer.raw, "#")
        if hash_at >= 0:
            option, feedback = answer.raw[:hash_at], _unescape(answer.raw[hash_at + 1 :])
        else:
            option, feedback = answer.raw, ""
        option_text = _unescape(option)
        if not option_text:
            out.add(answer_line, number, f"choices[{index}]", "empty answer; write its text")
        if answer.right:
            draft.correct = index
        draft.options.append((option_text, feedback or None))
    if general is not None and general.strip():
        draft.explanation = _unescape(general)
    return draft if len(out.problems) == before else None


def _unsupported_kind(block: str) -> str | None:
    """The name of the GIFT question kind in `block` if it is not multiple choice."""
    stripped = block.strip()
    if not stripped:
        return "essay ('{}')"
    head = stripped
    hash_at = _find(stripped, "#")
    if hash_at >= 0:
        head = stripped[:hash_at]
    if head.strip().upper() in _TRUE_FALSE:
        return "true/false ('{T}' / '{F}')"
    if stripped.startswith("#") and not stripped.startswith("####"):
        return "numeric ('{#...}')"
    return None


# --------------------------------------------------------------------------- YAML output


class _Flow(dict[str, Any]):
    """A short language mapping written on one line, like `text: {tr: ..., en: ...}`."""


class _BankDumper(yaml.SafeDumper):
    """Dumps in the bank's style: nested lists indented, multi-line text as blocks."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
        return super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> Any:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _represent_flow(dumper: yaml.SafeDumper, value: _Flow) -> Any:
    return dumper.represent_mapping("tag:yaml.org,2002:map", dict(value), flow_style=True)


_BankDumper.add_representer(str, _represent_str)
_BankDumper.add_representer(_Flow, _represent_flow)


def _bank_style(question: dict[str, Any]) -> dict[str, Any]:
    """Choice texts and feedback on one line each, as the hand-written files do."""
    styled = dict(question)
    choices = question.get("choices")
    if isinstance(choices, list):
        styled["choices"] = [
            {
                key: _Flow(value)
                if key in ("text", "feedback")
                and isinstance(value, dict)
                and not any("\n" in str(v) for v in value.values())
                else value
                for key, value in choice.items()
            }
            if isinstance(choice, dict)
            else choice
            for choice in choices
        ]
    return styled


def dump_yaml(questions: list[dict[str, Any]]) -> str:
    """Questions as a bank file: schema comment first, one blank line between questions."""
    body = yaml.dump(
        [_bank_style(q) for q in questions],
        Dumper=_BankDumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=4096,
    )
    lines = body.splitlines()
    spaced: list[str] = []
    for i, line in enumerate(lines):
        if i and line.startswith("- "):
            spaced.append("")
        spaced.append(line)
    return SCHEMA_COMMENT + "\n" + "\n".join(spaced) + "\n"
