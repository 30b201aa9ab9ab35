"""The bank file an import writes: the bank's style, read back unchanged, by either emitter."""

from __future__ import annotations

import random
from typing import Any

import pytest
import yaml

from bot.bank.importers import dump_yaml, import_gift
from bot.bank.importers.yaml_out import EMITTERS
from tests.quiz.importers import read_fixture

#: Strings that stress quoting, block scalars and indentation.
_AWKWARD = [
    "",
    " ",
    "plain",
    "yes",
    "null",
    "123",
    "- looks like a list item",
    "  choices:",
    "key: value",
    "'single' and \"double\"",
    "# not a comment",
    "trailing space ",
    " leading space",
    "two\nlines",
    "  indented\nblock",
    "blank\n\nline",
    "ends with newline\n",
    "tab\there",
    "Türkçe ğüşiöç İı",
    "x" * 5000,
    "{flow}: [x]",
    "back\\slash",
    "nbsp\u00a0and\u2028line separator",
    "bell\x07",
]


def _question(rng: random.Random, index: int) -> dict[str, Any]:
    def text() -> str:
        return rng.choice(_AWKWARD) + rng.choice(["", " ", "\n"]) + rng.choice(_AWKWARD)

    choices: list[dict[str, Any]] = [
        {"text": {"en": text()}, "correct": True},
        {"text": {"en": text()}, "feedback": {"en": text()}},
        {"text": {"en": text(), "tr": text()}, "feedback": {"en": ""}},
    ]
    return {
        "id": f"q-{index:02d}",
        "topic": "basics",
        "difficulty": 1,
        "text": {"en": text()},
        "choices": choices,
        "explanation": {"en": text()},
        "source": text(),
    }


@pytest.mark.parametrize("emitter", EMITTERS)
def test_bank_style_and_round_trip(emitter: str) -> None:
    questions = import_gift(read_fixture("good.gift"), lang="tr", source_file="x", id_prefix="g")
    questions.questions[0]["explanation"]["tr"] = "Satır bir\nsatır iki: ğüşiöç"
    text = dump_yaml(questions.questions, emitter=emitter)
    lines = text.splitlines()
    assert lines[0] == "# yaml-language-server: $schema=./question.schema.json"
    assert lines[1] == "- id: g-01"
    assert "- id: g-02" in lines and lines[lines.index("- id: g-02") - 1] == ""
    assert "    - text: {tr: By columns}" in lines  # choices indented, texts on one line
    assert "ğüşiöç" in text  # allow_unicode: Turkish stays readable
    assert "    tr: |-" in lines  # multi-line text as a block
    assert yaml.safe_load(text) == questions.questions


@pytest.mark.parametrize("seed", range(40))
def test_awkward_strings_read_back_unchanged_and_emitters_agree(seed: int) -> None:
    rng = random.Random(seed)
    questions = [_question(rng, i) for i in range(1, 6)]
    outputs = {emitter: dump_yaml(questions, emitter=emitter) for emitter in EMITTERS}
    for output in outputs.values():
        assert yaml.safe_load(output) == questions
    assert len(set(outputs.values())) == 1, "libyaml and Python output differ"


def test_libyaml_is_used_when_present() -> None:
    assert EMITTERS[-1] == ("libyaml" if getattr(yaml, "__with_libyaml__", False) else "python")


def test_dump_of_nothing_is_an_empty_list() -> None:
    assert yaml.safe_load(dump_yaml([])) == []
