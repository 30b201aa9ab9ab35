"""The lines `tpquiz db status` prints alike on SQLite and PostgreSQL.

Why a module of their own: bot/cli/db.py (SQLite) and bot/cli/db_pg.py (PostgreSQL) both
print them; kept here, below both, neither of the two imports the other's lines.
"""

from __future__ import annotations

from typing import Any, TextIO

__all__ = ["human_size", "write_schema"]


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    return f"{size / 1024:.0f} KiB" if size < 10 * 2**20 else f"{size / 2**20:.1f} MiB"


def write_schema(status: Any, out: TextIO) -> None:
    """The lines of `db status` both backends print alike: the schema version, the
    pending migrations and the rows per table (`status`: SQLite's or PostgreSQL's)."""
    out.write(f"schema: {status.version} (this tpquiz knows {status.newest})\n")
    if status.pending:
        out.write(f"pending migrations: {len(status.pending)} (tpquiz db upgrade applies them)\n")
        for m in status.pending:
            out.write(f"  {m.name}: {m.title}\n")
    else:
        out.write("pending migrations: none\n")
    out.write("rows:\n")
    width = max((len(t) for t in status.rows), default=0)
    for table, count in status.rows.items():
        out.write(f"  {table:<{width}}  {count:>10}\n")
