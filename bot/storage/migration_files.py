"""The bundled migrations of both backends: finding the numbered files, reading their headers.

Why a neutral module: SQLite (bot/storage/sqlite/migrations/) and PostgreSQL
(bot/storage/pg/migrations/) each bundle one file per migration, with the same numbers
and names, and both find them the same way (`numbered`). `tpquiz db status` and `db
upgrade --dry-run` print each pending migration's title and intent on either backend,
from one reading of the headers (`bundled`). Only the files are read here, as package
data: no backend's code is imported.

Every migration starts with a header that says what it changes and why, so that
`--dry-run` and a reviewer read the intent before the SQL:

    -- 0042: What it is, in a few words
    -- Why: one line or more (continued on lines that start with "--   ").
    -- Changes: the tables, columns and indexes it adds, fills or drops.

`header_problem` checks it; `tests/storage/test_schema.py` runs it over every bundled
migration, so a new one without the header fails the suite with the file's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Literal

__all__ = [
    "HEADER_EXAMPLE",
    "Migration",
    "bundled",
    "header_problem",
    "numbered",
    "split_sql",
]

_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def numbered(backend: Literal["sqlite", "pg"]) -> list[tuple[int, str, str]]:
    """(version, name, sql) for every migration bundled for `backend`, in order."""
    folder = resources.files("bot.storage").joinpath(backend).joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 0001, 0002, ... without gaps: {versions}")
    return found


def split_sql(script: str) -> list[str]:
    """Split a migration into statements (our migrations hold no ';' inside literals)."""
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


_TITLE = re.compile(r"^-- (\d{4}): (\S.*)$")
_FIELD = re.compile(r"^-- (Why|Changes): (\S.*)$")
_CONTINUED = re.compile(r"^--   +(\S.*)$")

HEADER_EXAMPLE = "-- NNNN: title / -- Why: ... / -- Changes: ..."


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    title: str
    why: str
    changes: str

    def statements(self) -> list[str]:
        """The statements SQLite's `Database.migrate` runs, one by one, in one transaction."""
        return split_sql(self.sql)


def _header(sql: str) -> tuple[str | None, dict[str, str]]:
    """The title and the Why/Changes fields of the leading comment block."""
    title: str | None = None
    fields: dict[str, str] = {}
    current: str | None = None
    for number, line in enumerate(sql.splitlines()):
        if not line.startswith("--"):
            break
        if number == 0:
            match = _TITLE.match(line)
            title = match.group(2).strip() if match else None
            continue
        field, continued = _FIELD.match(line), _CONTINUED.match(line)
        if field:
            current = field.group(1)
            fields[current] = field.group(2).strip()
        elif continued and current:
            fields[current] += " " + continued.group(1).strip()
        else:
            current = None  # a blank "--" or free comment ends the field
    return title, fields


def header_problem(name: str, sql: str) -> str | None:
    """What is wrong with the header of migration `name`, in one sentence; None if fine."""
    version = name[:4]
    first = sql.splitlines()[0] if sql.strip() else ""
    match = _TITLE.match(first)
    if not match:
        return (
            f"{name}: the first line must be '-- {version}: <title>' (the header is "
            f"{HEADER_EXAMPLE}), not {first[:60]!r}"
        )
    if match.group(1) != version:
        return f"{name}: the header says {match.group(1)}, the file name {version}"
    _, fields = _header(sql)
    for field in ("Why", "Changes"):
        if field not in fields:
            return (
                f"{name}: the header has no '-- {field}: ...' line (the header is "
                f"{HEADER_EXAMPLE}, in the leading comment block)"
            )
    return None


def bundled() -> list[Migration]:
    """Every migration of this tpquiz with its header; ValueError names a bad one.

    The headers are read from the SQLite files, the checked ones: both backends have the
    same numbers and names (tests/storage/test_pg_schema.py), and PostgreSQL's status
    prints these titles beside its own SQL."""
    found = []
    for version, name, sql in numbered("sqlite"):
        problem = header_problem(name, sql)
        if problem:
            raise ValueError(problem)
        title, fields = _header(sql)
        assert title is not None  # header_problem checked it
        found.append(Migration(version, name, sql, title, fields["Why"], fields["Changes"]))
    return found
