"""GIFT (Moodle's text format): the multiple-choice questions of a mixed export.

A GIFT file holds every Moodle question kind; a tpquiz question is multiple choice with
exactly one right answer. Each question is read into a `Draft` or reported, either as a
kind tpquiz cannot hold (true/false, short answer, numeric, matching, essay,
description, multiple answers or partial credit given by `%weight%`) or as text that is
not valid GIFT (an unclosed `{`, text before the first answer, …). A lenient import
skips such questions and lists them; a strict one refuses the file.

Line numbers come from one `LineIndex` per question (offsets and `bisect`), so a block
of many answers costs time in proportion to its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.bank.importers.draft import (
    Collector,
    Draft,
    ImportResult,
    LineIndex,
    check_arguments,
    default_prefix,
    finish,
    gc_paused,
    input_lines,
    quote,
)
from bot.bank.importers.gift_text import find, render, split_format, unescape
from bot.quiz.model import Lang

_WEIGHT = re.compile(r"\s*%(-?\d+(?:\.\d+)?)%")
_TRUE_FALSE = {"T", "F", "TRUE", "FALSE"}
_ANSWER_MARKS = re.compile(r"\\.|####|[=~]", re.DOTALL)
_ONLY_MC = "only multiple choice with one right answer is imported"


@dataclass
class _Chunk:
    """One question's text (comment lines dropped) and the input line of each line."""

    text: str
    numbers: list[int]


@dataclass
class _Answer:
    right: bool  # marked '=' (a '%weight%' decides instead when there is one)
    raw: str
    offset: int  # of its '=' or '~' in the answer block

    @property
    def weight(self) -> float | None:
        match = _WEIGHT.match(self.raw)
        return float(match.group(1)) if match else None

    @property
    def credit(self) -> float:
        weight = self.weight
        if weight is not None:
            return weight
        return 100.0 if self.right else 0.0


def import_gift(
    text: str,
    *,
    lang: Lang,
    source_file: str,
    topic: str = "basics",
    id_prefix: str | None = None,
    strict: bool = False,
) -> ImportResult:
    """Multiple-choice questions from GIFT text; the rest skipped (or, strict, raised).

    Read: `::title:: stem {=right#feedback ~wrong#feedback ... ####general feedback}`
    (the general feedback becomes the explanation; a title is dropped), the missing-word
    form `text {…} more text` (the blank is shown as `___`), `%100%` / `%0%` / negative
    weights (right / wrong), `[html]` and other format markers, `//` comments,
    `$CATEGORY` lines (ignored) and the escapes `\\=`, `\\~`, `\\#`, `\\{`, `\\}`, `\\:`,
    `\\\\`, `\\n`. `id_prefix` None: from the file name.
    """
    check_arguments(topic, id_prefix)
    out = Collector(source_file, id_prefix or default_prefix(source_file))
    drafts: list[Draft] = []
    with gc_paused():
        chunks = _chunks(text)
        for number, chunk in enumerate(chunks, start=1):
            draft = _parse_question(chunk, number, out)
            if draft is not None:
                drafts.append(draft)
    if not chunks:
        out.add(1, None, "-", "no questions found; GIFT is 'stem {=right ~wrong ~wrong}'")
    return finish(
        out, drafts, strict=strict, lang=lang, topic=topic, explicit_prefix=id_prefix is not None
    )


def _chunks(text: str) -> list[_Chunk]:
    """Each question: blank-line separated, `//` comments and `$CATEGORY:` lines dropped."""
    chunks: list[_Chunk] = []
    lines: list[str] = []
    numbers: list[int] = []
    for lineno, raw in enumerate(input_lines(text), start=1):
        stripped = raw.strip()
        if stripped.startswith("//") or stripped.upper().startswith("$CATEGORY:"):
            continue
        if not stripped:
            if lines:
                chunks.append(_Chunk("\n".join(lines), numbers))
                lines, numbers = [], []
            continue
        lines.append(raw)
        numbers.append(lineno)
    if lines:
        chunks.append(_Chunk("\n".join(lines), numbers))
    return chunks


def _split_answers(block: str) -> tuple[str, list[_Answer], str | None]:
    """(text before the first answer, answers, general feedback after '####')."""
    answers: list[_Answer] = []
    ends: list[int] = []
    general: str | None = None
    end = len(block)
    for match in _ANSWER_MARKS.finditer(block):
        mark = match.group()
        if mark == "####":
            general = block[match.end() :]
            end = match.start()
            break
        if mark in "=~":
            ends.append(match.start())
            answers.append(_Answer(right=mark == "=", raw="", offset=match.start()))
    ends.append(end)
    for answer, answer_end in zip(answers, ends[1:], strict=True):
        answer.raw = block[answer.offset + 1 : answer_end]
    lead_end = answers[0].offset if answers else end
    return block[:lead_end], answers, general


def _kind(block: str) -> str | None:
    """Why a block that is not multiple choice cannot be, from its shape alone."""
    stripped = block.strip()
    if not stripped or stripped.startswith("####"):  # only general feedback: still an essay
        return "essay question ('{}')"
    head = stripped
    hash_at = find(stripped, "#")
    if hash_at >= 0:
        head = stripped[:hash_at]
    if head.strip().upper() in _TRUE_FALSE:
        return "true/false question ('{T}' / '{F}')"
    if stripped.startswith("#"):
        return "numeric question ('{#...}')"
    return None


def _weights_problem(answers: list[_Answer]) -> str | None:
    """Why weighted answers are not one right answer among wrong ones, or None."""
    credits = [a.credit for a in answers]
    partial = [c for c in credits if 0 < c < 100]
    if not partial:
        return None
    shown = ", ".join(f"%{c:g}%" for c in partial)
    if any(c >= 100 for c in credits):
        return (
            f"an answer besides the right one earns partial credit ({shown}); tpquiz has no "
            "partial credit: weight it %0% or %100% to import the question"
        )
    if len(partial) > 1:
        return f"several answers share the credit ({shown}): a multiple-answer question; {_ONLY_MC}"
    return f"the only right answer earns partial credit ({shown}); {_ONLY_MC}"


@dataclass
class _Reader:
    """One question being read: its text, and where to report what is wrong with it."""

    chunk: _Chunk
    number: int
    out: Collector
    lines: LineIndex

    def report(self, offset: int, field_path: str, message: str) -> None:
        self.out.add(self.lines.line_at(offset), self.number, field_path, message)


@dataclass
class _Spans:
    """Where the stem starts, where the answer block opens and closes; the text format."""

    stem: int
    open_at: int
    close_at: int
    fmt: str


def _parse_question(chunk: _Chunk, number: int, out: Collector) -> Draft | None:
    """One GIFT question, or None after reporting why it cannot be imported."""
    reader = _Reader(chunk, number, out, LineIndex(chunk.text, numbers=chunk.numbers))
    spans = _locate(reader)
    if spans is None:
        return None
    block = chunk.text[spans.open_at + 1 : spans.close_at]
    lead, answers, general = _split_answers(block)
    why = _not_single_answer(block, lead, answers)
    if why is not None:
        message, offset = why
        at = spans.open_at if offset is None else spans.open_at + 1 + offset
        reader.report(at, "answers", message)
        return None
    return _draft(reader, spans, answers, general)


def _locate(reader: _Reader) -> _Spans | None:
    """Title, format marker and the one answer block, or None after reporting."""
    text = reader.chunk.text
    pos = len(text) - len(text.lstrip())
    if text.startswith("::", pos):
        end = find(text, "::", pos + 2)
        if end < 0:
            reader.report(0, "title", "'::' opens a title that is never closed")
            return None
        pos = end + 2
    fmt, rest = split_format(text[pos:], "moodle")
    pos = len(text) - len(rest)
    open_at = find(text, "{", pos)
    if open_at < 0:
        reader.report(0, "answers", f"description (no answer block {{...}}); {_ONLY_MC}")
        return None
    close_at = find(text, "}", open_at + 1)
    if close_at < 0:
        reader.report(open_at, "answers", "'{' is never closed; add the '}'")
        return None
    second = find(text, "{", close_at + 1)
    if second >= 0:
        reader.report(
            second, "answers", "more than one answer block; a question has exactly one {...}"
        )
        return None
    return _Spans(pos, open_at, close_at, fmt)


def _not_single_answer(
    block: str, lead: str, answers: list[_Answer]
) -> tuple[str, int | None] | None:
    """(why the block is not one right answer among wrong ones, offset of the culprit in
    the block or None for the block itself), or None when it is."""
    kind = _kind(block)
    if kind is not None:
        return f"{kind}; {_ONLY_MC}", None
    if any(find(a.raw, "->") >= 0 for a in answers):
        return f"matching question ('a -> b'); {_ONLY_MC}", None
    if lead.strip():
        return (
            f"text {quote(unescape(lead))} before the first answer; start each answer with "
            "'=' (right) or '~' (wrong), and escape a literal '=' or '~' as '\\=' or '\\~'",
            None,
        )
    if all(a.right for a in answers):
        return f"short answer question (only '=' answers); {_ONLY_MC}", None
    weights = _weights_problem(answers)
    if weights is not None:
        return weights, None
    rights = [a for a in answers if a.credit >= 100]
    if not rights:
        return "no right answer; mark exactly one answer with '=' (the others with '~')", None
    if len(rights) > 1:
        return (
            f"{len(rights)} answers are marked right; a question has exactly one right "
            "answer (escape a literal '=' inside an answer as '\\=')",
            rights[1].offset,
        )
    return None


def _draft(
    reader: _Reader, spans: _Spans, answers: list[_Answer], general: str | None
) -> Draft | None:
    """The question's texts, once its answers are known to be one right among wrong."""
    text, fmt = reader.chunk.text, spans.fmt
    stem_raw = text[spans.stem : spans.open_at]
    after = text[spans.close_at + 1 :]
    if after.strip():
        stem_raw = stem_raw + "___" + after  # missing-word form: keep the blank visible
    stem, image = render(stem_raw, fmt)
    draft = Draft(number=reader.number, line=reader.chunk.numbers[0], stem=stem)
    for index, answer in enumerate(answers):
        raw = answer.raw
        weight = _WEIGHT.match(raw)
        if weight:
            raw = raw[weight.end() :]
        hash_at = find(raw, "#")
        option_raw, feedback_raw = (raw, "") if hash_at < 0 else (raw[:hash_at], raw[hash_at + 1 :])
        option_text, option_image = render(*_marked(option_raw, fmt))
        feedback, _ = render(*_marked(feedback_raw, fmt))
        image = image or option_image
        if not option_text:
            at = spans.open_at + 1 + answer.offset
            reader.report(at, f"choices[{index}]", "empty answer; write its text")
        if answer.credit >= 100:
            draft.correct = index
        draft.options.append((option_text, feedback or None))
    if image:
        reader.report(
            0,
            "text",
            "shows an image (<img>), which a Discord question cannot; describe it in words",
        )
    if not stem:
        reader.report(0, "text", "no question text before the answer block")
    if general is not None and general.strip():
        draft.explanation = render(*_marked(general, fmt))[0]
    return None if reader.out.has_problems(reader.number) else draft


def _marked(raw: str, default: str) -> tuple[str, str]:
    """(text, format) of an answer or feedback: its own marker, else the question's."""
    fmt, text = split_format(raw, default)
    return text, fmt
