"""What the database file holds and what an upgrade would do to it, without changing it.

`tpquiz db status` and `tpquiz db upgrade --dry-run` (bot/cli/db.py, through
bot/storage/sqlite/admin.py) read from here.
Both must be safe on the live file of a running bot and on a backup volume, so the file
is only ever opened read-only (`preflight.readonly_uri`), and a missing file is never
created.

The migrations' headers (what each changes and why) are read by
bot/storage/migration_files.py, shared with the PostgreSQL status.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.infra.runlock import running_pid
from bot.storage import problems
from bot.storage.migration_files import Migration, bundled
from bot.storage.sqlite import preflight
from bot.storage.sqlite.migrate import migration_step

__all__ = ["DatabaseStatus", "read_status", "upgrade_script"]


@dataclass(frozen=True)
class DatabaseStatus:
    path: Path
    size: int
    wal_size: int
    version: int
    newest: int
    pending: list[Migration]
    rows: dict[str, int]
    #: pid of the bot running on the file (0 if unknown), or None when none runs.
    running: int | None

    @property
    def too_new(self) -> str | None:
        """The refusal sentence when a newer tpquiz wrote the file, else None."""
        if self.version > self.newest:
            return problems.schema_too_new(self.path, self.version, self.newest)
        return None


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def read_status(path: Path) -> DatabaseStatus:
    """Read `path` without changing it; DatabaseUnusable (one sentence) if it cannot be read.

    A schema newer than this code is reported, not refused (see `too_new`): the operator
    asked what the file holds.
    """
    problem = preflight.path_problem(path, write=False)
    if problem:
        raise problems.DatabaseUnusable(problem)
    known = bundled()
    size = path.stat().st_size
    wal = path.with_name(path.name + "-wal")
    wal_size = wal.stat().st_size if wal.is_file() else 0
    try:
        conn = sqlite3.connect(preflight.readonly_uri(path), uri=True)
    except sqlite3.Error as exc:
        raise problems.DatabaseUnusable(problems.cannot_open(path, exc)) from None
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = [
            str(r[0])
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        if (tables or version > 0) and "answers" not in tables:
            raise problems.DatabaseUnusable(problems.not_tpquiz(path, version))
        # Table names come from sqlite_master, not from input; identifiers cannot be bound.
        rows = {
            t: int(conn.execute(f"SELECT COUNT(*) FROM {_quoted(t)}").fetchone()[0]) for t in tables
        }
    except sqlite3.DatabaseError as exc:
        raise problems.DatabaseUnusable(problems.unreadable_sqlite(path, exc)) from None
    finally:
        conn.close()
    return DatabaseStatus(
        path=path,
        size=size,
        wal_size=wal_size,
        version=version,
        newest=len(known),
        pending=[m for m in known if m.version > version],
        rows=rows,
        running=running_pid(path),
    )


def upgrade_script(pending: list[Migration]) -> str:
    """The SQL `Database.migrate` runs for `pending`, as a script a person can read.

    Each migration is one transaction that ends by setting user_version, as in
    `Database.migrate`; the header comes first so the intent is read before the SQL.
    """
    parts = []
    for m in pending:
        header = [f"-- {m.name}: schema {m.version - 1} -> {m.version}: {m.title}"]
        header += [f"-- Why: {m.why}", f"-- Changes: {m.changes}", "BEGIN IMMEDIATE;"]
        body = [f"{statement};" for statement in m.statements()]
        step = migration_step(m.name)
        if step is not None:  # Python, not SQL: the bot runs it here, in this transaction
            body.append(f"-- Then the bot runs a Python step: {step.what}.")
        footer = [f"PRAGMA user_version = {m.version};", "COMMIT;"]
        parts.append("\n".join(header + body + footer))
    return "\n\n".join(parts) + ("\n" if parts else "")
