"""Aiken: questions read with their lines; what cannot be imported skipped or refused."""

from __future__ import annotations

import pytest

from bot.bank.importers import ImportProblems, import_aiken
from tests.quiz.importers import read_fixture, skipped, strict_problems


def test_good_file() -> None:
    result = import_aiken(
        read_fixture("good.aiken.txt"),
        lang="en",
        source_file="q.txt",
        topic="mlp-split",
        id_prefix="mq",
    )
    assert result.skipped == []
    questions = result.questions
    assert [q["id"] for q in questions] == ["mq-01", "mq-02", "mq-03"]
    assert questions[0] == {
        "id": "mq-01",
        "topic": "mlp-split",
        "difficulty": 1,
        "text": {"en": "In Megatron-LM's MLP block, how is the first weight matrix A split?"},
        "choices": [
            {"text": {"en": "By columns"}, "correct": True},
            {"text": {"en": "By rows"}, "feedback": {"en": ""}},
            {"text": {"en": "Not at all"}, "feedback": {"en": ""}},
        ],
        "explanation": {"en": ""},
        "source": "",
    }
    # "A)" options, and a question straight after the previous ANSWER line.
    assert questions[1]["choices"][0] == {"text": {"en": "All-reduce"}, "correct": True}
    assert questions[2]["text"]["en"].startswith("With a tensor-parallel size of 4")


def test_multiline_stem_lowercase_answer_bom_and_crlf() -> None:
    text = "\ufeffFirst line of the stem\r\nsecond line?\r\nA. yes\r\nB. no\r\nanswer: b\r\n"
    [question] = import_aiken(text, lang="tr", source_file="x", id_prefix="p").questions
    assert question["text"] == {"tr": "First line of the stem\nsecond line?"}
    assert [c.get("correct", False) for c in question["choices"]] == [False, True]


_BROKEN = [
    "in.txt:1: {}text: option 'A.' comes before any question text; write the question on the "
    "line(s) before its options",
    "in.txt:5: {}answer: no ANSWER line; end the question with 'ANSWER: X' naming the right option",
    "in.txt:12: {}answer: ANSWER D is not among the options (A, B); fix the letter or add the "
    "option",
    "in.txt:14: {}choices: has 1 option(s); write at least 2 lines like 'A. text'",
]


def test_broken_file_strict_reports_every_problem_with_lines() -> None:
    ids = ["imp-01: ", "imp-02: ", "imp-03: ", "imp-04: "]
    assert strict_problems(import_aiken, read_fixture("broken.aiken.txt")) == [
        line.format(qid) for line, qid in zip(_BROKEN, ids, strict=True)
    ]


def test_broken_file_lenient_skips_each_question_once() -> None:
    expected = [
        line.format("")
        .replace(": text: ", ": skipped: ", 1)
        .replace(": answer: ", ": skipped: ", 1)
        .replace(": choices: ", ": skipped: ", 1)
        for line in _BROKEN
    ]
    assert skipped(import_aiken, read_fixture("broken.aiken.txt")) == expected


def test_good_questions_around_a_broken_one_are_imported() -> None:
    text = (
        "Q1?\nA. a\nB. b\nANSWER: A\n\nQ2?\nA. a\nC. c\nANSWER: A\n\nQ3?\nA. a\nB. b\nANSWER: B\n"
    )
    result = import_aiken(text, lang="en", source_file="in.txt", id_prefix="imp")
    assert [q["text"]["en"] for q in result.questions] == ["Q1?", "Q3?"]
    assert [q["id"] for q in result.questions] == ["imp-01", "imp-02"]
    assert [str(s) for s in result.skipped] == [
        "in.txt:8: skipped: option letter C out of order, expected B; letter the options A, "
        "B, C, ... in order"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Q?\nA. a\nC. c\nANSWER: A\n",
            "in.txt:3: imp-01: choices[1]: option letter C out of order",
        ),
        (
            "Q?\nA. a\nB. b\nstray line\nANSWER: A\n",
            "in.txt:4: imp-01: choices[1]: line is neither",
        ),
        ("Q?\nA. a\nB. b\nANSWER: 2\n", "in.txt:4: imp-01: answer: ANSWER '2' must name one"),
        ("", "in.txt:1: -: -: no questions found"),
    ],
)
def test_errors(text: str, expected: str) -> None:
    assert any(line.startswith(expected) for line in strict_problems(import_aiken, text))


def test_several_answer_letters_are_a_multiple_answer_question() -> None:
    assert skipped(import_aiken, "Q?\nA. a\nB. b\nC. c\nANSWER: A, C\n") == [
        "in.txt:5: skipped: ANSWER names several right options (A, C): a multiple-answer "
        "question; only multiple choice with one right answer is imported"
    ]


def test_nothing_found_is_raised_even_when_lenient() -> None:
    with pytest.raises(ImportProblems, match="no questions found"):
        import_aiken("\n\n", lang="en", source_file="x")


def test_a_huge_answer_line_is_quoted_short() -> None:
    [line] = skipped(import_aiken, "Q?\nA. a\nB. b\nANSWER: " + "9" * 1_000_000 + "\n")
    assert line == (
        f"in.txt:4: skipped: ANSWER '{'9' * 59}…' must name one option letter, e.g. 'ANSWER: B'"
    )
