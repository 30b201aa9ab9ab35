"""`tpquiz db status` and `tpquiz db upgrade [--dry-run]` when TPQUIZ_DATABASE_URL is set.

Why apart from bot/cli/db.py: the SQLite paths read a file (size, WAL, run lock), a
PostgreSQL database has none of those, so each backend's lines are built where its
facts are read. The lines are the SQLite ones where the fact is the same (schema,
pending migrations, rows per table, "applied ...", "is now at schema N") and name the
database by `DatabaseUrl.redacted`, never with its password.

`status` and `--dry-run` open the database without migrating (`bot.storage.pg.status`).
`upgrade` applies the pending migrations as `tpquiz run` does at start, under the
migration advisory lock, so two upgrades (or an upgrade and a starting bot) migrate once.
Unlike SQLite there is no run lock to refuse a running bot: bots on PostgreSQL migrate
at start anyway, and a running older bot keeps working on tables a later migration only
adds to; stop the bots first for a migration whose header says otherwise.
"""

from __future__ import annotations

import asyncio
from typing import TextIO

from bot.cli.db_lines import human_size, write_schema
from bot.infra.config import DatabaseUrl

__all__ = ["pg_dry_run", "pg_status", "pg_upgrade"]


def pg_status(url: DatabaseUrl, out: TextIO) -> int:
    """Print database, size, running bots, schema, pending migrations and rows."""
    from bot.storage.pg.status import read_pg_status

    status = asyncio.run(read_pg_status(url))
    out.write(f"database: {url.redacted}\n")
    out.write(f"size: {human_size(status.size)}\n")
    if status.running:
        out.write(f"bot running on it: yes ({len(status.running)} shard locks held)\n")
        for line in status.running:
            out.write(f"  {line}\n")
    else:
        out.write("bot running on it: no\n")
    write_schema(status, out)
    return 0


def pg_dry_run(url: DatabaseUrl, out: TextIO) -> None:
    """Print the SQL `db upgrade` would run on the database; change nothing."""
    from bot.storage.pg.status import pg_upgrade_script, read_pg_status

    status = asyncio.run(read_pg_status(url))
    if not status.pending:
        out.write(f"-- {url.redacted} is at schema {status.version}, the newest: nothing to run\n")
        return
    out.write(f"-- {url.redacted}: schema {status.version} -> {status.newest}\n\n")
    out.write(pg_upgrade_script(status.pending))


def pg_upgrade(url: DatabaseUrl, out: TextIO) -> None:
    """Apply the pending migrations; print each one applied, as on SQLite."""
    from bot.storage.pg.db import PgDatabase
    from bot.storage.pg.status import pending_migrations

    async def migrate() -> tuple[int, int]:
        db = await PgDatabase.open(url, migrate=False, max_size=1)
        try:
            before = await db.schema_version()
            await db.migrate()
            return before, await db.schema_version()
        finally:
            await db.close()

    before, after = asyncio.run(migrate())
    applied = [m for m in pending_migrations(before) if m.version <= after]
    for m in applied:
        out.write(f"db upgrade: applied {m.name} (schema {m.version}): {m.title}\n")
    if not applied:
        out.write(f"db upgrade: {url.redacted} is at schema {after}, the newest: nothing to do\n")
    else:
        out.write(f"db upgrade: {url.redacted} is now at schema {after}\n")
