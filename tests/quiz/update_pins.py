"""Regenerate tests/quiz/pinned_answers.json from the bundled question bank.

Run from the repository root:

    python -m tests.quiz.update_pins

The pins record every bundled question id and the English text of its correct choice.
`test_pinned_answers.py` fails when either changes, so flipping an answer, rewording the
right choice or dropping an id is always a deliberate, reviewed change: rerun this
script and commit the JSON diff together with the question edit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bot.bank.loader import BankError, bundled_question_files, load_bank
from bot.quiz.model import Bank

PINS_PATH = Path(__file__).with_name("pinned_answers.json")
REGENERATE = "python -m tests.quiz.update_pins"


def bundled_bank() -> Bank:
    """The shipped bank; empty while questions/ holds no files yet."""
    files = bundled_question_files()
    return load_bank(files) if files else Bank.of([])


def compute_pins(bank: Bank) -> dict[str, str]:
    """Question id -> English text of its correct choice, sorted by id."""
    return {q.id: q.choices[q.correct_index].text.en for q in sorted(bank, key=lambda q: q.id)}


def render(pins: dict[str, str]) -> str:
    """The canonical file text: sorted keys, one pin a line, readable Unicode."""
    return json.dumps(pins, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def main() -> int:
    try:
        bank = bundled_bank()
    except BankError as exc:
        sys.stderr.write(f"{exc}\nfix the bank first (tpquiz validate), then rerun\n")
        return 1
    pins = compute_pins(bank)
    PINS_PATH.write_text(render(pins), encoding="utf-8")
    sys.stdout.write(f"wrote {len(pins)} pins to {PINS_PATH}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
