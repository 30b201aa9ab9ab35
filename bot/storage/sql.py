"""One SQL text for both databases, and the narrow port the shared stores run it through.

Why: most of what the cold stores say (posts, test runs, settings, reminders, reports,
daily posts) reads the same in SQLite and PostgreSQL, since SQLite >= 3.35 has
`RETURNING`, `ON CONFLICT ... DO UPDATE` and `UPDATE ... FROM`. What differed was the
driver's form of a parameter (`?` against `$1`) and how a statement is sent (aiosqlite
against asyncpg). So a statement is written once, as a `Query` with named parameters
(`:guild`), and turned into each driver's numbered form once per dialect and cached:
`?1, ?2` for sqlite3 and `$1, $2` for asyncpg, one number per name however often it
appears. The few places where the dialects really differ are `Fragment`s of the text,
written `{name}` (SQLite's `INDEXED BY`, PostgreSQL's `= ANY(array)`). No query builder
and no ORM: the SQL stays the SQL that runs (bot/storage/stores/ holds the stores).

`Executor` is the port (four operations, like RoboDanny's `DatabaseProtocol` or
encode/databases' backends): `fetch`, `fetch_one`, `execute` and `transaction`. Each
backend adapts its database to it in a few lines (bot/storage/sqlite/executor.py over
aiosqlite, bot/storage/pg/executor.py over asyncpg). The click path does not go through
it: it is tuned per backend (the group commit on SQLite, one server function on
PostgreSQL), and only takes its read's PostgreSQL form from `Query` at import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any, Protocol

__all__ = ["Compiled", "Dialect", "Executor", "Fragment", "Query", "Row"]


class Dialect(Enum):
    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


#: A row as both drivers return it: an `sqlite3.Row` or an asyncpg `Record`, read by
#: position (`row[0]`), unpacked or iterated; the mappers of bot/storage/records.py take it.
Row = Sequence[Any]


@dataclass(frozen=True, slots=True)
class Fragment:
    """A piece of a `Query`'s text that each dialect writes its own way (it may hold
    named parameters too)."""

    sqlite: str
    postgresql: str

    def of(self, dialect: Dialect) -> str:
        return self.sqlite if dialect is Dialect.SQLITE else self.postgresql


@dataclass(frozen=True, slots=True)
class Compiled:
    """A query in one driver's form: its text and the parameter names in number order."""

    sql: str
    names: tuple[str, ...]

    def args(self, params: Mapping[str, object]) -> list[object]:
        """The values in number order (a name missing from `params` raises KeyError;
        one `params` has but the query does not name is left out)."""
        return [params[name] for name in self.names]


class Query:
    """One SQL statement with named parameters (`:name`) and dialect `Fragment`s
    (`{name}`), compiled once per dialect.

    A parameter is `:` and a name, not after another `:` (PostgreSQL's `::bigint` cast
    stays) and not inside a quoted string (`'09:00'` stays).
    """

    __slots__ = ("_compiled", "fragments", "text")

    def __init__(self, text: str, /, **fragments: Fragment) -> None:
        self.text = text
        self.fragments = fragments
        self._compiled: dict[Dialect, Compiled] = {}

    def __repr__(self) -> str:
        return f"Query({self.text!r})"

    def compile(self, dialect: Dialect) -> Compiled:
        compiled = self._compiled.get(dialect)
        if compiled is None:
            text = _FRAGMENT.sub(lambda m: self._fragment(m.group(1), dialect), self.text)
            compiled = self._compiled[dialect] = numbered(text, dialect)
        return compiled

    def bind(self, dialect: Dialect, params: Mapping[str, object]) -> tuple[str, list[object]]:
        """The driver's text and the values in its order."""
        compiled = self.compile(dialect)
        return compiled.sql, compiled.args(params)

    def _fragment(self, name: str, dialect: Dialect) -> str:
        fragment = self.fragments.get(name)
        if fragment is None:
            raise ValueError(f"{self!r} names a fragment {{{name}}} it was not given")
        return fragment.of(dialect)


_FRAGMENT = re.compile(r"\{([a-z_]+)\}")
#: A quoted string (kept as it is) or a named parameter (group 1).
_NAMED = re.compile(r"'(?:[^']|'')*'|(?<!:):([A-Za-z_][A-Za-z0-9_]*)")
_MARK = {Dialect.SQLITE: "?", Dialect.POSTGRESQL: "$"}


@lru_cache(maxsize=512)
def numbered(text: str, dialect: Dialect) -> Compiled:
    """`text`'s named parameters as the dialect's numbered ones, one number per name.

    Cached by text, so a statement put together per call from a few shapes (a
    leaderboard's source, a report filter) is numbered once per shape too."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:
            return match.group(0)
        if name not in names:
            names.append(name)
        return f"{_MARK[dialect]}{names.index(name) + 1}"

    return Compiled(_NAMED.sub(number, text), tuple(names))


class Executor(Protocol):
    """What a shared store needs of a database: four operations on `Query`s.

    - `fetch` / `fetch_one`: the rows of a read (all of them, or the first or None).
    - `execute`: a write; returns how many rows it changed. Outside `transaction()` it
      is a transaction of its own.
    - `transaction()`: BEGIN .. COMMIT (ROLLBACK when the body raises) around what runs
      on the executor it yields; `WriteFailed` (bot/storage/errors.py) when the database
      failed and nothing was saved. Not nested. A statement that writes and returns rows
      (`INSERT ... RETURNING`) goes through `fetch` inside one, since outside one a read
      takes no write lock.

    A `list` value is an array parameter: PostgreSQL binds it as an array, SQLite as
    JSON text (a fragment reads it with `json_each`).
    """

    @property
    def dialect(self) -> Dialect: ...

    async def fetch(self, query: Query, /, **params: object) -> list[Row]: ...

    async def fetch_one(self, query: Query, /, **params: object) -> Row | None: ...

    async def execute(self, query: Query, /, **params: object) -> int: ...

    def transaction(self) -> AbstractAsyncContextManager[Executor]: ...
