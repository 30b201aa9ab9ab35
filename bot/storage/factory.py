"""The one place that opens the storage a setting names, and so knows there are two backends.

Why one place: `tpquiz run`, the command line and the tests must not each decide between
SQLite (TPQUIZ_DB) and PostgreSQL (TPQUIZ_DATABASE_URL). `open_storage(settings)` does, and
returns a bundle with the same store attributes either way (`bot.storage.sqlite.Storage` or
`bot.storage.pg.storage.PgStorage`, both `StorageContract`), so the rest sees only the
contract. It lives outside both backends so that neither imports the other; PostgreSQL's
driver is imported only when the settings name PostgreSQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from bot.infra.config import Settings
    from bot.storage.pg.storage import PgStorage
    from bot.storage.sqlite import Storage

__all__ = ["open_readonly", "open_storage"]


async def open_storage(settings: Settings, *, readonly: bool = False) -> Storage | PgStorage:
    """The storage the settings name: PostgreSQL when TPQUIZ_DATABASE_URL is set, else the
    SQLite file TPQUIZ_DB. `readonly` opens SQLite read-only and does not migrate
    PostgreSQL (its schema must then be current or older, never newer)."""
    if settings.database_url is not None:
        from bot.storage.pg.storage import PgStorage

        return await PgStorage.open(settings.database_url, migrate=not readonly)
    from bot.storage.sqlite import Storage

    return await Storage.open(settings.db_path, readonly=readonly)


async def open_readonly(settings: Settings) -> Storage | PgStorage:
    """`open_storage(settings, readonly=True)` for the commands that only read
    (`leaderboard`, `export-user`), refusing what SQLite's read-only open refuses.

    Why: SQLite's read-only open refuses a file at an older schema (its tables may lack
    what the reads need); PostgreSQL opened without migrating would instead fail at the
    first query with a driver error. So a PostgreSQL database below the newest schema,
    an empty one included, is refused here with one sentence, the same as SQLite's."""
    storage = await open_storage(settings, readonly=True)
    if settings.database_url is not None:
        from bot.storage.migration_files import bundled
        from bot.storage.pg.status import schema_too_old_to_read
        from bot.storage.problems import DatabaseUnusable

        pg = cast("PgStorage", storage)
        version, newest = await pg.db.schema_version(), len(bundled())
        if version < newest:
            await pg.close()
            raise DatabaseUnusable(schema_too_old_to_read(pg.db.url, version, newest))
    return storage
