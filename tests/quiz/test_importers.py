"""Aiken and GIFT imports produce drafts that `tpquiz validate` keeps flagging until done."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.quiz.importers import ImportProblems, dump_yaml, import_aiken, import_gift
from bot.quiz.loader import check_files

IMPORT = Path(__file__).parent / "fixtures" / "import"


def _read(name: str) -> str:
    return (IMPORT / name).read_text(encoding="utf-8")


def _problems(func: Any, text: str) -> list[str]:
    with pytest.raises(ImportProblems) as info:
        func(text, lang="en", source_file="in.txt", id_prefix="imp")
    assert str(info.value) == "\n".join(str(p) for p in info.value.problems)
    return [str(p) for p in info.value.problems]


# --------------------------------------------------------------------------- Aiken


def test_aiken_good_file() -> None:
    questions = import_aiken(
        _read("good.aiken.txt"), lang="en", source_file="q.txt", topic="mlp-split", id_prefix="mq"
    )
    assert [q["id"] for q in questions] == ["mq-01", "mq-02", "mq-03"]
    first = questions[0]
    assert first == {
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


def test_aiken_multiline_stem_and_lowercase_answer() -> None:
    text = "First line of the stem\nsecond line?\nA. yes\nB. no\nanswer: b\n"
    [question] = import_aiken(text, lang="tr", source_file="x", id_prefix="p")
    assert question["text"] == {"tr": "First line of the stem\nsecond line?"}
    assert [c.get("correct", False) for c in question["choices"]] == [False, True]


def test_aiken_broken_file_reports_every_problem_with_lines() -> None:
    assert _problems(import_aiken, _read("broken.aiken.txt")) == [
        "in.txt:1: imp-01: text: option 'A.' comes before any question text; write the "
        "question on the line(s) before its options",
        "in.txt:5: imp-02: answer: no ANSWER line; end the question with 'ANSWER: X' naming "
        "the right option",
        "in.txt:12: imp-03: answer: ANSWER D is not among the options (A, B); fix the letter "
        "or add the option",
        "in.txt:14: imp-04: choices: has 1 option(s); write at least 2 lines like 'A. text'",
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
        ("Q?\nA. a\nB. b\nANSWER: AB\n", "in.txt:4: imp-01: answer: 'ANSWER: AB' must name one"),
        ("", "in.txt:1: -: -: no questions found"),
    ],
)
def test_aiken_errors(text: str, expected: str) -> None:
    assert any(line.startswith(expected) for line in _problems(import_aiken, text))


# --------------------------------------------------------------------------- GIFT


def test_gift_good_file() -> None:
    questions = import_gift(
        _read("good.gift"), lang="en", source_file="q.gift", topic="collectives", id_prefix="g"
    )
    assert [q["id"] for q in questions] == ["g-01", "g-02", "g-03"]
    first = questions[0]
    assert first["text"] == {
        "en": "In Megatron-LM's MLP block, how is the first weight matrix A split?"
    }  # the ::title:: is dropped, multi-line answers read
    assert first["choices"] == [
        {
            "text": {"en": "By columns"},
            "correct": True,
            "feedback": {"en": "Each GPU then applies GeLU locally."},
        },
        {
            "text": {"en": "By rows"},
            "feedback": {"en": "A row split needs a sum before GeLU, which is nonlinear."},
        },
        {"text": {"en": "Not at all"}, "feedback": {"en": "That is data parallelism."}},
    ]
    assert first["explanation"] == {
        "en": "Splitting A by columns lets every GPU compute GeLU(XA_i) with no communication."
    }
    missing_word = questions[1]
    assert missing_word["text"]["en"] == (
        "The output of a row-parallel layer is combined with an ___ across the "
        "tensor-parallel group."
    )
    assert [c.get("correct", False) for c in missing_word["choices"]] == [False, True, False]
    assert missing_word["choices"][2]["feedback"] == {"en": "Broadcast copies one rank's tensor."}
    escaped = questions[2]
    assert escaped["text"]["en"] == "What does Y = X {A} compute: a ~ b # c?"


def test_gift_broken_file_names_each_unsupported_kind() -> None:
    lines = _problems(import_gift, _read("broken.gift"))
    expected_starts = [
        "in.txt:2: imp-01: answers: true/false ('{T}' / '{F}') questions are not supported",
        "in.txt:4: imp-02: answers: numeric ('{#...}') questions are not supported",
        "in.txt:6: imp-03: answers: matching questions ('a -> b') are not supported",
        "in.txt:8: imp-04: answers: short answer questions (only '=' answers) are not supported",
        "in.txt:10: imp-05: answers: essay ('{}') questions are not supported",
        "in.txt:12: imp-06: answers: no right answer; mark exactly one answer with '='",
        "in.txt:14: imp-07: choices[0]: percentage weight '%50%' is not supported",
        "in.txt:14: imp-07: choices[1]: percentage weight '%50%' is not supported",
        "in.txt:14: imp-07: choices[2]: percentage weight '%-100%' is not supported",
        "in.txt:16: imp-08: answers: 2 answers are marked '='",
    ]
    assert len(lines) == len(expected_starts)
    for line, start in zip(lines, expected_starts, strict=True):
        assert line.startswith(start), (line, start)
    assert all("only multiple choice" in line for line in lines[:5])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("No braces here.", "in.txt:1: imp-01: answers: no answer block"),
        ("Q {=a ~b", "in.txt:1: imp-01: answers: '{' is never closed"),
        ("Q {=a ~b} and {=c ~d}", "in.txt:1: imp-01: answers: more than one answer block"),
        ("Q {oops =a ~b}", "in.txt:1: imp-01: answers: text 'oops' before the first answer"),
        ("::never closed Q {=a ~b}", "in.txt:1: imp-01: title: '::' opens a title"),
        ("{=a ~b}", "in.txt:1: imp-01: text: no question text"),
        ("Q {=a ~#only feedback}", "in.txt:1: imp-01: choices[1]: empty answer"),
        ("// only a comment\n", "in.txt:1: -: -: no questions found"),
        ("Q {\n=a\n~b\n=c\n}", "in.txt:4: imp-01: answers: 2 answers are marked '='"),
    ],
)
def test_gift_errors(text: str, expected: str) -> None:
    lines = _problems(import_gift, text)
    assert any(line.startswith(expected) for line in lines), lines


def test_gift_true_false_with_feedback_and_numeric_range_are_named() -> None:
    lines = _problems(import_gift, "A? {TRUE#right#wrong}\n\nB? {#1.5:0.1}\n")
    assert "true/false" in lines[0] and "numeric" in lines[1]


def test_gift_format_marker_and_newline_escape() -> None:
    [q] = import_gift(
        "[markdown]Line one\\nline two? {=yes ~no#because}",
        lang="en",
        source_file="x",
        id_prefix="p",
    )
    assert q["text"]["en"] == "Line one\nline two?"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"id_prefix": "Bad Prefix"}, "id prefix"),
        ({"id_prefix": "p" * 37}, "id prefix"),
        ({"id_prefix": "ok", "topic": "nope"}, "unknown topic"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs: dict[str, str], message: str) -> None:
    for func in (import_aiken, import_gift):
        with pytest.raises(ValueError, match=message):
            func("Q?\nA. a\nB. b\nANSWER: A\n", lang="en", source_file="x", **kwargs)


# --------------------------------------------------------------------------- YAML output


def test_dump_yaml_is_bank_style_and_round_trips() -> None:
    questions = import_gift(_read("good.gift"), lang="tr", source_file="x", id_prefix="g")
    questions[0]["explanation"]["tr"] = "Satır bir\nsatır iki: ğüşiöç"
    text = dump_yaml(questions)
    lines = text.splitlines()
    assert lines[0] == "# yaml-language-server: $schema=./question.schema.json"
    assert lines[1] == "- id: g-01"
    assert "- id: g-02" in lines and lines[lines.index("- id: g-02") - 1] == ""
    assert "    - text: {tr: By columns}" in lines  # choices indented, texts on one line
    assert "ğüşiöç" in text  # allow_unicode: Turkish stays readable
    assert "    tr: |-" in lines  # multi-line text as a block
    assert yaml.safe_load(text) == questions


def test_dump_yaml_of_nothing_is_an_empty_list() -> None:
    assert yaml.safe_load(dump_yaml([])) == []


def test_imported_draft_is_flagged_until_translated_and_completed(tmp_path: Path) -> None:
    """The other language is left out, so validate says exactly what is left to do."""
    questions = import_aiken(
        "Which collective adds partial sums?\nA. All-reduce\nB. Broadcast\nANSWER: A\n",
        lang="en",
        source_file="x",
        topic="collectives",
        id_prefix="imp",
    )
    draft = tmp_path / "draft.yaml"
    draft.write_text(dump_yaml(questions), encoding="utf-8")
    _, problems = check_files([draft])
    assert sorted(p.field for p in problems) == [
        "choices[0].text.tr",
        "choices[1].feedback.en",
        "choices[1].feedback.tr",
        "choices[1].text.tr",
        "explanation.en",
        "explanation.tr",
        "source",
        "text.tr",
    ]
    assert any(p.message.startswith("missing language tr") for p in problems)

    q = questions[0]
    q["text"]["tr"] = "Hangi kolektif kısmi toplamları toplar?"
    q["choices"][0]["text"]["tr"] = "All-reduce"
    q["choices"][1]["text"]["tr"] = "Broadcast"
    q["choices"][1]["feedback"] = {"tr": "Yalnızca kopyalar.", "en": "It only copies."}
    q["explanation"] = {"tr": "All-reduce toplar.", "en": "All-reduce sums."}
    q["source"] = "Megatron-LM §3"
    draft.write_text(dump_yaml(questions), encoding="utf-8")
    bank, problems = check_files([draft])
    assert problems == [] and bank is not None and bank["imp-01"].correct_index == 0
