"""Question files an unlucky operator or a hostile author may write (issue 10 items 15, 18, 24).

Each input that once gave a traceback, a hang or unbounded memory now gives one
`file:line: id: field: message` sentence, asserted exactly.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.bank import files as bank_files
from bot.bank.loader import check_files
from bot.bank.yaml_lines import MAX_DEPTH
from tests.quiz.test_loader import _question


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Reported paths are relative to the working directory, so run from tmp_path."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def problems_of(body: str, name: str = "q.yaml") -> list[str]:
    Path(name).write_text(body, encoding="utf-8")
    bank, problems = check_files([name])
    assert bank is None
    return [str(p) for p in problems]


def test_an_integer_of_thousands_of_digits_is_described_not_printed() -> None:
    body = _question().replace("  difficulty: 1\n", "  difficulty: " + "9" * 5000 + "\n")
    assert problems_of(body) == [
        "q.yaml:3: q-1: difficulty: must be an integer 1, 2 or 3, got an integer of 5000 digits"
    ]


def test_a_huge_integer_as_an_id_is_bounded_too() -> None:
    body = _question().replace("- id: q-1", "- id: " + "7" * 6000)
    assert problems_of(body) == [
        "q.yaml:1: -: id: must be a string, got an integer of 6000 digits; quote it if YAML "
        "read it as another type"
    ]


@pytest.mark.parametrize("style", ["flow", "block"])
def test_lists_nested_hundreds_deep_are_refused_at_their_line(style: str) -> None:
    depth = 250
    if style == "flow":
        body = "- id: q-1\n  text: " + "[" * depth + "]" * depth + "\n"
        line = 2
    else:
        body = "- id: q-1\n  text:\n" + "".join("  " * (i + 2) + "-\n" for i in range(depth))
        line = MAX_DEPTH + 1
    assert problems_of(body) == [
        f"q.yaml:{line}: -: -: the YAML is nested more than {MAX_DEPTH} levels deep; a question "
        "needs five (list, question, choices, choice, text): check the brackets and indentation"
    ]


def test_a_control_character_is_reported_at_its_real_line_in_one_line() -> None:
    body = _question().replace("Açıklama.", "Açık\x07lama.")
    (message,) = problems_of(body)
    assert message == (
        "q.yaml:12: -: -: YAML cannot hold the control character U+0007 on this line; delete "
        'it, or write it as an escape inside double quotes (e.g. "\\a")'
    )
    assert "\n" not in message


def test_a_control_character_after_multibyte_text_still_names_its_line() -> None:
    """PyYAML's position is a byte offset; Turkish letters are two bytes each."""
    body = "# ğğğğğğğğğğ şşşşşşşş\n# çççç\n" + _question().replace("Yanlış.", "Yan\x1blış.")
    assert problems_of(body)[0].startswith(
        "q.yaml:13: -: -: YAML cannot hold the control character U+001B on this line"
    )


def test_a_fifo_is_refused_without_opening_it_for_a_writer() -> None:
    os.mkfifo("pipe.yaml")
    assert problems_of_path("pipe.yaml") == [
        "pipe.yaml:1: -: -: is a FIFO (named pipe), not a question file; name a regular "
        "*.yaml file or a directory"
    ]


def problems_of_path(path: str) -> list[str]:
    bank, problems = check_files([path])
    assert bank is None
    return [str(p) for p in problems]


def test_dev_zero_is_refused_before_reading() -> None:
    assert problems_of_path("/dev/zero") == [
        "/dev/zero:1: -: -: is a device, not a question file; name a regular *.yaml file or "
        "a directory"
    ]


def test_a_file_over_the_size_limit_is_refused_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bank_files, "MAX_FILE_BYTES", 1024 * 1024)
    Path("big.yaml").write_text("#" * (3 * 1024 * 1024))
    assert problems_of_path("big.yaml") == [
        "big.yaml:1: -: -: is 3 MiB, over the 1 MiB limit for a question file; split it "
        "into several files"
    ]


def test_a_directory_that_cannot_be_listed_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Root ignores permissions, so the PermissionError is raised as a kernel would."""
    Path("bank").mkdir()

    def refuse(self: Path) -> object:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", refuse)
    assert problems_of_path("bank") == [
        "bank:1: -: -: cannot list the directory (Permission denied); check its permissions"
    ]


@pytest.mark.parametrize(
    "invisible",
    ["\u200b\u200b", "\u202e", "\u2800", "\u3164", "\\0", "\\a", "\u0301\u0308", "\u200d\ufeff"],
    ids=["zwsp", "rlo", "braille-blank", "hangul-filler", "nul", "bel", "combining", "zwj-bom"],
)
def test_a_choice_of_only_invisible_characters(invisible: str) -> None:
    body = _question().replace('en: "The data"', f'en: "{invisible}"')
    (message,) = problems_of(body)
    assert message.startswith(
        "q.yaml:10: q-1: choices[1].text.en: has no visible characters (only U+"
    )
    assert message.endswith("); write the English text")


def test_a_source_of_only_invisible_characters() -> None:
    body = _question().replace('source: "Megatron-LM 3"', 'source: "\u200b\u202e"')
    assert problems_of(body) == [
        "q.yaml:13: q-1: source: has no visible characters (only U+200B, U+202E); cite the "
        "paper section or doc page the answer comes from, e.g. 'Shoeybi et al. 2019, "
        "Megatron-LM (arXiv:1909.08053), 3'"
    ]


def test_visible_text_with_invisible_characters_in_it_is_kept() -> None:
    Path("q.yaml").write_text(_question(choice_en="The\u200b data"), encoding="utf-8")
    bank, problems = check_files(["q.yaml"])
    assert problems == [] and bank is not None


def test_a_very_long_unknown_key_is_shown_bounded() -> None:
    body = _question().replace("  topic: basics\n", "  topic: basics\n  " + "k" * 500 + ": 1\n")
    (message,) = problems_of(body)
    assert len(message) < 400
    assert message.startswith("q.yaml:3: q-1: " + "k" * 40 + ": unknown key 'kkkk")


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        ("pipe.yaml", lambda p: os.mkfifo(p),
         "is a FIFO (named pipe), not a question file; name a regular *.yaml file or a directory"),
        ("ctrl.yaml", lambda p: p.write_text("- id: t\x07\n"),
         "YAML cannot hold the control character U+0007 on this line; delete it, or write it "
         'as an escape inside double quotes (e.g. "\\a")'),
        ("huge.yaml", lambda p: p.write_text("- id: " + "9" * 5000 + "\n"),
         "holds an integer of more than 4,300 digits; a template's numbers are short"),
    ],
)  # fmt: skip
def test_template_files_get_the_same_care(name: str, make: object, message: str) -> None:
    """questions/templates/ is read beside the bank: same FIFO, control-character and
    huge-integer cases, same sentences."""
    from bot.bank.template_files import check_templates

    Path("bank/templates").mkdir(parents=True)
    make(Path("bank/templates") / name)  # type: ignore[operator]
    _, problems = check_templates(["bank"])
    assert [str(p) for p in problems] == [f"bank/templates/{name}:1: -: -: {message}"]


def test_shown_describes_any_long_integer_by_its_digits() -> None:
    """Whatever reaches a message through `shown`: Python cannot print 16**6000 at all."""
    from bot.bank.problems import shown

    assert shown(16**6000) == "<an integer of 7225 digits>"
    assert shown(10**60) == "<an integer of 61 digits>"
    assert shown(10**60 - 1) == "9" * 60
