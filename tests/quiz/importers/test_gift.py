"""GIFT: the multiple-choice questions of a mixed export imported, every other one named."""

from __future__ import annotations

from typing import Any

import pytest

from bot.bank.importers import ImportProblems, import_gift
from tests.quiz.importers import read_fixture, skipped, strict_problems

_ONLY_MC = "only multiple choice with one right answer is imported"


def test_good_file() -> None:
    result = import_gift(
        read_fixture("good.gift"),
        lang="en",
        source_file="q.gift",
        topic="collectives",
        id_prefix="g",
    )
    assert result.skipped == []
    questions = result.questions
    assert [q["id"] for q in questions] == ["g-01", "g-02", "g-03"]
    first = questions[0]
    assert first["topic"] == "collectives"
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
    assert questions[2]["text"]["en"] == "What does Y = X {A} compute: a ~ b # c?"


# --------------------------------------------------------------------------- the mixed file

#: (line, why) of every question of mixed.gift that is not imported, in file order.
MIXED_SKIPPED = [
    (6, f"true/false question ('{{T}}' / '{{F}}'); {_ONLY_MC}"),
    (8, f"true/false question ('{{T}}' / '{{F}}'); {_ONLY_MC}"),
    (10, f"true/false question ('{{T}}' / '{{F}}'); {_ONLY_MC}"),
    (20, f"short answer question (only '=' answers); {_ONLY_MC}"),
    (23, f"numeric question ('{{#...}}'); {_ONLY_MC}"),
    (25, f"numeric question ('{{#...}}'); {_ONLY_MC}"),
    (
        28,
        f"several answers share the credit (%50%, %50%): a multiple-answer question; {_ONLY_MC}",
    ),
    (38, f"the only right answer earns partial credit (%50%); {_ONLY_MC}"),
    (41, f"matching question ('a -> b'); {_ONLY_MC}"),
    (48, f"essay question ('{{}}'); {_ONLY_MC}"),
    (50, f"essay question ('{{}}'); {_ONLY_MC}"),
    (53, f"description (no answer block {{...}}); {_ONLY_MC}"),
    (73, "shows an image (<img>), which a Discord question cannot; describe it in words"),
    (76, "'{' is never closed; add the '}'"),
]


@pytest.fixture(name="mixed")
def _mixed() -> list[dict[str, Any]]:
    result = import_gift(
        read_fixture("mixed.gift"), lang="en", source_file="mixed.gift", id_prefix="mx"
    )
    assert [str(s) for s in result.skipped] == [
        f"mixed.gift:{line}: skipped: {why}" for line, why in MIXED_SKIPPED
    ]
    return result.questions


def test_mixed_file_imports_exactly_the_single_answer_multiple_choice(
    mixed: list[dict[str, Any]],
) -> None:
    assert [(q["id"], q["text"]["en"]) for q in mixed] == [
        ("mx-01", "Which collective sums the partial outputs of a row-parallel layer?"),
        ("mx-02", "How many all-reduces does one layer need in the backward pass?"),
        ("mx-03", "In GIFT, which of ~ = # { } : needs a backslash?"),
        (
            "mx-04",
            "The output of a **row-parallel** layer is combined with an ___ across the group.",
        ),
        ("mx-05", "Which split lets each GPU apply GeLU locally?\nPick one answer."),
    ]


def test_mixed_feedback_and_general_feedback(mixed: list[dict[str, Any]]) -> None:
    assert mixed[0]["choices"] == [
        {
            "text": {"en": "All-reduce"},
            "correct": True,
            "feedback": {"en": "It adds the partial sums and leaves the total on every rank."},
        },
        {
            "text": {"en": "All-gather"},
            "feedback": {"en": "It concatenates shards; it does not add them."},
        },
        {
            "text": {"en": "Broadcast"},
            "feedback": {"en": "It copies one rank's tensor to the others."},
        },
    ]
    assert mixed[0]["explanation"] == {
        "en": "The row-parallel output is a sum of partial products, so it needs an all-reduce."
    }


def test_mixed_single_key_weights_become_right_and_wrong(mixed: list[dict[str, Any]]) -> None:
    """%100% is the right answer; %0% and negative weights are wrong ones."""
    assert [(c["text"]["en"], c.get("correct", False)) for c in mixed[1]["choices"]] == [
        ("Two", True),
        ("One", False),
        ("Four", False),
    ]


def test_mixed_escapes_in_answers_and_feedback(mixed: list[dict[str, Any]]) -> None:
    assert [(c["text"]["en"], c["feedback"]["en"]) for c in mixed[2]["choices"]] == [
        ("All of them", "Each of ~ = # { } : has a meaning in GIFT."),
        ("Only { and }", "~ and = start answers too."),
        ("None", "Unescaped, # starts feedback."),
    ]


def test_mixed_html_answers_inherit_the_format(mixed: list[dict[str, Any]]) -> None:
    assert [c["text"]["en"] for c in mixed[4]["choices"]] == [
        "Column split",
        "Row split",
        "No split",
    ]


def test_mixed_strict_refuses_and_lists_every_problem_with_id_and_field() -> None:
    problems = strict_problems(import_gift, read_fixture("mixed.gift"))
    assert (
        problems[0]
        == f"in.txt:6: imp-01: answers: true/false question ('{{T}}' / '{{F}}'); {_ONLY_MC}"
    )
    assert problems[-1] == "in.txt:76: imp-19: answers: '{' is never closed; add the '}'"
    assert len(problems) == len(MIXED_SKIPPED)


# --------------------------------------------------------------------------- the rest


def test_broken_file_names_each_kind() -> None:
    assert skipped(import_gift, read_fixture("broken.gift")) == [
        f"in.txt:2: skipped: true/false question ('{{T}}' / '{{F}}'); {_ONLY_MC}",
        f"in.txt:4: skipped: numeric question ('{{#...}}'); {_ONLY_MC}",
        f"in.txt:6: skipped: matching question ('a -> b'); {_ONLY_MC}",
        f"in.txt:8: skipped: short answer question (only '=' answers); {_ONLY_MC}",
        f"in.txt:10: skipped: essay question ('{{}}'); {_ONLY_MC}",
        "in.txt:12: skipped: no right answer; mark exactly one answer with '=' (the others "
        "with '~')",
        "in.txt:14: skipped: several answers share the credit (%50%, %50%): a multiple-answer "
        f"question; {_ONLY_MC}",
        "in.txt:16: skipped: 2 answers are marked right; a question has exactly one right "
        "answer (escape a literal '=' inside an answer as '\\=')",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("No braces here.", "in.txt:1: imp-01: answers: description (no answer block"),
        ("Q {=a ~b", "in.txt:1: imp-01: answers: '{' is never closed"),
        ("Q {=a ~b} and {=c ~d}", "in.txt:1: imp-01: answers: more than one answer block"),
        ("Q {oops =a ~b}", "in.txt:1: imp-01: answers: text 'oops' before the first answer"),
        ("::never closed Q {=a ~b}", "in.txt:1: imp-01: title: '::' opens a title"),
        ("{=a ~b}", "in.txt:1: imp-01: text: no question text"),
        ("Q {=a ~#only feedback}", "in.txt:1: imp-01: choices[1]: empty answer"),
        ("// only a comment\n", "in.txt:1: -: -: no questions found"),
        ("Q {\n=a\n~b\n=c\n}", "in.txt:4: imp-01: answers: 2 answers are marked right"),
        ("Q {~%100%a ~%100%b}", "in.txt:1: imp-01: answers: 2 answers are marked right"),
        ("Q {TRUE#right#wrong}", "in.txt:1: imp-01: answers: true/false question"),
        ("Q {#1.5:0.1}", "in.txt:1: imp-01: answers: numeric question"),
        ("Q {####only general feedback}", "in.txt:1: imp-01: answers: essay question"),
        (
            "Q {~wrong ~%50%half =full}",
            "in.txt:1: imp-01: answers: an answer besides the right one earns partial credit "
            "(%50%); tpquiz has no partial credit: weight it %0% or %100% to import the question",
        ),
    ],
)
def test_errors(text: str, expected: str) -> None:
    lines = strict_problems(import_gift, text)
    assert any(line.startswith(expected) for line in lines), lines


def test_nothing_found_is_raised_even_when_lenient() -> None:
    with pytest.raises(ImportProblems, match="no questions found"):
        import_gift("// only a comment\n$CATEGORY: x\n", lang="en", source_file="x")


def test_one_question_with_several_problems_is_skipped_once() -> None:
    assert skipped(import_gift, "{=a ~}") == [
        "in.txt:1: skipped: empty answer; write its text (and 1 more problem(s); --strict "
        "lists them all)"
    ]


def test_format_marker_and_newline_escape() -> None:
    [q] = import_gift(
        "[markdown]Line one\\nline two? {=yes ~no#because}",
        lang="en",
        source_file="x",
        id_prefix="p",
    ).questions
    assert q["text"]["en"] == "Line one\nline two?"


def test_title_after_a_byte_order_mark_is_dropped() -> None:
    [q] = import_gift("\ufeff::t:: Q? {=a ~b}", lang="en", source_file="x", id_prefix="p").questions
    assert q["text"]["en"] == "Q?"


def test_crlf_and_cr_lines_are_counted_as_an_editor_does() -> None:
    text = "Q1 {=a ~b}\r\n\r\nQ2 {T}\r\rQ3\x0c still three {F}\n"
    assert skipped(import_gift, text) == [
        f"in.txt:3: skipped: true/false question ('{{T}}' / '{{F}}'); {_ONLY_MC}",
        f"in.txt:5: skipped: true/false question ('{{T}}' / '{{F}}'); {_ONLY_MC}",
    ]


def test_line_of_an_answer_deep_in_a_long_block() -> None:
    answers = "\n".join(f"~wrong {i}" for i in range(5000))
    text = f"// c\nQ {{\n=right\n{answers}\n=again\n}}"
    assert strict_problems(import_gift, text) == [
        "in.txt:5004: imp-01: answers: 2 answers are marked right; a question has exactly "
        "one right answer (escape a literal '=' inside an answer as '\\=')"
    ]


def test_a_huge_stray_text_is_quoted_short() -> None:
    [line] = skipped(import_gift, "Q {" + "x" * 1_000_000 + " =a ~b}")
    assert line == (
        f"in.txt:1: skipped: text '{'x' * 59}…' before the first answer; start each answer "
        "with '=' (right) or '~' (wrong), and escape a literal '=' or '~' as '\\=' or '\\~'"
    )
