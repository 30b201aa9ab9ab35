"""Clue checks (issue 9 1): choices that give the key away, as `tpquiz validate` reports them.

An error fails the bank (key over 1.5x the longest distractor); warnings are printed by
validate and leave its exit status 0. The starting eight are exempt, and the bundled
bank has neither.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.bank.clues import ERROR_LONGEST_RATIO, WARNING_MEAN_RATIO, clues
from bot.bank.loader import bundled_question_files, check_files, inspect_files
from bot.cli.bank import main

STEM_EN = "Which collective sums partial results?"
STEM_TR = "Hangi kolektif işlem kısmi sonuçları toplar?"


def question(
    key: tuple[str, str],
    others: list[tuple[str, str]],
    *,
    stem: tuple[str, str] = (STEM_TR, STEM_EN),
    tags: str = "",
) -> str:
    lines = [
        "- id: q-1",
        "  topic: collectives",
        "  difficulty: 1",
        *([f"  tags: [{tags}]"] if tags else []),
        "  text:",
        f'    tr: "{stem[0]}"',
        f'    en: "{stem[1]}"',
        "  choices:",
        f'    - text: {{tr: "{key[0]}", en: "{key[1]}"}}',
        "      correct: true",
    ]
    for tr, en in others:
        lines += [
            f'    - text: {{tr: "{tr}", en: "{en}"}}',
            '      feedback: {tr: "Yanlış.", en: "Wrong."}',
        ]
    lines += [
        '  explanation: {tr: "Açıklama.", en: "Explanation."}',
        '  source: "NCCL documentation"',
        "",
    ]  # fmt: skip
    return "\n".join(lines)


BALANCED = [
    ("All-gather", "All-gather"),
    ("Broadcast", "Broadcast"),
    ("Reduce-scatter", "Reduce-scatter"),
]


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def validate(body: str) -> tuple[int, str, str]:
    Path("q.yaml").write_text(body, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["validate", "q.yaml"], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_balanced_question_has_no_clue() -> None:
    code, _, err = validate(question(("All-reduce", "All-reduce"), BALANCED))
    assert (code, err) == (0, "")


def test_a_key_over_1_5x_the_longest_distractor_fails_validate() -> None:
    key = (
        "Her rank'in parçasını toplayan all-reduce",
        "The all-reduce that adds every rank's part",
    )
    code, out, err = validate(question(key, BALANCED))
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "q.yaml:7: q-1: choices: the right choice is 2.93x as long as the longest wrong one "
        "(tr); over 1.5x length gives the answer away: move the justification into the "
        "explanation, or make the wrong choices as specific",
        "q.yaml:7: q-1: choices: the right choice is 3.00x as long as the longest wrong one "
        "(en); over 1.5x length gives the answer away: move the justification into the "
        "explanation, or make the wrong choices as specific",
        "2 problems in 1 file",
    ]


def test_a_key_above_1_15x_the_mean_is_a_warning_naming_the_ratio() -> None:
    others = [("Her rank'e all-gather", "An all-gather"), ("Kökten broadcast", "A broadcast"),
              ("Bir reduce-scatter", "A reduce-scatter")]  # fmt: skip
    key = ("Gruptaki bir all-reduce", "The group's all-reduce")
    code, out, err = validate(question(key, others))
    assert code == 0 and out.startswith("OK: 1 questions in 1 file")
    assert err.splitlines() == [
        "q.yaml:7: q-1: choices: warning: the right choice is 1.65x the mean length of the "
        "wrong ones (en), above 1.15; balance the choices' length and detail",
    ]


def test_a_few_characters_longer_is_not_a_clue_on_short_choices() -> None:
    """'1,75 GiB' against '7 GiB': over 1.15x, but by under WARNING_MIN_EXCESS characters."""
    code, _, err = validate(
        question(
            ("1,75 GiB", "1.75 GiB"),
            [("7 GiB", "7 GiB"), ("2 GiB", "2 GiB"), ("0,875 GiB", "0.875 GiB")],
        )
    )
    assert (code, err) == (0, "")


def test_the_key_alone_repeating_the_stem_is_a_warning() -> None:
    key = ("All-reduce", "The all-reduce of partial results")
    others = [("All-gather", "An all-gather of every shard here"), ("Broadcast", "A broadcast from the root rank"),
              ("Reduce-scatter", "A reduce-scatter then a gather")]  # fmt: skip
    code, _, err = validate(question(key, others))
    assert code == 0
    assert err.splitlines() == [
        "q.yaml:8: q-1: choices[0].text.en: warning: only the right choice repeats words of the "
        "stem (partia, result); reword it, or let a wrong choice use them too",
    ]


def test_absolute_words_only_in_distractors_are_a_warning() -> None:
    others = [("Her zaman all-gather", "Always all-gather"), ("Broadcast", "Never broadcast"),
              ("Reduce-scatter", "Reduce-scatter")]  # fmt: skip
    code, _, err = validate(question(("All-reduce", "All-reduce"), others))
    assert code == 0
    assert err.splitlines() == [
        "q.yaml:10: q-1: choices[1].text.tr: warning: absolute word 'Her zaman' appears only in "
        "wrong choices, which test-wise members rule out unread; qualify it, or word the right "
        "choice as firmly",
        "q.yaml:10: q-1: choices[1].text.en: warning: absolute word 'Always' appears only in "
        "wrong choices, which test-wise members rule out unread; qualify it, or word the right "
        "choice as firmly",
        "q.yaml:12: q-1: choices[2].text.en: warning: absolute word 'Never' appears only in "
        "wrong choices, which test-wise members rule out unread; qualify it, or word the right "
        "choice as firmly",
    ]


def test_an_absolute_word_in_the_key_too_is_no_clue() -> None:
    others = [("Her zaman all-gather", "Always all-gather"), ("Broadcast", "Broadcast"),
              ("Reduce-scatter", "Reduce-scatter")]  # fmt: skip
    code, _, err = validate(question(("Asla all-reduce", "Always all-reduce"), others))
    assert (code, err) == (0, "")


def test_the_starting_eight_are_exempt() -> None:
    key = (
        "Her rank'in kısmi toplamını toplayan all-reduce",
        "The all-reduce that sums every rank's part",
    )
    Path("q.yaml").write_text(question(key, BALANCED, tags="starting"), encoding="utf-8")
    bank, problems = check_files(["q.yaml"])
    assert problems == [] and bank is not None
    assert clues(bank["q-1"]) == []


def test_the_bundled_bank_has_no_clue_error_or_warning() -> None:
    report = inspect_files(bundled_question_files())
    assert report.problems == []
    assert report.warnings == [], "\n".join(map(str, report.warnings))


def test_the_thresholds_are_the_issues() -> None:
    assert (ERROR_LONGEST_RATIO, WARNING_MEAN_RATIO) == (1.5, 1.15)
