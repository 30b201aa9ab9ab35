"""Integers of thousands of digits in question and template files (issue 31, defect 11).

A hexadecimal (or octal, binary, 60-base) integer converts without Python's 4,300-digit
limit, so it used to reach a message whole and end `tpquiz validate` and `tpquiz run` in
`ValueError: Exceeds the limit (4300 digits)`. Each case is the real command on real
files: one `file:line` sentence that gives the length, never the digits, and no traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.quiz.test_loader import _question
from tests.test_cli import FAKE_TOKEN, tpquiz

ROOT = Path(__file__).resolve().parents[1]
HEX = "0x" + "f" * 6000
#: The first template of a bundled file: a real template to break one field of.
TEMPLATE = (
    "- id: "
    + (ROOT / "questions/templates/3d-parallelism.yaml")
    .read_text(encoding="utf-8")
    .split("\n- id: ")[1]
)


def _validate_says(cwd: Path, message: str) -> None:
    """`tpquiz validate bank` fails with exactly this one problem, and no traceback."""
    result = tpquiz("validate", "bank", cwd=cwd)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"{message}\n1 problem in 1 file\n"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("- id: q-1", f"- id: {HEX}",
         "bank/q.yaml:1: -: id: must be a string, got an integer of 6000 digits; quote it if "
         "YAML read it as another type"),
        ("  topic: basics", f"  topic: {HEX}",
         "bank/q.yaml:2: q-1: topic: must be a string, got an integer of 6000 digits; quote it "
         "if YAML read it as another type"),
        ("  difficulty: 1", f"  difficulty: {HEX}",
         "bank/q.yaml:3: q-1: difficulty: must be an integer 1, 2 or 3, got an integer of "
         "6000 digits"),
        ("  difficulty: 1", "  difficulty: 0b" + "1" * 20000,
         "bank/q.yaml:3: q-1: difficulty: must be an integer 1, 2 or 3, got an integer of "
         "20000 digits"),
        ("  difficulty: 1", "  difficulty: 0x" + "f" * 3600,  # few digits, a value too long
         "bank/q.yaml:3: q-1: difficulty: must be an integer 1, 2 or 3, got an integer of "
         "3600 digits"),
    ],
    ids=["id", "topic", "difficulty", "binary", "hex-under-4300-digits"],
)  # fmt: skip
def test_validate_names_a_huge_integer_by_its_length(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "q.yaml").write_text(_question().replace(old, new), encoding="utf-8")
    _validate_says(tmp_path, message)


def test_run_refuses_a_bank_with_a_hexadecimal_id_in_one_sentence(tmp_path: Path) -> None:
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "q.yaml").write_text(_question().replace("- id: q-1", f"- id: {HEX}"))
    result = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_QUESTIONS=str(bank))
    assert result.returncode == 1
    assert result.stderr == (
        "tpquiz: the question bank is invalid; fix these and start again:\n"
        "bank/q.yaml:1: -: id: must be a string, got an integer of 6000 digits; quote it if "
        "YAML read it as another type\n"
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("tpl-pipeline-bubble", HEX,
         "bank/templates/t.yaml:1: -: -: holds an integer of more than 4,300 digits; a "
         "template's numbers are short"),
        ("  topic: 3d-parallelism", f"  topic: {HEX}",
         "bank/templates/t.yaml:2: -: -: holds an integer of more than 4,300 digits; a "
         "template's numbers are short"),
        ("p: [4, 8, 16]", f"p: [4, 8, {HEX}]",
         "bank/templates/t.yaml:6: -: -: holds an integer of more than 4,300 digits; a "
         "template's numbers are short"),
        ("value: (p - 1) / m * 100", "value: log2((0x" + "f" * 250 + ") ** 64)",
         "bank/templates/t.yaml:1: tpl-pipeline-bubble: params: template tpl-pipeline-bubble: "
         "no usable draw in 200 tries (log2 of a long number, which is not a power of two)"),
        ("value: (p - 1) / m * 100", "value: (0x" + "f" * 250 + ") ** 64",
         "bank/templates/t.yaml:1: tpl-pipeline-bubble: params: template tpl-pipeline-bubble: "
         "no usable draw in 200 tries (a choice has over 24 digits)"),
    ],
    ids=["id", "topic", "param", "log2-of-a-formula", "answer-of-a-formula"],
)  # fmt: skip
def test_validate_names_a_huge_number_in_a_template(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    """A template's own integers, and the numbers its formulas compute (a formula may build
    one of 18,000 digits from 300 characters)."""
    templates = tmp_path / "bank" / "templates"
    templates.mkdir(parents=True)
    (tmp_path / "bank" / "q.yaml").write_text(_question(), encoding="utf-8")
    assert old in TEMPLATE
    (templates / "t.yaml").write_text(TEMPLATE.replace(old, new, 1), encoding="utf-8")
    _validate_says(tmp_path, message)
