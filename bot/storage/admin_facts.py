"""What the command line is told about a database, the same shapes whichever backend holds it.

Why a module of its own: `bot.storage.admin` answers `tpquiz db status`, `db upgrade`,
`db copy`, backup and restore with these, and the backends' own admin modules
(bot/storage/sqlite/admin.py, bot/storage/pg/admin.py, bot/storage/copy_verify.py) fill
them in; kept here, below all three, no backend imports the module that chooses between
them. Each field is a fact the command prints; where it names the database it is the
file's path or the URL redacted, never a password.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CopyReport", "DryRun", "MigrationInfo", "ServerTool", "Status", "Upgraded"]


@dataclass(frozen=True)
class MigrationInfo:
    """A bundled migration as the commands name it: `0007_reports.sql: Problem reports`."""

    version: int
    name: str
    title: str


@dataclass(frozen=True)
class Status:
    """`tpquiz db status`: where the database is, how big, who runs on it, its schema."""

    #: What the first line calls the place: "file" (SQLite) or "database" (PostgreSQL).
    kind: str
    #: The file's absolute path, or the URL redacted.
    where: str
    #: Bytes of the file, or of the whole database on the server.
    size: int
    #: SQLite's write-ahead log beside the file, (its name, its bytes); None when empty.
    log: tuple[str, int] | None
    #: None when no bot runs on it; else who does ("pid 12", "2 shard locks held"),
    #: "" when a bot runs but who is not known.
    running: str | None
    #: One line per lock a running bot holds (PostgreSQL's shard locks), shown under it.
    holders: list[str]
    version: int
    newest: int
    pending: list[MigrationInfo]
    rows: dict[str, int]
    #: The refusal sentence when a newer tpquiz wrote the database, else None: reported
    #: by `db status`, not refused, since the operator asked what it holds.
    too_new: str | None


@dataclass(frozen=True)
class DryRun:
    """`tpquiz db upgrade --dry-run`: the SQL an upgrade would run, and from where to where."""

    where: str
    #: The schema now; None when there is no database yet (the upgrade would create it).
    version: int | None
    newest: int
    pending: list[MigrationInfo]
    #: The pending migrations as one script a person can read ("" when none is pending).
    script: str


@dataclass(frozen=True)
class Upgraded:
    """`tpquiz db upgrade`: the migrations it applied and the schema it left."""

    where: str
    applied: list[MigrationInfo]
    version: int


@dataclass(frozen=True)
class CopyReport:
    """`tpquiz db copy`: what was copied, what the target holds after, what differs."""

    #: The rows of every table of the SQLite file, read after the copy.
    source: dict[str, int]
    #: The rows the copy wrote into each table, as it counted them.
    copied: dict[str, int]
    #: The rows each table of the target holds after the copy.
    written: dict[str, int]
    #: The servers whose leaderboards were compared.
    servers: int
    #: The leaderboards that differ: "server 77 (this week)".
    differ: list[str]


@dataclass(frozen=True)
class ServerTool:
    """A database on a server has no file for `tpquiz backup`/`restore` to copy: the
    command of the server's own tool that does it."""

    #: The database, its URL redacted.
    where: str
    #: The pg_dump or pg_restore command line, without the password.
    command: str
