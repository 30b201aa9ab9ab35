"""Members' suggestions, the pure rules (bot/quiz/suggestions.py) and the checks of what
the modal holds (bot/bank/suggestion_check.py): the `answer | why` lines, empty and
over-long fields, too many wrong answers, duplicate choices, member text made inert,
the states a suggestion may move through, and the bank's own checks named by field."""

from __future__ import annotations

import pytest

from bot.bank.suggestion_check import check_draft
from bot.quiz.model import MAX_QUESTION_TEXT
from bot.quiz.suggestions import (
    FIELD_LIMITS,
    MAX_WRONG,
    Draft,
    can_decide,
    can_resubmit,
    credited_source,
    draft_problems,
    parse_wrong,
    plain,
    to_question,
)

GOOD = Draft(
    text="Our cluster has 4 GPUs per node joined by PCIe only."
    " Where should the tensor-parallel group sit?",
    right="Within one node, with a tensor-parallel size of 4 at most",
    wrong="Across two nodes, to spread the all-reduce over both networks"
    " | Each all-reduce would then cross the slower inter-node link.\n"
    "Across all nodes, so each GPU holds the smallest weight slice"
    " | The per-layer all-reduces would all cross the network; too slow.",
    explanation="Tensor parallelism all-reduces activations in every layer,"
    " so it belongs on the fastest links: inside a node.",
    source="Our reading group, session 3",
)


def _with(**changes: str) -> Draft:
    return Draft(**{**GOOD.fields(), **changes})


def _keys(draft: Draft) -> list[tuple[str, str, dict[str, object]]]:
    return [(p.field, p.key, dict(p.params)) for p in draft_problems(draft)]


def test_each_line_is_an_answer_and_why_it_is_wrong() -> None:
    lines, problems = parse_wrong("  A | because x | and y \n\n B|why B  \n")
    assert problems == []
    assert [(w.text, w.why) for w in lines] == [("A", "because x | and y"), ("B", "why B")]


def test_a_good_draft_has_no_problem_and_passes_the_banks_checks() -> None:
    assert draft_problems(GOOD) == []
    check = check_draft(GOOD, "suggestion-7", "en")
    assert check.ok and check.question is not None
    question, languages = check.question
    assert languages == ("en",) and question.id == "suggestion-7"
    assert question.topic == "practice" and question.difficulty == 2
    assert [c.correct for c in question.choices] == [True, False, False]
    assert question.choices[1].feedback is not None
    assert (
        question.choices[1].feedback.en
        == "Each all-reduce would then cross the slower inter-node link."
    )


@pytest.mark.parametrize("field", ["text", "right", "explanation", "source"])
def test_an_empty_field_is_named(field: str) -> None:
    assert _keys(_with(**{field: "  \n "})) == [(field, "suggest_empty", {})]


def test_no_wrong_answer_is_a_problem() -> None:
    assert _keys(_with(wrong="\n  \n")) == [("wrong", "suggest_no_wrong", {})]


def test_more_than_four_wrong_answers_is_a_problem() -> None:
    wrong = "\n".join(f"Answer {i} | reason {i}" for i in range(MAX_WRONG + 1))
    assert _keys(_with(wrong=wrong)) == [("wrong", "suggest_too_many_wrong", {"n": 5})]


def test_a_line_without_a_reason_is_named_by_its_number() -> None:
    wrong = "Across two nodes | slow link\nAcross all nodes\nOne GPU |  "
    assert _keys(_with(wrong=wrong)) == [
        ("wrong", "suggest_no_why", {"line": 2}),
        ("wrong", "suggest_no_why", {"line": 3}),
    ]
    assert _keys(_with(wrong=" | only a reason")) == [("wrong", "suggest_empty_wrong", {"line": 1})]


def test_duplicate_choices_are_problems_whatever_the_case_and_spaces() -> None:
    wrong = "within ONE  node, with a tensor-parallel size of 4 at most | no\nB | x\nb | y"
    assert _keys(_with(wrong=wrong)) == [
        ("wrong", "suggest_duplicate", {"line": 1}),
        ("wrong", "suggest_duplicate", {"line": 3}),
    ]


def test_over_long_fields_and_a_multi_line_answer_are_problems() -> None:
    long = "x" * (MAX_QUESTION_TEXT + 1)
    assert _keys(_with(text=long)) == [
        ("text", "suggest_too_long", {"n": MAX_QUESTION_TEXT + 1, "limit": MAX_QUESTION_TEXT})
    ]
    assert ("right", "suggest_one_line", {}) in _keys(_with(right="a\nb"))
    # The modal's limits are Discord's at most (a text input takes 4,000 characters).
    assert max(FIELD_LIMITS.values()) <= 4000


def test_the_banks_problems_are_named_by_the_modal_field() -> None:
    # The length clue: the right answer far longer than the wrong ones.
    check = check_draft(_with(wrong="Two nodes | slow link.\nAll nodes | too slow."), "s-1", "en")
    assert not check.ok and check.question is None
    [clue] = [p for p in check.problems if "right choice is" in (p.message or "")]
    assert clue.field == "right"
    # A wrong answer's feedback over the bank's limit is the wrong answers' field.
    wrong = "Across two nodes | " + "x" * 501
    check = check_draft(_with(wrong=wrong), "suggestion-1", "en")
    assert [p.field for p in check.problems] == ["wrong"]
    assert check.problems[0].message is not None and check.problems[0].message.startswith("#1: ")


def test_the_question_is_written_in_the_members_language_only() -> None:
    item = to_question(GOOD, "suggestion-1", "tr")
    assert item["text"] == {"tr": GOOD.text}
    assert item["explanation"] == {"tr": GOOD.explanation}


def test_member_text_is_made_inert() -> None:
    shown = plain("**bold** @everyone <@123>\n[x](http://e)")
    assert shown == ("\\*\\*bold\\*\\* @\u200beveryone \\<@\u200b123\\> \\[x\\]\\(http\\://e\\)")


def test_the_credit_names_the_author_or_a_member() -> None:
    assert credited_source("Paper, p. 3", "Ayşe *A*", "tr") == r"Paper, p. 3 · öneren: Ayşe \*A\*"
    assert credited_source("Paper", None, "en") == "Paper · suggested by a member"
    assert credited_source("Paper", "@everyone", "en") == "Paper · suggested by @\u200beveryone"


def test_states_move_only_as_allowed() -> None:
    assert can_decide("open")
    assert not any(can_decide(s) for s in ("draft", "changes", "accepted", "rejected"))
    assert can_resubmit("draft") and can_resubmit("changes")
    assert not any(can_resubmit(s) for s in ("open", "accepted", "rejected"))
