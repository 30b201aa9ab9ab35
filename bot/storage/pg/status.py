"""What a PostgreSQL database holds and what an upgrade would run on it, without changing it.

`tpquiz db status` and `tpquiz db upgrade --dry-run` (bot/cli/db.py, through
bot/storage/pg/admin.py) read from here
when TPQUIZ_DATABASE_URL is set, as they read `bot.storage.sqlite.schema` for a SQLite
file, so the commands print the same lines on both backends. Why a module of its own:
the SQLite status reads the file read-only; here the database is opened without
migrating (`PgDatabase.open(migrate=False)`), so a status or a dry run never changes the
schema, and is safe beside running bots. The migrations' titles come from the SQLite twins'
headers (`bot.storage.migration_files.bundled`): both backends have the same numbers and
names (tests/storage/test_pg_schema.py), and the SQLite headers are the checked ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.infra.config import DatabaseUrl
from bot.storage.migration_files import Migration, bundled
from bot.storage.pg.db import VERSION_TABLE, PgDatabase, pending_pg_migrations
from bot.storage.pg.shard_locks import holders

__all__ = ["PgStatus", "pg_upgrade_script", "read_pg_status", "schema_too_old_to_read"]


@dataclass(frozen=True)
class PgStatus:
    url: DatabaseUrl
    #: pg_database_size of the database, in bytes.
    size: int
    version: int
    newest: int
    #: The pending migrations, their `sql` the PostgreSQL script (not SQLite's).
    pending: list[Migration]
    rows: dict[str, int]
    #: One line per process holding a shard lock (a running bot), empty when none runs.
    running: list[str]


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def pending_migrations(version: int) -> list[Migration]:
    """The PostgreSQL migrations newer than `version`, with the SQLite twins' headers."""
    headers = {m.version: m for m in bundled()}
    return [
        Migration(v, name, sql, headers[v].title, headers[v].why, headers[v].changes)
        for v, name, sql in pending_pg_migrations(version)
    ]


async def read_pg_status(url: DatabaseUrl) -> PgStatus:
    """Read the database at `url` without migrating it; DatabaseUnusable (one sentence, no
    password) when it cannot be reached, is not tpquiz's or is newer than this code."""
    db = await PgDatabase.open(url, migrate=False, max_size=1)
    try:
        version = await db.schema_version()
        size = await db.fetchrow("SELECT pg_database_size(current_database())")
        tables = await db.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            " AND tablename <> $1 ORDER BY tablename",
            VERSION_TABLE,
        )
        rows: dict[str, int] = {}
        for row in tables:
            # Table names come from pg_tables, not from input; identifiers cannot be bound.
            found = await db.fetchrow(f"SELECT COUNT(*) FROM {_quoted(str(row[0]))}")
            rows[str(row[0])] = int(found[0]) if found is not None else 0
    finally:
        await db.close()
    shards, _counts = await holders(url)
    running = [f"shard {shard}: {holder.describe()}" for shard, holder in sorted(shards.items())]
    return PgStatus(
        url=url,
        size=int(size[0]) if size is not None else 0,
        version=version,
        newest=len(bundled()),
        pending=pending_migrations(version),
        rows=rows,
        running=running,
    )


def pg_upgrade_script(pending: list[Migration]) -> str:
    """The SQL `PgDatabase.migrate` runs for `pending`, as a script a person can read:
    each migration one transaction that ends by recording its version."""
    parts = []
    for m in pending:
        lines = [f"-- {m.name}: schema {m.version - 1} -> {m.version}: {m.title}"]
        lines += [f"-- Why: {m.why}", f"-- Changes: {m.changes}", "BEGIN;"]
        if m.version == 1:
            lines.append(
                f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version INTEGER PRIMARY KEY,"
                " name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());"
            )
        lines.append(m.sql.strip())
        lines.append(
            f"INSERT INTO {VERSION_TABLE} (version, name) VALUES ({m.version}, '{m.name}');"
        )
        lines.append("COMMIT;")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + ("\n" if parts else "")


def schema_too_old_to_read(url: DatabaseUrl, version: int, newest: int) -> str:
    return (
        f"the PostgreSQL database {url.redacted} is at schema {version}, this tpquiz reads"
        f" schema {newest}: start the bot once (tpquiz run) to migrate it, then ask again;"
        " this command never changes the database"
    )
