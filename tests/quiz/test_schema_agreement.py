"""questions/question.schema.json (what editors check as you type) agrees with the loader.

The schema is a second description of the format, so it can drift; these tests pin it
to the model's constants and to the loader's verdict on every fixture: both accept the
good files and the bundled bank, and both reject each broken fixture whose mistake a
schema can express (`# schema: rejects`). For the rest (`# schema: accepts`: uniqueness
across questions, near-duplicates, wording checks) only `tpquiz validate` catches them,
and the test says so, so tightening the schema later means updating the fixture.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from bot.bank import loader
from bot.bank.loader import bundled_question_files, check_files
from bot.quiz.model import (
    MAX_CHOICE_TEXT,
    MAX_CHOICES,
    MAX_EXPLANATION,
    MAX_FEEDBACK,
    MAX_QUESTION_TEXT,
    MAX_SOURCE,
    MIN_CHOICES,
    TOPICS,
)
from tests.quiz.test_loader import FIXTURES, GOOD, broken_fixtures

SCHEMA_PATH = Path(loader.__file__).resolve().parents[2] / "questions" / "question.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _schema_errors(path: Path) -> list[str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [e.message for e in VALIDATOR.iter_errors(data)]


def test_schema_is_valid_draft_2020_12() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_schema_constants_match_the_model_and_loader() -> None:
    defs = SCHEMA["$defs"]
    question = defs["question"]
    props = question["properties"]
    assert props["topic"]["enum"] == list(TOPICS)
    assert tuple(props) == loader.ALLOWED_QUESTION_KEYS
    assert tuple(question["required"]) == loader.REQUIRED_QUESTION_KEYS
    assert tuple(defs["choice"]["properties"]) == loader.ALLOWED_CHOICE_KEYS
    assert props["id"]["pattern"] == "^" + loader.ID_PATTERN.pattern.removesuffix(r"\Z") + "$"
    assert props["id"]["maxLength"] == loader.MAX_ID_LENGTH
    assert props["tags"]["items"]["maxLength"] == loader.MAX_TAG_LENGTH
    assert (props["difficulty"]["minimum"], props["difficulty"]["maximum"]) == (1, 3)
    assert (props["choices"]["minItems"], props["choices"]["maxItems"]) == (
        MIN_CHOICES,
        MAX_CHOICES,
    )
    assert props["source"]["maxLength"] == MAX_SOURCE
    limits = {
        "questionText": MAX_QUESTION_TEXT,
        "choiceText": MAX_CHOICE_TEXT,
        "feedback": MAX_FEEDBACK,
        "explanation": MAX_EXPLANATION,
    }
    for name, limit in limits.items():
        assert set(defs[name]["required"]) == {"tr", "en"}
        assert defs[name]["additionalProperties"] is False
        for lang in ("tr", "en"):
            ref = defs[name]["properties"][lang]["$ref"].split("/")[-1]
            assert defs[ref]["maxLength"] == limit, (name, lang)


def test_every_property_has_a_description_for_editors() -> None:
    for name, definition in SCHEMA["$defs"].items():
        assert definition.get("description"), name
        for prop, spec in definition.get("properties", {}).items():
            assert spec.get("description") or "$ref" in spec, (name, prop)


@pytest.mark.parametrize("path", sorted(GOOD.glob("*.yaml")), ids=lambda p: p.name)
def test_good_fixture_passes_both(path: Path) -> None:
    assert _schema_errors(path) == []
    assert check_files([path])[1] == []


@pytest.mark.parametrize("path", bundled_question_files(), ids=lambda p: p.name)
def test_bundled_file_passes_both(path: Path) -> None:
    assert _schema_errors(path) == []
    problems = check_files([path])[1]
    assert problems == [], "\n".join(map(str, problems))


@pytest.mark.parametrize("case", broken_fixtures(), ids=lambda c: Path(c.path).stem)
def test_broken_fixture_verdicts_agree(case: Any) -> None:
    path = FIXTURES / case.path
    assert check_files([path])[0] is None, "the loader must reject every broken fixture"
    if case.schema == "unparseable":
        with pytest.raises(yaml.YAMLError):
            yaml.safe_load(path.read_text(encoding="utf-8"))
    elif case.schema == "rejects":
        assert _schema_errors(path), f"{case.path}: the schema should reject this"
    else:
        assert case.schema == "accepts", f"{case.path}: unknown '# schema:' value"
        assert _schema_errors(path) == [], f"{case.path}: schema now rejects it; mark 'rejects'"
