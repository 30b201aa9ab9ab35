"""`tpquiz doctor`'s database check on PostgreSQL: the server answers, the schema version,
and which process holds each shard's lock (bot/storage/pg/shard_locks.py).

Why in storage: it connects with this backend's driver and reads its advisory locks; the
command line reaches it through `bot.storage.admin.doctor_checks` and prints its lines
(`bot.infra.checks.Check`) among the token, bank and Discord checks of bot/cli/doctor.py.
It never migrates, and shows the URL redacted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bot.infra.checks import Check

if TYPE_CHECKING:
    from bot.infra.config import Settings
    from bot.storage.pg.shard_locks import Holder

__all__ = ["check_postgres"]


async def check_postgres(settings: Settings) -> list[Check]:
    """TPQUIZ_DATABASE_URL, when set: the server answers, the schema version, which
    process holds each shard's lock. Never migrates; shows the URL redacted."""
    url = settings.database_url
    if url is None:
        return []
    import asyncpg

    from bot.storage.pg.db import PgDatabase, pg_migrations
    from bot.storage.pg.shard_locks import holders
    from bot.storage.problems import DatabaseUnusable

    newest = len(pg_migrations())
    try:
        db = await PgDatabase.open(url, migrate=False, min_size=1, max_size=1)
    except DatabaseUnusable as exc:
        return [Check("FAIL", "postgres", str(exc))]
    try:
        version = await db.schema_version()
        async with db.pool.acquire() as conn:
            server = conn.get_server_version()
    finally:
        await db.close()
    schema = f"at schema {version}/{newest}" if version else "empty (no tpquiz schema yet)"
    results = [
        Check(
            "ok",
            "postgres",
            f"{url.redacted} answers (PostgreSQL {server.major}.{server.minor}), {schema}",
        )
    ]
    try:
        shards, counts = await holders(url)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        return [
            *results,
            Check("warn", "shards", f"cannot read the shard locks ({url.scrub(str(exc))})"),
        ]
    return results + _shard_lines(shards, counts)


#: Shard locks listed one by one; more are counted.
MAX_SHARD_LINES = 16


def _shard_lines(shards: Mapping[int, Holder], counts: Mapping[int, Holder]) -> list[Check]:
    """One line per held shard lock: who runs it (and a warning for mixed shard counts)."""
    if not shards:
        return [Check("ok", "shards", "no tpquiz process holds a shard lock (none is running)")]
    of = f" of {next(iter(counts))}" if len(counts) == 1 else ""
    lines = [
        Check("ok", "shards", f"shard {shard}{of} is run by {shards[shard].describe()}")
        for shard in sorted(shards)[:MAX_SHARD_LINES]
    ]
    if len(shards) > MAX_SHARD_LINES:
        lines.append(Check("ok", "shards", f"... and {len(shards) - MAX_SHARD_LINES} more"))
    if len(counts) > 1:
        lines.append(
            Check(
                "warn",
                "shards",
                f"processes run with different TPQUIZ_SHARD_COUNT ({', '.join(map(str, sorted(counts)))}):"
                " the servers are split two ways; give every process the same count",
            )
        )
    return lines
