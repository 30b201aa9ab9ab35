"""`tpquiz doctor`: check a set-up end to end and say, line by line, what to fix.

The people who run this bot are not Discord developers; when it does not start they need
one command that checks everything it depends on in the order a person would: the token
(its shape, never its value), the database (opens, migrates, accepts a write, passes a
quick integrity check, has disk space), the question bank, and, when the network allows,
Discord itself (the token is accepted, and the bot can see its servers). Each problem is
one line that says what to do. Nothing here prints or logs the token.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp

from bot.bank.loader import BankError, bundled_question_files, check_files
from bot.infra.config import Settings, token_problem
from bot.infra.runlock import running_pid
from bot.ops.health import heartbeat_path_for, heartbeat_problem
from bot.runtime.startup import login_answered

if TYPE_CHECKING:
    from bot.storage.pg.shard_locks import Holder
    from bot.storage.records import PendingRemoval

__all__ = ["Check", "run_doctor", "DEFAULT_API_BASE"]

DEFAULT_API_BASE = "https://discord.com/api/v10"
#: Below this much free space next to the database, SQLite writes may soon fail.
MIN_FREE_BYTES = 100 * 1024 * 1024
#: View Channel, Send Messages, Embed Links, Attach Files, Read Message History.
INVITE_PERMISSIONS = 1024 | 2048 | 16384 | 32768 | 65536
MAX_BANK_LINES = 20


@dataclass(frozen=True)
class Check:
    #: "ok", "FAIL", "warn" (worth knowing, does not fail) or "skip".
    status: str
    name: str
    message: str

    def __str__(self) -> str:
        return f"{self.status:<4} {self.name}: {self.message}"

    @property
    def failed(self) -> bool:
        return self.status == "FAIL"


def check_token(settings: Settings) -> list[Check]:
    problem = token_problem(settings.token)
    if problem:
        return [Check("FAIL", "token", problem)]
    assert settings.token is not None
    return [Check("ok", "token", f"looks like a bot token ({len(settings.token)} characters)")]


async def check_database(settings: Settings) -> list[Check]:
    """Check the database file, then open (and so migrate) it and commit one row.

    The sentences are the ones `tpquiz run` and `leaderboard` print
    (`bot.storage.problems`). A missing database is not created: doctor only says
    that `tpquiz run` will create it. A bot that is running an older tpquiz on the same
    file is not migrated under its feet: doctor then only reports that a restart will
    apply the new migrations.
    """
    from bot.storage import problems
    from bot.storage.sqlite import Storage
    from bot.storage.sqlite.backup import file_schema_version
    from bot.storage.sqlite.migrate import migrations
    from bot.storage.sqlite.preflight import run_problem

    path = settings.db_path
    newest = len(migrations())
    pid = None if str(path) == ":memory:" else running_pid(path)
    running = [] if pid is None else [Check("ok", "bot", _running(pid))]
    if pid is not None and not path.exists():
        return [Check("FAIL", "database", problems.file_lost(path, "deleted")), *running]
    problem = run_problem(path)
    if problem:
        return [Check("FAIL", "database", problem), *running]
    if not path.exists():
        return [Check("ok", "database", f"no database at {path} yet: tpquiz run creates it there")]
    version = file_schema_version(path)
    if pid is not None and version < newest:
        return [
            Check(
                "warn",
                "database",
                f"{path} is at schema {version}, this tpquiz has {newest}; the running "
                "bot is an older version: restart it to apply the migrations (back up "
                "first); not migrating under it",
            ),
            *running,
        ]
    try:
        storage = await Storage.open(path)
    except problems.DatabaseUnusable as exc:
        return [Check("FAIL", "database", str(exc)), *running]
    try:
        version = await storage.db.schema_version()
        await storage.meta.set("doctor:checked_at", datetime.now(UTC).isoformat())
        pending = await storage.privacy.pending_removals()
    except Exception as exc:
        return [
            Check(
                "FAIL",
                "database",
                f"{path} opens but refuses writes ({exc}): check the file's owner and "
                "permissions, the free disk space, and that no other program locks it",
            )
        ]
    finally:
        await storage.close()
    results = [
        Check("ok", "database", f"{path} opens, is at schema {version}/{newest}, accepts writes"),
        *_retention(pending),
    ]
    free = shutil.disk_usage(path.parent).free
    if free < MIN_FREE_BYTES:
        results.append(
            Check(
                "warn",
                "disk",
                f"only {free // (1024 * 1024)} MiB free next to {path}: free some space "
                "before SQLite runs out of room",
            )
        )
    return results + running


async def check_postgres(settings: Settings) -> list[Check]:
    """TPQUIZ_DATABASE_URL, when set: the server answers, the schema version, which
    process holds each shard's lock (bot/storage/pg/shard_locks.py). Never migrates;
    shows the URL redacted."""
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


#: Pending server deletions listed one by one; more are counted.
MAX_PENDING_LINES = 5


def _retention(pending: Sequence[PendingRemoval]) -> list[Check]:
    """The servers that removed the bot and whose data is still to be deleted."""
    if not pending:
        return [Check("ok", "retention", "no server's data is pending deletion")]

    def day(ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")

    lines = [
        Check(
            "ok",
            "retention",
            f"server {p.guild_id} removed the bot on {day(p.removed_at)}: its data will be"
            f" deleted on {day(p.due_at)} (tpquiz forget-guild --guild {p.guild_id} does it now)",
        )
        for p in pending[:MAX_PENDING_LINES]
    ]
    if len(pending) > MAX_PENDING_LINES:
        more = len(pending) - MAX_PENDING_LINES
        lines.append(Check("ok", "retention", f"... and {more} more servers pending deletion"))
    return lines


def _running(pid: int) -> str:
    who = f"pid {pid}" if pid else "another process"
    return f"tpquiz is running on this database ({who})"


def check_bank(settings: Settings) -> list[Check]:
    paths: Sequence[Path] = settings.question_paths or bundled_question_files()
    try:
        bank, problems = check_files(list(paths))
    except BankError as exc:  # pragma: no cover - check_files reports, but be safe
        bank, problems = None, exc.problems
    where = ", ".join(str(p) for p in settings.question_paths) or "the bundled questions"
    if bank is None:
        lines = [Check("FAIL", "bank", str(problem)) for problem in problems[:MAX_BANK_LINES]]
        if len(problems) > MAX_BANK_LINES:
            more = len(problems) - MAX_BANK_LINES
            lines.append(Check("FAIL", "bank", f"... and {more} more problems in {where}"))
        if not lines:
            lines.append(Check("FAIL", "bank", f"{where} did not load"))
        return lines
    return [Check("ok", "bank", f"{len(bank)} questions from {where} validate")]


async def _get(session: aiohttp.ClientSession, url: str, token: str) -> tuple[int, Any]:
    async with session.get(url, headers={"Authorization": f"Bot {token}"}) as resp:
        try:
            body = await resp.json(content_type=None)
        except (ValueError, aiohttp.ContentTypeError):
            body = None
        return resp.status, body


async def check_discord(settings: Settings, wait: float = 10.0) -> list[Check]:
    """GET /users/@me and /users/@me/guilds with the token (it is sent, never shown)."""
    token = settings.token or ""
    base = (settings.api_base or DEFAULT_API_BASE).rstrip("/")

    def hide(text: str) -> str:
        return text.replace(token, "[REDACTED]") if token else text

    client_timeout = aiohttp.ClientTimeout(total=wait)
    try:
        async with aiohttp.ClientSession(timeout=client_timeout) as session:
            status, me = await _get(session, f"{base}/users/@me", token)
            if status == 401:
                return [
                    Check(
                        "FAIL",
                        "discord",
                        "Discord rejected the token (401): reset it in the Developer Portal "
                        "(your application > Bot > Reset Token) and update DISCORD_TOKEN",
                    )
                ]
            if status != 200 or not isinstance(me, dict):
                return [
                    Check(
                        "FAIL",
                        "discord",
                        login_answered(base, status),
                    )
                ]
            results = [
                Check(
                    "ok",
                    "discord",
                    f"token accepted: logged in as {me.get('username', '?')} ({me.get('id', '?')})",
                )
            ]
            status, guilds = await _get(session, f"{base}/users/@me/guilds", token)
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        detail = hide(str(exc)) or type(exc).__name__
        return [
            Check(
                "FAIL",
                "discord",
                f"cannot reach {base} ({detail}): check the network, DNS and firewall "
                "(outbound HTTPS), or run tpquiz doctor --offline to skip this check",
            )
        ]
    if status != 200 or not isinstance(guilds, list):
        results.append(
            Check("FAIL", "servers", f"GET {base}/users/@me/guilds answered HTTP {status}")
        )
        return results
    invite = (
        "https://discord.com/oauth2/authorize?client_id="
        f"{me.get('id', '<application id>')}&scope=bot+applications.commands"
        f"&permissions={INVITE_PERMISSIONS}"
    )
    if not guilds:
        results.append(
            Check("FAIL", "servers", f"the bot is in no server yet: invite it with {invite}")
        )
        return results
    seen = {int(g["id"]) for g in guilds if isinstance(g, dict) and "id" in g}
    names = ", ".join(str(g.get("name", g.get("id"))) for g in guilds[:5])
    more = f" and {len(guilds) - 5} more" if len(guilds) > 5 else ""
    results.append(Check("ok", "servers", f"in {len(guilds)} server(s): {names}{more}"))
    for guild_id in settings.sync_guilds:
        if guild_id not in seen:
            results.append(
                Check(
                    "FAIL",
                    "servers",
                    f"TPQUIZ_SYNC_GUILDS lists {guild_id} but the bot is not in that server: "
                    f"invite it ({invite}) or remove the id",
                )
            )
    return results


async def run_doctor(settings: Settings, *, offline: bool = False) -> list[Check]:
    """Every check, in order; the caller prints them and exits 1 if any failed."""
    results = check_token(settings)
    # The backend the bot would use: the SQLite file only when no PostgreSQL URL is set
    # (bot/storage/pg/storage.py `open_storage` decides the same way).
    if settings.database_url is None:
        results += await check_database(settings)
    else:
        results += await check_postgres(settings)
    results += await asyncio.to_thread(check_bank, settings)
    if offline:
        results.append(Check("skip", "discord", "skipped (--offline)"))
    elif any(c.failed for c in results if c.name == "token"):
        results.append(Check("skip", "discord", "skipped until the token is fixed"))
    else:
        results += await check_discord(settings)
    if settings.metrics_port is not None and settings.metrics_host not in ("127.0.0.1", "::1"):
        results.append(
            Check(
                "warn",
                "metrics",
                f"the metrics endpoint listens on {settings.metrics_host}:"
                f"{settings.metrics_port}: make sure a firewall keeps it private",
            )
        )
    results += check_heartbeat_path(settings)
    return results


def check_heartbeat_path(settings: Settings) -> list[Check]:
    """The heartbeat file's place, judged as `tpquiz run` judges it before starting."""
    problem = heartbeat_problem(heartbeat_path_for(settings.db_path, settings.heartbeat_path))
    return [Check("FAIL", "heartbeat", problem)] if problem else []
