"""The bundled question files as plain YAML data, for tests that check their text."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"


def load_raw(files: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Question id -> the question's mapping as written, from the named files."""
    bank: dict[str, dict[str, Any]] = {}
    for name in files:
        with (QUESTIONS / name).open(encoding="utf-8") as fh:
            for q in yaml.safe_load(fh):
                bank[q["id"]] = q
    return bank
