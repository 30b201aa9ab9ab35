"""PostgreSQL storage (issue 15), chosen by TPQUIZ_DATABASE_URL; SQLite stays the default.

Why a second backend: one SQLite file cannot be shared by several processes on several
machines, and a public bot needs shards split across processes and replicas. This
package holds the PostgreSQL side: numbered migrations in `migrations/` with the same
numbers, names and tables as bot/storage/sqlite/migrations/ (tests/storage/test_pg_schema.py
compares the two schemas table by table), `PgDatabase` (an asyncpg pool that applies
them at open), `PgExecutor` (the port the shared stores of bot/storage/stores/ run on),
and the stores whose SQL is PostgreSQL's own. Nothing outside bot/storage/ imports it:
the rest of the bot sees only the contract in bot/storage/contract.py.

The click (`PgAnswerStore`, pg/clicks.py) and the daily store (bot/storage/stores/daily.py)
are the two stores written by several processes at once; their module docstrings say
which locks keep one answer per member per post, exact totals and one post per day.
"""

from __future__ import annotations

from bot.storage.pg.answers import PgAnswerStore
from bot.storage.pg.db import PgDatabase, pg_migrations
from bot.storage.pg.executor import PgExecutor

__all__ = ["PgAnswerStore", "PgDatabase", "PgExecutor", "pg_migrations"]
