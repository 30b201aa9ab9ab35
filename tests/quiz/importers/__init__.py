"""Tests of bot/bank/importers: what both formats' tests need."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.bank.importers import ImportProblems

IMPORT = Path(__file__).parent.parent / "fixtures" / "import"


def read_fixture(name: str) -> str:
    return (IMPORT / name).read_text(encoding="utf-8")


def strict_problems(func: Any, text: str) -> list[str]:
    """Every problem a strict import of `text` reports, as printed."""
    with pytest.raises(ImportProblems) as info:
        func(text, lang="en", source_file="in.txt", id_prefix="imp", strict=True)
    assert str(info.value) == "\n".join(str(p) for p in info.value.problems)
    return [str(p) for p in info.value.problems]


def skipped(func: Any, text: str) -> list[str]:
    """The skipped lines of a lenient import of `text`, as printed."""
    result = func(text, lang="en", source_file="in.txt", id_prefix="imp")
    return [str(s) for s in result.skipped]
