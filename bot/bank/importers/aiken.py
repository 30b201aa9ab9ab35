"""Aiken: `question / A. option / B. option / ANSWER: A`, the simplest quiz format.

Aiken holds only multiple-choice questions, so what a lenient import skips is a
question it cannot read (an option out of order, no ANSWER line, …) or one with
several right answers (`ANSWER: A, C`, which some tools write for multiple-answer
questions); `--strict` refuses the whole file instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.bank.importers.draft import (
    Collector,
    Draft,
    ImportResult,
    check_arguments,
    default_prefix,
    finish,
    gc_paused,
    input_lines,
    quote,
)
from bot.quiz.model import Lang

_OPTION = re.compile(r"([A-Z])[.)]\s+(\S.*)")
_ANSWER = re.compile(r"ANSWER:(.*)", re.IGNORECASE)
_LETTERS = re.compile(r"[A-Z](?:\s*[,;]?\s*[A-Z])*")


@dataclass
class _Block:
    draft: Draft
    stem_lines: list[str] = field(default_factory=list)
    letters: list[str] = field(default_factory=list)
    answer: str | None = None
    answer_line: int = 0
    done: bool = False


def import_aiken(
    text: str,
    *,
    lang: Lang,
    source_file: str,
    topic: str = "basics",
    id_prefix: str | None = None,
    strict: bool = False,
) -> ImportResult:
    """Questions from Aiken text; what cannot be imported is skipped (or, strict, raised).

    The question is on one (or, here, more) lines, then options `A. text` or `A) text`,
    one per line, then `ANSWER: X`. Questions are separated by a blank line (or simply
    follow the previous ANSWER line). `id_prefix` None: from the file name.
    """
    check_arguments(topic, id_prefix)
    out = Collector(source_file, id_prefix or default_prefix(source_file))
    with gc_paused():
        blocks = _read_blocks(text, out)
        for block in blocks:
            _check_block(block, out)
    if not blocks:
        out.add(1, None, "-", "no questions found; Aiken is 'question / A. ... / ANSWER: A'")
    return finish(
        out,
        [b.draft for b in blocks],
        strict=strict,
        lang=lang,
        topic=topic,
        explicit_prefix=id_prefix is not None,
    )


def _read_blocks(text: str, out: Collector) -> list[_Block]:
    """Split the lines into questions, reporting lines that fit nowhere."""
    blocks: list[_Block] = []
    current: _Block | None = None
    for lineno, raw in enumerate(input_lines(text), start=1):
        line = raw.strip()
        if not line:
            current = None
            continue
        if current is None or current.done:
            current = _Block(Draft(number=len(blocks) + 1, line=lineno))
            blocks.append(current)
        number = current.draft.number
        answer = _ANSWER.fullmatch(line)
        option = _OPTION.fullmatch(line)
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
            expected = chr(ord("A") + len(current.letters))
            if letter != expected:
                out.add(
                    lineno,
                    number,
                    f"choices[{len(current.letters)}]",
                    f"option letter {letter} out of order, expected {expected}; "
                    "letter the options A, B, C, ... in order",
                )
            current.letters.append(letter)
            current.draft.options.append((option_text.strip(), None))
        elif current.letters:
            out.add(
                lineno,
                number,
                f"choices[{len(current.letters) - 1}]",
                "line is neither an option ('A. text') nor 'ANSWER: X'; Aiken options are "
                "one line each and the question ends with an ANSWER line",
            )
        else:
            current.stem_lines.append(line)
    return blocks


def _check_block(block: _Block, out: Collector) -> None:
    """The whole-question checks: enough options, one ANSWER letter among them."""
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
    if block.answer is None:
        out.add(
            draft.line,
            number,
            "answer",
            "no ANSWER line; end the question with 'ANSWER: X' naming the right option",
        )
        return
    if re.fullmatch(r"[A-Z]", block.answer):
        if block.answer in block.letters:
            draft.correct = block.letters.index(block.answer)
            return
        listed = ", ".join(block.letters) or "none"
        message = (
            f"ANSWER {block.answer} is not among the options ({listed}); "
            "fix the letter or add the option"
        )
    elif _LETTERS.fullmatch(block.answer):
        letters = ", ".join(re.findall(r"[A-Z]", block.answer))
        message = (
            f"ANSWER names several right options ({quote(letters)[1:-1]}): a multiple-answer "
            "question; only multiple choice with one right answer is imported"
        )
    else:
        message = f"ANSWER {quote(block.answer)} must name one option letter, e.g. 'ANSWER: B'"
    out.add(block.answer_line, number, "answer", message)
