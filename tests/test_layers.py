"""The layering rules of the developers' guide, read from the imports themselves.

`bot/quiz/` holds the quiz rules: it must not know Discord, a database driver or the
storage layer, so its decisions stay plain functions a test can call. `bot/storage/`
holds all SQL and must not know Discord. `cogs/` is glue: it reads interactions and
calls services, and holds no SQL. A change that breaks one of these fails here, with the
file and the offending import named, instead of being found in review.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "bot/quiz": ("discord", "aiosqlite", "sqlite3", "asyncpg", "bot.storage"),
    "bot/storage": ("discord", "cogs"),
}

# How SQL starts in this project (upper-case keywords, as bot/storage writes them);
# matched in the string constants of the cogs. Case-sensitive, so "Select a topic" passes.
SQL = re.compile(
    r"^\s*(SELECT\s.*\bFROM\b|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
    r"(CREATE|ALTER|DROP)\s+(TABLE|INDEX)|PRAGMA\s|BEGIN\b)",
    re.S,
)


def _python_files(folder: str, root: Path = ROOT) -> list[Path]:
    return sorted((root / folder).rglob("*.py"))


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every module `path` imports, absolute, with the line it is imported on."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.append((node.lineno, base))
    return found


def _violations(folder: str, forbidden: tuple[str, ...], root: Path = ROOT) -> list[str]:
    bad = []
    for path in _python_files(folder, root):
        for line, module in _imports(path, root):
            if any(module == name or module.startswith(name + ".") for name in forbidden):
                bad.append(f"{path.relative_to(root).as_posix()}:{line}: imports {module}")
    return bad


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_layer_imports_only_what_it_may(folder: str) -> None:
    assert _python_files(folder), f"{folder} has no Python files: the rule checks nothing"
    assert _violations(folder, FORBIDDEN[folder]) == []


def test_cogs_hold_no_sql() -> None:
    bad = []
    for path in _python_files("cogs"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if SQL.match(node.value):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:40]!r}")
    assert bad == []


def test_the_checks_catch_what_they_forbid(tmp_path: Path) -> None:
    """The walker sees relative and absolute imports, so the rules above can fail."""
    probe = tmp_path / "bot" / "quiz" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(
        "import discord.ui\nfrom ..storage import db\nfrom . import model\n", encoding="utf-8"
    )
    assert _violations("bot/quiz", FORBIDDEN["bot/quiz"], tmp_path) == [
        "bot/quiz/probe.py:1: imports discord.ui",
        "bot/quiz/probe.py:2: imports bot.storage",
    ]
    assert SQL.match("  SELECT points FROM members") and SQL.match("INSERT INTO answers")
    assert not SQL.match("Select a topic from the list") and not SQL.match("Update your time")
