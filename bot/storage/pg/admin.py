"""The PostgreSQL side of `bot.storage.admin`: `tpquiz db status` and `db upgrade [--dry-run]`.

Why apart from bot/storage/pg/status.py: that module reads the facts; this one gives them
to the command line in the shapes SQLite gives its own (bot/storage/admin_facts.py), so
`db status` prints the same lines on both where the facts are the same (schema, pending
migrations, rows per table, "applied ...", "is now at schema N"), and names the database
by `DatabaseUrl.redacted`, never with its password.

`status` and `dry_run` open the database without migrating (`bot.storage.pg.status`).
`upgrade` applies the pending migrations as `tpquiz run` does at start, under the
migration advisory lock, so two upgrades (or an upgrade and a starting bot) migrate once.
Unlike SQLite there is no run lock to refuse a running bot: bots on PostgreSQL migrate
at start anyway, and a running older bot keeps working on tables a later migration only
adds to; stop the bots first for a migration whose header says otherwise.

Each call runs its own event loop (`asyncio.run`): they are for the command line.
"""

from __future__ import annotations

import asyncio

from bot.infra.config import DatabaseUrl
from bot.storage.admin_facts import DryRun, MigrationInfo, Status, Upgraded
from bot.storage.migration_files import Migration
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.status import pending_migrations, pg_upgrade_script, read_pg_status

__all__ = ["dry_run", "status", "upgrade"]


def _infos(migrations: list[Migration]) -> list[MigrationInfo]:
    return [MigrationInfo(m.version, m.name, m.title) for m in migrations]


def status(url: DatabaseUrl) -> Status:
    """Database, size, the bots holding shard locks, schema, pending migrations, rows;
    DatabaseUnusable (one sentence, no password) when it cannot be read."""
    found = asyncio.run(read_pg_status(url))
    return Status(
        kind="database",
        where=url.redacted,
        size=found.size,
        log=None,
        running=f"{len(found.running)} shard locks held" if found.running else None,
        holders=found.running,
        version=found.version,
        newest=found.newest,
        pending=_infos(found.pending),
        rows=found.rows,
        too_new=None,  # `read_pg_status` refuses a newer schema when it opens the database
    )


def dry_run(url: DatabaseUrl) -> DryRun:
    """The SQL `db upgrade` would run on the database; changes nothing."""
    found = asyncio.run(read_pg_status(url))
    return DryRun(
        url.redacted,
        found.version,
        found.newest,
        _infos(found.pending),
        pg_upgrade_script(found.pending),
    )


def upgrade(url: DatabaseUrl) -> Upgraded:
    """Apply the pending migrations; the ones applied, as on SQLite."""

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
    return Upgraded(url.redacted, _infos(applied), after)
