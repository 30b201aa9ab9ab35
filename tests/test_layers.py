"""The layering rules of the developers' guide, and the seams between cogs, read from the code.

`bot/quiz/` holds the quiz rules: it must not know Discord, a database driver or the
storage layer, so its decisions stay plain functions a test can call. `bot/storage/`
holds all SQL and must not know Discord. `cogs/` is glue: it reads interactions and
calls services, and holds no SQL.

Each cog is an extension that loads on its own (tests/test_extensions.py) and gets what
it shares with others from the bot, which is built in one place (`bot.runtime.compose`). So a
cog does not import or load another cog, does not look one up (`get_cog`, `bot.cogs`),
and does not set an attribute on the bot for others to find.

A change that breaks one of these fails here, with the file, the line and the offence
named, instead of being found in review. Every rule has a test below that plants a
violation in a temporary tree and checks that the rule reports it, so none passes by
checking nothing. There is no allow-list.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "bot/quiz": ("discord", "aiosqlite", "sqlite3", "asyncpg", "bot.storage"),
    "bot/storage": ("discord", "cogs"),
}

# How SQL starts (upper-case keywords, as bot/storage writes them), matched against the
# string constants of the cogs, f-string parts included. Case-sensitive, so "Select a
# topic" and "Update your time" pass.
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|PRAGMA|BEGIN|WITH)\b")

#: Names that stand for the bot in a cog: `bot`, `self.bot`, `interaction.client`, ...
BOT_NAMES = frozenset({"bot", "client"})
#: Calls through which a module loads another by name.
LOADERS = frozenset({"load_extension", "reload_extension", "import_module", "__import__"})


def _python_files(folder: str, root: Path = ROOT) -> list[Path]:
    return sorted((root / folder).rglob("*.py"))


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every module `path` imports, absolute, with its line.

    `from a import b` counts as importing `a.b` (b may be a module: `from bot import
    storage` is an import of bot.storage), so each imported name gives one entry.
    """
    package = _module_name(path, root)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                found.append((node.lineno, base if alias.name == "*" else f"{base}.{alias.name}"))
    return found


def _within(module: str, name: str) -> bool:
    return module == name or module.startswith(name + ".")


def _where(path: Path, root: Path, line: int, what: str) -> str:
    return f"{path.relative_to(root).as_posix()}:{line}: {what}"


def _report(found: list[str]) -> list[str]:
    """Violations once each, by file and line number."""

    def order(entry: str) -> tuple[str, int, str]:
        path, line, what = entry.split(":", 2)
        return path, int(line), what

    return sorted(set(found), key=order)


# -- the rules: each returns its violations, as "file:line: what" ---------------------


def layer_imports(folder: str, root: Path = ROOT) -> list[str]:
    """`folder` imports a module its layer must not know (FORBIDDEN)."""
    bad = []
    for path in _python_files(folder, root):
        for line, module in _imports(path, root):
            if any(_within(module, name) for name in FORBIDDEN[folder]):
                bad.append(_where(path, root, line, f"imports {module}"))
    return _report(bad)


def cog_sql(root: Path = ROOT) -> list[str]:
    """A string constant in cogs/ that starts like SQL."""
    bad = []
    for path in _python_files("cogs", root):
        for node in ast.walk(_parse(path)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if SQL.match(node.value):
                    bad.append(_where(path, root, node.lineno, f"SQL {node.value[:40]!r}"))
    return _report(bad)


def cog_imports_cog(root: Path = ROOT) -> list[str]:
    """A cog importing another cog, or loading one by name."""
    bad = []
    for path in _python_files("cogs", root):
        own = _module_name(path, root)
        for line, module in _imports(path, root):
            if _within(module, "cogs") and not _within(module, own):
                bad.append(_where(path, root, line, f"imports {module}"))
        for node in ast.walk(_parse(path)):
            if not isinstance(node, ast.Call) or _called(node) not in LOADERS:
                continue
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    if _within(arg.value, "cogs") and not _within(arg.value, own):
                        bad.append(_where(path, root, node.lineno, f"loads {arg.value}"))
    return _report(bad)


def cog_looks_up_cog(root: Path = ROOT) -> list[str]:
    """`get_cog(...)` or `bot.cogs` in cogs/: finding another cog by its name."""
    bad = []
    for path in _python_files("cogs", root):
        for node in ast.walk(_parse(path)):
            name = node.attr if isinstance(node, ast.Attribute) else None
            if isinstance(node, ast.Name):
                name = node.id
            if name == "get_cog":
                bad.append(_where(path, root, node.lineno, "get_cog"))
            elif name == "cogs" and isinstance(node, ast.Attribute) and _is_bot(node.value):
                bad.append(_where(path, root, node.lineno, "bot.cogs"))
    return _report(bad)


def cog_sets_bot_attribute(root: Path = ROOT) -> list[str]:
    """A cog assigning an attribute on the bot (`bot.x = ...`, `setattr(bot, ...)`)."""
    bad = []
    for path in _python_files("cogs", root):
        for node in ast.walk(_parse(path)):
            for target in _assigned(node):
                if isinstance(target, ast.Attribute) and _is_bot(target.value):
                    bad.append(_where(path, root, node.lineno, f"sets bot.{target.attr}"))
            if isinstance(node, ast.Call) and _called(node) in ("setattr", "delattr"):
                if node.args and _is_bot(node.args[0]):
                    bad.append(_where(path, root, node.lineno, f"{_called(node)} on the bot"))
    return _report(bad)


def _called(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _is_bot(node: ast.expr) -> bool:
    """`bot`, `client`, or `<anything>.bot` / `<anything>.client` (self.bot,
    interaction.client)."""
    if isinstance(node, ast.Name):
        return node.id in BOT_NAMES
    return isinstance(node, ast.Attribute) and node.attr in BOT_NAMES


def _assigned(node: ast.AST) -> Iterator[ast.expr]:
    """The targets `node` assigns to, tuples unpacked."""
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    else:
        return
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Tuple | ast.List):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
        else:
            yield target


RULES: dict[str, Callable[[Path], list[str]]] = {
    "bot/quiz imports": lambda root: layer_imports("bot/quiz", root),
    "bot/storage imports": lambda root: layer_imports("bot/storage", root),
    "SQL in cogs": cog_sql,
    "a cog imports a cog": cog_imports_cog,
    "a cog looks a cog up": cog_looks_up_cog,
    "a cog sets an attribute on the bot": cog_sets_bot_attribute,
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_holds(rule: str) -> None:
    assert RULES[rule](ROOT) == []


@pytest.mark.parametrize("folder", ["bot/quiz", "bot/storage", "cogs"])
def test_each_rule_checks_files(folder: str) -> None:
    assert _python_files(folder), f"{folder} has no Python files: its rules check nothing"


# -- each rule fails on a planted violation -------------------------------------------


def _plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_bot_quiz_importing_discord_drivers_or_storage_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "bot/quiz/probe.py": (
                "import discord.ui\n"
                "from ..storage import db\n"
                "from . import model\n"
                "import aiosqlite\n"
                "from bot import storage\n"
                "from bot import render\n"
                "def late():\n"
                "    from discord import app_commands\n"
            ),
        },
    )
    assert RULES["bot/quiz imports"](root) == [
        "bot/quiz/probe.py:1: imports discord.ui",
        "bot/quiz/probe.py:2: imports bot.storage.db",
        "bot/quiz/probe.py:4: imports aiosqlite",
        "bot/quiz/probe.py:5: imports bot.storage",
        "bot/quiz/probe.py:8: imports discord.app_commands",
    ]


def test_bot_storage_importing_discord_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "bot/storage/__init__.py": "from .probe import x\n",
            "bot/storage/probe.py": "import sqlite3\nfrom discord import Embed\nx = 1\n",
        },
    )
    assert RULES["bot/storage imports"](root) == ["bot/storage/probe.py:2: imports discord.Embed"]


def test_sql_in_a_cog_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "cogs/probe.py": (
                'TOPIC = "Select a topic from the list"\n'
                'TIME = "Update your time"\n'
                'Q = "SELECT points FROM members"\n'
                "def f(db, g):\n"
                '    db.execute(f"DELETE FROM answers WHERE guild_id = {g}")\n'
                '    db.execute("""\n    CREATE TABLE t (x)""")\n'
                '    db.execute("INSERT INTO answers VALUES (1)")\n'
                '    db.execute("UPDATE members SET points = 0")\n'
            ),
        },
    )
    found = RULES["SQL in cogs"](root)
    assert [line.split(": SQL")[0] for line in found] == [
        "cogs/probe.py:3",
        "cogs/probe.py:5",
        "cogs/probe.py:6",
        "cogs/probe.py:8",
        "cogs/probe.py:9",
    ]


def test_a_cog_importing_or_loading_another_cog_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "cogs/__init__.py": "",
            "cogs/quiz.py": "X = 1\n",
            "cogs/daily.py": (
                "from cogs.quiz import X\n"
                "from . import quiz\n"
                "from .daily import helper\n"
                "import cogs.quiz as q\n"
                "from bot.ui.buttons.answer import answer_view\n"
                "async def setup(bot):\n"
                '    await bot.load_extension("cogs.quiz")\n'
                '    await bot.load_extension("cogs.daily")\n'
                "def helper():\n"
                "    from cogs import quiz\n"
            ),
        },
    )
    assert RULES["a cog imports a cog"](root) == [
        "cogs/daily.py:1: imports cogs.quiz.X",
        "cogs/daily.py:2: imports cogs.quiz",
        "cogs/daily.py:4: imports cogs.quiz",
        "cogs/daily.py:7: loads cogs.quiz",
        "cogs/daily.py:10: imports cogs.quiz",
    ]


def test_a_cog_looking_another_up_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "cogs/admin.py": (
                "class AdminCog:\n"
                "    @property\n"
                "    def poster(self):\n"
                '        return self.bot.get_cog("DailyCog").poster\n'
                "def by_name(interaction):\n"
                '    return interaction.client.cogs["DailyCog"]\n'
                "def fine(self):\n"
                "    return self.bot.poster\n"
            ),
        },
    )
    assert RULES["a cog looks a cog up"](root) == [
        "cogs/admin.py:4: get_cog",
        "cogs/admin.py:6: bot.cogs",
    ]


def test_a_cog_setting_an_attribute_on_the_bot_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "cogs/quiz.py": (
                "class QuizCog:\n"
                "    def __init__(self, bot):\n"
                "        self.bot = bot\n"
                "        self.bot.count_edits = None\n"
                "async def setup(bot):\n"
                "    bot.count_edits = object()\n"
                "    bot.metrics.extra: int = 1\n"
                "    setattr(bot, 'poster', None)\n"
                "    a, bot.x = 1, 2\n"
                "def click(interaction):\n"
                "    interaction.client.seen += 1\n"
            ),
        },
    )
    assert RULES["a cog sets an attribute on the bot"](root) == [
        "cogs/quiz.py:4: sets bot.count_edits",
        "cogs/quiz.py:6: sets bot.count_edits",
        "cogs/quiz.py:8: setattr on the bot",
        "cogs/quiz.py:9: sets bot.x",
        "cogs/quiz.py:11: sets bot.seen",
    ]
