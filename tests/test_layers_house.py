"""The house rules of `bot/` (issue 25): which package may import which, no import cycle,
the storage backends confined behind the factory, the glue reaching no store, and no
prose path naming a file that is gone.

Why: `bot/` was a flat folder that grew four import cycles and imports that ran upward;
the packages now say what each part holds, and these rules keep them from growing back
together. tests/test_layers.py keeps the inner rules (pure quiz rules, no SQL in cogs,
cogs independent of each other); this file keeps the shape around them. Imports count
wherever they are written: at module level, inside functions, and under
`TYPE_CHECKING` (a type-only import still ties two packages together for a reader and
for mypy). As in tests/test_layers.py every rule is proven by a planted violation below,
and there is no allow-list.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.test_layers import _imports, _module_name, _parse, _plant, _report, _where

ROOT = Path(__file__).resolve().parents[1]

#: What each package may import of the others (`bot.storage.*` listed by module where
#: only its neutral part is allowed). Imports of the package itself are always allowed.
#: The arrows run one way: infra and quiz at the bottom, cli and runtime at the top.
NEUTRAL_STORAGE = (
    "bot.storage.contract",
    "bot.storage.records",
    "bot.storage.errors",
    "bot.storage.problems",
)
ALLOWED: dict[str, tuple[str, ...]] = {
    "bot.infra": (),
    "bot.quiz": (),
    "bot.bank": ("bot.quiz", "bot.infra"),
    "bot.storage": ("bot.quiz", "bot.infra"),
    "bot.i18n": ("bot.quiz", "bot.bank"),
    "bot.services": ("bot.quiz", "bot.bank", "bot.infra", *NEUTRAL_STORAGE),
    "bot.ops": ("bot.infra", *NEUTRAL_STORAGE),
    "bot.ui": (
        "bot.quiz",
        "bot.bank",
        "bot.infra",
        "bot.i18n",
        "bot.services",
        "bot.ops",
        *NEUTRAL_STORAGE,
    ),
    "cogs": (
        "bot.quiz",
        "bot.bank",
        "bot.infra",
        "bot.i18n",
        "bot.services",
        "bot.ops",
        "bot.ui",
        "bot.runtime",
        *NEUTRAL_STORAGE,
    ),
    "bot.runtime": (
        "bot.quiz",
        "bot.bank",
        "bot.infra",
        "bot.i18n",
        "bot.services",
        "bot.ops",
        "bot.ui",
        "bot.storage",
    ),
    "bot.cli": (
        "bot.quiz",
        "bot.bank",
        "bot.infra",
        "bot.i18n",
        "bot.services",
        "bot.ops",
        "bot.ui",
        "bot.runtime",
        *NEUTRAL_STORAGE,
        "bot.storage.factory",
        "bot.storage.admin",
    ),
    "bot.__main__": ("bot.cli",),
    "bot": (),
}
#: The backends, and the one module outside them allowed to import them.
BACKENDS = ("bot.storage.sqlite", "bot.storage.pg")
FACTORY = "bot.storage"
#: The layers that reach storage only through services.
GLUE = ("cogs", "bot/ui")


def _within(module: str, name: str) -> bool:
    return module == name or module.startswith(name + ".")


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for folder in ("bot", "cogs"):
        for path in sorted((root / folder).rglob("*.py")):
            found[_module_name(path, root)] = path
    return found


def _package(module: str) -> str:
    """The package a module belongs to for ALLOWED: `cogs`, `bot` (its __init__),
    `bot.__main__`, or `bot.<package>`."""
    if _within(module, "cogs"):
        return "cogs"
    parts = module.split(".")
    return ".".join(parts[:2])


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The module of bot/ or cogs/ an imported name lives in (`a.b.X` -> `a.b`)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


# -- the rules: each returns its violations, as "file:line: what" ---------------------


def package_imports(root: Path = ROOT) -> list[str]:
    """A module importing a package (or part of storage) its package may not know."""
    modules = _modules(root)
    bad = []
    for module, path in modules.items():
        own = _package(module)
        allowed = ALLOWED.get(own)
        for line, name in _imports(path, root):
            target = _target(name, modules)
            if target is None or _within(target, own) and own not in ("bot", "cogs"):
                continue
            if own == "cogs" and _within(target, "cogs"):
                continue  # tests/test_layers.py's own rule: a cog imports no other cog
            if allowed is None:
                bad.append(_where(path, root, line, f"is in no package of the table: {own}"))
            elif not any(_within(target, ok) for ok in allowed):
                bad.append(_where(path, root, line, f"{own} imports {target}"))
    return _report(bad)


def import_cycles(root: Path = ROOT) -> list[str]:
    """Modules of bot/ and cogs/ that import each other, directly or round a loop."""
    modules = _modules(root)
    edges: dict[str, set[str]] = {m: set() for m in modules}
    first_line: dict[tuple[str, str], int] = {}
    for module, path in modules.items():
        for line, name in _imports(path, root):
            target = _target(name, modules)
            if target and target != module:
                edges[module].add(target)
                first_line.setdefault((module, target), line)
    bad = []
    for component in _strongly_connected(edges):
        ring = sorted(component)
        for module in ring:
            for target in sorted(edges[module] & component):
                line = first_line[(module, target)]
                bad.append(_where(modules[module], root, line, f"cycle: imports {target}"))
    return _report(bad)


def _strongly_connected(edges: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative; only the components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def backend_imports(root: Path = ROOT) -> list[str]:
    """A backend (`bot.storage.sqlite`, `bot.storage.pg`) imported from outside storage."""
    modules = _modules(root)
    bad = []
    for module, path in modules.items():
        if _within(module, FACTORY):
            continue
        for line, name in _imports(path, root):
            if any(_within(name, backend) for backend in BACKENDS):
                bad.append(_where(path, root, line, f"imports {name}"))
    return _report(bad)


def backend_imports_backend(root: Path = ROOT) -> list[str]:
    """`bot/storage/pg/` importing anything of `bot/storage/sqlite/`, or the other way:
    what both need lives in the neutral modules of bot/storage/ (records, errors, ...)."""
    modules = _modules(root)
    bad = []
    for module, path in modules.items():
        own = next((b for b in BACKENDS if _within(module, b)), None)
        if own is None:
            continue
        for line, name in _imports(path, root):
            if any(_within(name, b) for b in BACKENDS if b != own):
                bad.append(_where(path, root, line, f"imports {name}"))
    return _report(bad)


def glue_reaches_storage(root: Path = ROOT) -> list[str]:
    """cogs/ or bot/ui/ reading a store itself (`<anything>.storage`) instead of a service."""
    bad = []
    for folder in GLUE:
        for path in sorted((root / folder).rglob("*.py")):
            for node in ast.walk(_parse(path)):
                if isinstance(node, ast.Attribute) and node.attr == "storage":
                    bad.append(_where(path, root, node.lineno, "reads .storage"))
    return _report(bad)


#: A path into the project as prose names it: `bot/ui/render.py`, `docs/privacy.md`,
#: `tests/storage/`. Patterns (`cogs/<feature>/`, `tests/**`) are not paths.
PROSE_PATH = re.compile(
    r"(?<![\w./-])((?:bot|cogs|tests|docs|bench|deploy|questions)/[\w./-]*\w/?)"
)


def _docstrings(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                value = body[0].value.value
                if isinstance(value, str):
                    found.append((body[0].lineno, value))
    return found


def _ignored(root: Path) -> tuple[str, ...]:
    """The folders .gitignore names (bench/out/, ...): what runs write there is not kept."""
    gitignore = root / ".gitignore"
    lines = gitignore.read_text(encoding="utf-8").splitlines() if gitignore.is_file() else []
    return tuple(line for line in lines if line.endswith("/") and "*" not in line)


def prose_paths(root: Path = ROOT) -> list[str]:
    """A docstring (bot/, cogs/, bench/) or a document (docs/, README.md) naming a file
    or folder of the project that does not exist.

    Not counted: a pattern (`cogs/<feature>/`, `tests/drills/test_shutdown*.py`), a path
    under a folder .gitignore names (bench/out/: written by runs), and a document's
    fenced blocks (a command there may name the file it creates)."""
    texts: list[tuple[Path, int, str]] = []
    for folder in ("bot", "cogs", "bench"):
        for path in sorted((root / folder).rglob("*.py")):
            texts.extend((path, line, text) for line, text in _docstrings(path))
    documents = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    for path in documents:
        if path.is_file():
            fenced = False
            for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if text.lstrip().startswith("```"):
                    fenced = not fenced
                elif not fenced:
                    texts.append((path, number, text))
    ignored = _ignored(root)
    bad = []
    for path, line, text in texts:
        for offset, row in enumerate(text.splitlines() or [""]):
            for match in PROSE_PATH.finditer(row):
                named = match.group(1).rstrip(".")
                if row[match.end() : match.end() + 1] == "*" or named.startswith(ignored):
                    continue
                if not (root / named).exists():
                    at = line + offset if path.suffix == ".py" else line
                    bad.append(_where(path, root, at, f"names {named}, which does not exist"))
    return _report(bad)


RULES: dict[str, Callable[[Path], list[str]]] = {
    "a package imports one it may not know": package_imports,
    "an import cycle": import_cycles,
    "a backend imported outside storage": backend_imports,
    "a backend imports the other": backend_imports_backend,
    "the glue reads a store": glue_reaches_storage,
    "a prose path to nothing": prose_paths,
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_holds(rule: str) -> None:
    assert RULES[rule](ROOT) == []


def test_every_module_is_in_a_package_of_the_table() -> None:
    packages = {_package(module) for module in _modules(ROOT)}
    assert packages == set(ALLOWED), "a package of bot/ is missing from ALLOWED, or one is gone"


def test_only_init_and_main_live_directly_in_bot() -> None:
    loose = sorted(p.name for p in (ROOT / "bot").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]


# -- each rule fails on a planted violation -------------------------------------------


def test_an_import_against_the_table_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "bot/__init__.py": "",
            "bot/quiz/__init__.py": "",
            "bot/quiz/model.py": "from bot.ui import render\n",
            "bot/ui/__init__.py": "",
            "bot/ui/render.py": (
                "from bot.quiz import model\n"
                "from bot.storage.records import Post\n"
                "def late():\n"
                "    from bot.runtime.bot import TPQuizBot\n"
            ),
            "bot/services/__init__.py": "",
            "bot/services/quiz.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from bot.storage.sqlite import Storage\n"
                "from bot.storage.contract import StorageContract\n"
            ),
            "bot/runtime/__init__.py": "",
            "bot/runtime/bot.py": "from bot.cli import main\n",
            "bot/storage/__init__.py": "",
            "bot/storage/records.py": "Post = 1\n",
            "bot/storage/contract.py": "StorageContract = 1\n",
            "bot/storage/sqlite/__init__.py": "Storage = 1\n",
            "bot/cli/__init__.py": "",
            "bot/cli/main.py": "from bot.storage.sqlite import Storage\n",
            "bot/extra.py": "import bot.quiz.model\n",
        },
    )
    assert RULES["a package imports one it may not know"](root) == [
        "bot/cli/main.py:1: bot.cli imports bot.storage.sqlite",
        "bot/extra.py:1: is in no package of the table: bot.extra",
        "bot/quiz/model.py:1: bot.quiz imports bot.ui.render",
        "bot/runtime/bot.py:1: bot.runtime imports bot.cli.main",
        "bot/services/quiz.py:3: bot.services imports bot.storage.sqlite",
        "bot/ui/render.py:4: bot.ui imports bot.runtime.bot",
    ]


def test_an_import_cycle_fails_even_through_type_checking_and_late_imports(
    tmp_path: Path,
) -> None:
    root = _plant(
        tmp_path,
        {
            "bot/__init__.py": "",
            "bot/runtime/__init__.py": "",
            "bot/runtime/bot.py": "from bot.ui.poster import Poster\n",
            "bot/ui/__init__.py": "",
            "bot/ui/poster.py": "from bot.ui.buttons import view\n",
            "bot/ui/buttons.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from bot.runtime.bot import TPQuizBot\n"
                "view = 1\n"
            ),
            "bot/cli/__init__.py": "",
            "bot/cli/db.py": "def f():\n    from bot.cli.db_pg import g\n",
            "bot/cli/db_pg.py": "from bot.cli.db import f\ng = 1\n",
            "bot/cli/fine.py": "from bot.cli.db import f\n",
        },
    )
    assert RULES["an import cycle"](root) == [
        "bot/cli/db.py:2: cycle: imports bot.cli.db_pg",
        "bot/cli/db_pg.py:1: cycle: imports bot.cli.db",
        "bot/runtime/bot.py:1: cycle: imports bot.ui.poster",
        "bot/ui/buttons.py:3: cycle: imports bot.runtime.bot",
        "bot/ui/poster.py:1: cycle: imports bot.ui.buttons",
    ]


def test_a_backend_imported_outside_storage_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "bot/storage/factory.py": "from bot.storage.pg.storage import PgStorage\n",
            "bot/storage/pg/storage.py": "from bot.storage.records import Post\n",
            "bot/cli/db.py": "def f():\n    from bot.storage.pg.status import read\n",
            "bot/runtime/bot.py": "from bot.storage.sqlite.answers import AnswerStore\n",
            "cogs/health.py": "from bot.storage import sqlite\n",
        },
    )
    assert RULES["a backend imported outside storage"](root) == [
        "bot/cli/db.py:2: imports bot.storage.pg.status.read",
        "bot/runtime/bot.py:1: imports bot.storage.sqlite.answers.AnswerStore",
        "cogs/health.py:1: imports bot.storage.sqlite",
    ]


def test_a_backend_importing_the_other_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "bot/storage/pg/admin.py": (
                "from bot.storage.sqlite.schema import Migration\n"
                "from bot.storage.migration_files import bundled\n"
            ),
            "bot/storage/sqlite/posts.py": "def f():\n    from bot.storage.pg import posts\n",
            "bot/storage/copy.py": "from bot.storage.sqlite import Storage\nfrom bot.storage import pg\n",
        },
    )
    assert RULES["a backend imports the other"](root) == [
        "bot/storage/pg/admin.py:1: imports bot.storage.sqlite.schema.Migration",
        "bot/storage/sqlite/posts.py:2: imports bot.storage.pg.posts",
    ]


def test_the_glue_reading_a_store_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "cogs/stats.py": (
                "async def weeks(self, guild, member):\n"
                "    return await self.bot.storage.progress.weeks(guild, member)\n"
                "async def fine(self):\n"
                "    return await self.bot.service.stats()\n"
            ),
            "bot/ui/render.py": "def f(bot):\n    return bot.storage\n",
        },
    )
    assert RULES["the glue reads a store"](root) == [
        "bot/ui/render.py:2: reads .storage",
        "cogs/stats.py:2: reads .storage",
    ]


def test_a_prose_path_to_nothing_fails(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "bot/ui/render.py": (
                '"""Embeds, beside bot/ui/render_review.py and cogs/admin_reports.py.\n\n'
                'See docs/privacy.md and tests/storage/; a large feature is cogs/<feature>/."""\n'
                "def f():\n"
                '    """Written by bot/storage/members.py."""\n'
                "# a comment may say bot/gone.py: only docstrings and documents count\n"
            ),
            "bot/ui/render_review.py": "",
            "docs/privacy.md": (
                "# Privacy\n\nThe steps are in bot/storage/member_steps.py.\n"
                "Runs write bench/out/answer_path.json; drills are tests/drills/test_x*.py.\n"
                "```console\n$ tpquiz import x -o questions/new.yaml\n```\n"
            ),
            ".gitignore": "bench/out/\n*.egg-info/\n",
            "tests/storage/test_x.py": "",
            "README.md": "Start with `docs/privacy.md` and docs/missing.md.\n",
        },
    )
    assert RULES["a prose path to nothing"](root) == [
        "README.md:1: names docs/missing.md, which does not exist",
        "bot/ui/render.py:1: names cogs/admin_reports.py, which does not exist",
        "bot/ui/render.py:5: names bot/storage/members.py, which does not exist",
        "docs/privacy.md:3: names bot/storage/member_steps.py, which does not exist",
    ]
