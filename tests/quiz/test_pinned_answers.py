"""The bundled bank's ids and right answers change only on purpose.

A typo that moves `correct: true`, a reworded right choice or a deleted question would
otherwise pass validation silently and change what players are scored against. The
pins (tests/quiz/pinned_answers.json) make such edits show up as a failing test and a
JSON diff in review.
"""

from __future__ import annotations

import json
from pathlib import Path

from bot.bank.loader import load_bank
from tests.quiz.update_pins import PINS_PATH, REGENERATE, bundled_bank, compute_pins, render

GOOD = Path(__file__).parent / "fixtures" / "good"


def _explain(pins: dict[str, str], actual: dict[str, str]) -> str:
    lines = []
    for qid in sorted(set(pins) - set(actual)):
        lines.append(f"  removed: {qid}")
    for qid in sorted(set(actual) - set(pins)):
        lines.append(f"  new: {qid} -> {actual[qid]!r}")
    for qid in sorted(set(pins) & set(actual)):
        if pins[qid] != actual[qid]:
            lines.append(f"  answer changed: {qid}: {pins[qid]!r} -> {actual[qid]!r}")
    return (
        "the bundled bank's ids or correct answers differ from tests/quiz/pinned_answers.json:\n"
        + "\n".join(lines)
        + f"\nif this is deliberate, regenerate the pins with `{REGENERATE}` and commit the diff"
    )


def test_bundled_bank_matches_pins() -> None:
    pins = json.loads(PINS_PATH.read_text(encoding="utf-8"))
    actual = compute_pins(bundled_bank())
    assert actual == pins, _explain(pins, actual)


def test_pins_file_is_canonical() -> None:
    """Sorted and formatted as update_pins writes it, so diffs stay one line per change."""
    text = PINS_PATH.read_text(encoding="utf-8")
    assert text == render(json.loads(text)), f"reformat with `{REGENERATE}`"


def test_pins_record_the_english_correct_choice() -> None:
    assert compute_pins(load_bank([GOOD])) == {
        "fx-collectives-01": "One",
        "fx-memory-01": "2 GB",
        "fx-mlp-01": "By columns (column parallel)",
    }


def test_explanation_names_each_kind_of_change() -> None:
    message = _explain({"a": "x", "b": "y"}, {"b": "z", "c": "w"})
    assert "removed: a" in message
    assert "new: c -> 'w'" in message
    assert "answer changed: b: 'y' -> 'z'" in message
    assert REGENERATE in message
