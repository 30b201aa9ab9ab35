"""Settings, read once from the environment (or a `.env` file) and passed in.

Nothing else in the bot reads `os.environ`: tests build a `Settings` directly, and the
token is kept out of `repr()` so a logged or printed settings object never shows it.
"""

from __future__ import annotations

import io
import math
import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from dotenv import dotenv_values

from bot.infra.endpoints import endpoint_problem
from bot.infra.redaction import REDACTED, redact_url
from bot.infra.shards import MAX_SHARD_COUNT, parse_shard_ids

DEFAULT_DB = Path("data") / "tpquiz.sqlite3"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
#: Discord ids (snowflakes) are positive and fit SQLite's signed 64-bit integers.
MAX_SNOWFLAKE = 2**63 - 1
#: Seconds between heartbeats (bot.ops.health.HEARTBEAT_INTERVAL, repeated so that reading
#: settings does not import the storage package; a test keeps the two equal): a health
#: limit below two of them reports a working bot as stale between two writes.
_HEARTBEAT_INTERVAL = 15.0
#: (low, high, unit) of every numeric setting; the high ends only catch typos (a limit
#: of days where seconds were meant), the low ends keep the bot working.
COUNT_EDIT_INTERVAL_RANGE = (0.5, 3600.0)
HEALTH_MAX_AGE_RANGE = (2 * _HEARTBEAT_INTERVAL, 7 * 86400.0)
#: Days a removed server's data is kept: 0 deletes it at the next check, at most ten years.
GUILD_RETENTION_RANGE = (0, 3650)
#: Processes sharing one bot token (TPQUIZ_PROCESS_COUNT); the high end catches typos.
PROCESS_COUNT_RANGE = (1, 1000)
#: Milliseconds of an event-loop pause worth logging (TPQUIZ_LOOP_STALL_MS, a diagnostic).
LOOP_STALL_RANGE = (1.0, 10_000.0)

# A bot token is three base64url parts joined by dots: the user id, a timestamp, an HMAC.
_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


class ConfigError(Exception):
    """A setting is missing or malformed; the message says which and how to fix it."""


def _shown(text: str) -> str:
    """A value quoted for an error message, bounded (it may be anything)."""
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else f"{number:g}"


def parse_number(text: str, what: str, low: float, high: float, *, integer: bool = False) -> float:
    """`text` as a finite number in [low, high], or ValueError saying what is expected.

    `what` completes "must be ...", e.g. "a number of seconds". Rejects nan and inf
    (float() accepts both) and, with `integer`, anything but plain decimal digits
    (int() accepts "²" and "1_000"; isdigit() accepts "²").
    """
    bounds = f"from {_plain(low)} to {_plain(high)}"
    try:
        if integer:
            if not (text.isascii() and text.isdigit()):
                raise ValueError
            value: float = int(text)
        else:
            value = float(text)
    except ValueError:
        raise ValueError(f"must be {what} {bounds}, not {_shown(text)}") from None
    if not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"must be {what} {bounds}, not {_shown(text)}")
    return value


def _path_setting(text: str) -> Path:
    """A path from the environment or .env: `~` expanded (no shell did it for .env)."""
    return Path(os.path.expanduser(text))


def question_paths(text: str | None) -> tuple[Path, ...]:
    """TPQUIZ_QUESTIONS split on the path separator, `~` expanded.

    An empty entry (a leading, trailing or doubled separator) is refused: Python's path
    of "" is the working directory, so it would silently add whatever YAML sits there.
    """
    if not text:
        return ()
    parts = text.split(os.pathsep)
    if any(not part.strip() for part in parts):
        raise ConfigError(
            f"TPQUIZ_QUESTIONS has an empty entry (a leading, trailing or doubled "
            f"{os.pathsep!r}); remove it, or write '.' for the working directory"
        )
    return tuple(_path_setting(part) for part in parts)


def read_env_file(path: Path, *, required: bool) -> dict[str, str]:
    """The settings in a `.env` file; ConfigError (one line) when it cannot be used.

    The default `./.env` may be absent (or be a directory: `python -m venv .env` is
    common); a file named with --env-file must exist.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if required:
            raise ConfigError(f"{path}: no such file (named with --env-file)") from None
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror}): check its path") from None
    if not stat.S_ISREG(mode):
        if required:
            raise ConfigError(f"{path} is not a regular file: name the settings file")
        return {}
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot read it ({exc.strerror}): check its owner and mode"
        ) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}: line {line} is not UTF-8 (byte 0x{data[exc.start]:02x}): save the file "
            "as UTF-8"
        ) from None
    parsed = dotenv_values(stream=io.StringIO(text))
    return {k: v for k, v in parsed.items() if v is not None}


def token_problem(token: str | None) -> str | None:
    """Why `token` cannot be a Discord bot token, or None when its shape is right.

    The message never contains the token itself.
    """
    if not token:
        return (
            "DISCORD_TOKEN is not set: put DISCORD_TOKEN=<your bot token> in the environment "
            "or in a .env file (Discord Developer Portal > your application > Bot > Reset Token)"
        )
    if token.lower().startswith("bot "):
        return "DISCORD_TOKEN starts with 'Bot ': set the bare token, without the 'Bot ' prefix"
    if not _TOKEN_RE.match(token):
        return (
            f"DISCORD_TOKEN does not look like a bot token ({len(token)} characters, expected "
            "three dot-separated parts): copy it again from the Developer Portal's Bot page"
        )
    return None


#: The URL schemes libpq and asyncpg accept for PostgreSQL.
POSTGRES_SCHEMES = ("postgresql", "postgres")
#: How to write the characters a URL's password cannot hold as they are.
ESCAPE_HINT = "in the password write / ? # @ as %2F %3F %23 %40"


@dataclass(frozen=True)
class DatabaseUrl:
    """TPQUIZ_DATABASE_URL: a PostgreSQL URL whose password is never shown.

    `repr()`, `str()` and `redacted` replace the password (in the user part and in a
    `?password=` parameter) with ***, so the object can go into a log line, an error or
    `tpquiz doctor`'s output as it is; only the driver reads `dsn`.
    """

    dsn: str = field(repr=False)

    @property
    def redacted(self) -> str:
        return redact_url(self.dsn)

    def __str__(self) -> str:
        return self.redacted

    def __repr__(self) -> str:
        return f"DatabaseUrl({self.redacted!r})"

    @property
    def password(self) -> str | None:
        """The password (from the user part or ?password=), for scrubbing error text."""
        parts = urlsplit(self.dsn)
        if parts.password:
            return parts.password
        return dict(parse_qsl(parts.query)).get("password")

    def scrub(self, text: str) -> str:
        """`text` (a driver's error, say) with the password replaced by ***."""
        text = text.replace(self.dsn, self.redacted)
        secret = self.password
        for form in {secret, unquote(secret)} if secret else ():
            text = text.replace(form, REDACTED)
        return text

    @classmethod
    def parse(cls, text: str, name: str = "TPQUIZ_DATABASE_URL") -> DatabaseUrl:
        """A URL from the environment; ConfigError (never showing the password) if unusable.

        `name` says where the URL came from (the setting, or `db copy`'s option). A URL
        with an `@` after its host part is refused: that is how a password holding an
        unescaped `/`, `?`, `#` or `@` reads, and a driver would take part of the password
        for the host or the database (and print it in its errors).
        """
        shown = redact_url(text)
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number
        except ValueError:
            raise ConfigError(
                f"{name} is not a valid URL ({shown}): write "
                f"postgresql://user:password@host:5432/database; {ESCAPE_HINT}"
            ) from None
        if parts.scheme not in POSTGRES_SCHEMES:
            hint = (
                " (for SQLite, set TPQUIZ_DB to the file's path)"
                if "sqlite" in parts.scheme
                else ""
            )
            # The scheme only when it is one (`tpq:pw@host` parses with scheme "tpq").
            scheme = parts.scheme if text.lower().startswith(f"{parts.scheme}://") else ""
            raise ConfigError(
                f"{name} must start with postgresql://, not {_shown(scheme or shown)}{hint}: "
                "e.g. postgresql://user:password@host:5432/database"
            )
        if "@" in parts.path + parts.query + parts.fragment:
            raise ConfigError(
                f"{name} is not a valid URL ({shown}): it has an '@' after the host, as when "
                f"the password holds an unescaped character; {ESCAPE_HINT}"
            )
        if not parts.path.strip("/"):
            raise ConfigError(
                f"{name} names no database ({shown}): add it after "
                "the host, e.g. postgresql://user:password@host:5432/tpquiz"
            )
        return cls(text)


def setting_values(
    environ: Mapping[str, str] | None = None,
    env_file: Path | None = Path(".env"),
    *,
    env_file_required: bool = False,
) -> dict[str, str]:
    """The `.env` file's values under the environment's (the environment wins).

    What `Settings.from_env` reads; also for a value a command names by its variable
    (`db copy --to-env VAR`), so that it is found where every setting is.
    """
    values: dict[str, str] = {}
    if env_file is not None:
        values.update(read_env_file(Path(env_file), required=env_file_required))
    values.update(os.environ if environ is None else environ)
    return values


@dataclass(frozen=True)
class Settings:
    token: str | None = field(default=None, repr=False)
    db_path: Path = DEFAULT_DB
    question_paths: tuple[Path, ...] = ()
    sync_guilds: tuple[int, ...] = ()
    api_base: str | None = None
    gateway_url: str | None = None
    log_level: str = "INFO"
    log_format: str = "text"
    #: Seconds between edits of a post's "N answered" line; clicks in between coalesce.
    count_edit_interval: float = 3.0
    #: Heartbeat file for `tpquiz health`; None means `<database>.heartbeat.json`.
    heartbeat_path: Path | None = None
    #: Seconds of gateway silence (or heartbeat age) after which the bot is unhealthy.
    health_max_age: float = 120.0
    #: Port of the Prometheus endpoint; None (the default) serves no metrics.
    metrics_port: int | None = None
    #: Address the metrics endpoint binds; loopback unless deliberately exposed.
    metrics_host: str = "127.0.0.1"
    #: Days a server's data is kept after it removed the bot (docs/privacy.md).
    guild_retention_days: int = 30
    #: TPQUIZ_DATABASE_URL: PostgreSQL instead of the SQLite file (issue 15).
    database_url: DatabaseUrl | None = None
    #: Discord shards across all processes (TPQUIZ_SHARD_COUNT); None: one unsharded
    #: connection, as before sharding existed (docs/operations.md "Scaling out").
    shard_count: int | None = None
    #: The shards this process runs (TPQUIZ_SHARDS); None: all of `shard_count`.
    shard_ids: tuple[int, ...] | None = None
    #: Processes sharing the bot token (TPQUIZ_PROCESS_COUNT): the daily pacer's share.
    process_count: int = 1
    #: Log every event-loop pause longer than this many ms, and what ran (TPQUIZ_LOOP_STALL_MS;
    #: bot/ops/loop_stalls.py); None, the default, does not watch.
    loop_stall_ms: float | None = None

    def require_token(self) -> str:
        problem = token_problem(self.token)
        if problem:
            raise ConfigError(problem)
        assert self.token is not None
        return self.token

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        env_file: Path | None = Path(".env"),
        *,
        env_file_required: bool = False,
    ) -> Settings:
        """Read settings; the process environment wins over the `.env` file.

        `env_file_required`: the file was named by the user (--env-file), so its absence
        is an error rather than the normal case.
        """
        values = setting_values(environ, env_file, env_file_required=env_file_required)

        def get(name: str) -> str | None:
            value = values.get(name, "").strip()
            return value or None

        def number(name: str, default: float, bounds: tuple[float, float]) -> float:
            text = get(name)
            if text is None:
                return default
            try:
                return parse_number(text, "a number of seconds", *bounds)
            except ValueError as exc:
                raise ConfigError(f"{name} {exc}") from None

        try:
            sync_guilds = tuple(
                int(parse_number(part, "a guild id", 1, MAX_SNOWFLAKE, integer=True))
                for part in re.split(r"[,\s]+", get("TPQUIZ_SYNC_GUILDS") or "")
                if part
            )
        except ValueError:
            raise ConfigError(
                "TPQUIZ_SYNC_GUILDS must be guild ids separated by commas, e.g. 123,456"
            ) from None
        level = (get("TPQUIZ_LOG_LEVEL") or "INFO").upper()
        if level not in LOG_LEVELS:
            raise ConfigError(f"TPQUIZ_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}")
        log_format = (get("TPQUIZ_LOG_FORMAT") or "text").lower()
        if log_format not in ("text", "json"):
            raise ConfigError("TPQUIZ_LOG_FORMAT must be 'text' or 'json'")
        questions = get("TPQUIZ_QUESTIONS")
        interval = number("TPQUIZ_COUNT_EDIT_INTERVAL", 3.0, COUNT_EDIT_INTERVAL_RANGE)
        health_max_age = number("TPQUIZ_HEALTH_MAX_AGE", 120.0, HEALTH_MAX_AGE_RANGE)
        metrics_port = get("TPQUIZ_METRICS_PORT")
        if metrics_port is not None and not (
            metrics_port.isascii() and metrics_port.isdigit() and 1 <= int(metrics_port) <= 65535
        ):
            raise ConfigError("TPQUIZ_METRICS_PORT must be a TCP port (1-65535), e.g. 9464")
        heartbeat = get("TPQUIZ_HEARTBEAT")
        stall_text = get("TPQUIZ_LOOP_STALL_MS")
        try:
            loop_stall_ms = (
                parse_number(stall_text, "a number of milliseconds", *LOOP_STALL_RANGE)
                if stall_text
                else None
            )
        except ValueError as exc:
            raise ConfigError(f"TPQUIZ_LOOP_STALL_MS {exc}") from None
        retention = get("TPQUIZ_GUILD_RETENTION_DAYS")
        try:
            retention_days = int(
                parse_number(retention, "a number of days", *GUILD_RETENTION_RANGE, integer=True)
                if retention is not None
                else 30
            )
        except ValueError as exc:
            raise ConfigError(f"TPQUIZ_GUILD_RETENTION_DAYS {exc}") from None
        shard_count, shard_ids, process_count = _shard_settings(get)
        for name, schemes, example in (
            ("DISCORD_API_BASE", ("http", "https"), "https://discord.com/api/v10"),
            ("DISCORD_GATEWAY_URL", ("ws", "wss"), "wss://gateway.discord.gg/"),
        ):
            problem = endpoint_problem(name, get(name), schemes, example)
            if problem:
                raise ConfigError(problem)
        database_url = get("TPQUIZ_DATABASE_URL")
        return cls(
            token=get("DISCORD_TOKEN"),
            database_url=DatabaseUrl.parse(database_url) if database_url else None,
            db_path=_path_setting(get("TPQUIZ_DB") or str(DEFAULT_DB)),
            question_paths=question_paths(questions),
            sync_guilds=sync_guilds,
            api_base=get("DISCORD_API_BASE"),
            gateway_url=get("DISCORD_GATEWAY_URL"),
            log_level=level,
            log_format=log_format,
            count_edit_interval=interval,
            heartbeat_path=_path_setting(heartbeat) if heartbeat else None,
            health_max_age=health_max_age,
            metrics_port=int(metrics_port) if metrics_port else None,
            metrics_host=get("TPQUIZ_METRICS_HOST") or "127.0.0.1",
            guild_retention_days=retention_days,
            shard_count=shard_count,
            shard_ids=shard_ids,
            process_count=process_count,
            loop_stall_ms=loop_stall_ms,
        )


def _shard_settings(
    get: Callable[[str], str | None],
) -> tuple[int | None, tuple[int, ...] | None, int]:
    """TPQUIZ_SHARD_COUNT, TPQUIZ_SHARDS and TPQUIZ_PROCESS_COUNT, checked together.

    Each mistake gets one line naming the setting: a wrong split of the shards makes two
    processes post for the same servers, or no process for some of them.
    """
    count_text, shards_text = get("TPQUIZ_SHARD_COUNT"), get("TPQUIZ_SHARDS")
    processes_text = get("TPQUIZ_PROCESS_COUNT")
    shard_count: int | None = None
    if count_text is not None:
        try:
            shard_count = int(
                parse_number(count_text, "a number of shards", 1, MAX_SHARD_COUNT, integer=True)
            )
        except ValueError as exc:
            raise ConfigError(f"TPQUIZ_SHARD_COUNT {exc}") from None
    shard_ids: tuple[int, ...] | None = None
    if shards_text is not None:
        if shard_count is None:
            raise ConfigError(
                "TPQUIZ_SHARDS is set but TPQUIZ_SHARD_COUNT is not: set TPQUIZ_SHARD_COUNT to"
                " the number of shards across all processes"
            )
        try:
            shard_ids = parse_shard_ids(shards_text, shard_count)
        except ValueError as exc:
            raise ConfigError(f"TPQUIZ_SHARDS {exc}") from None
    process_count = 1
    if processes_text is not None:
        try:
            process_count = int(
                parse_number(
                    processes_text, "a number of processes", *PROCESS_COUNT_RANGE, integer=True
                )
            )
        except ValueError as exc:
            raise ConfigError(f"TPQUIZ_PROCESS_COUNT {exc}") from None
    if process_count > 1:
        if shard_count is None or shard_ids is None:
            raise ConfigError(
                f"TPQUIZ_PROCESS_COUNT={process_count} but TPQUIZ_SHARDS is not set: give each"
                " process its own shards (e.g. TPQUIZ_SHARD_COUNT=4 and TPQUIZ_SHARDS=0-1 or"
                " 2-3), or every process would post for every server"
            )
        if process_count > shard_count:
            raise ConfigError(
                f"TPQUIZ_PROCESS_COUNT={process_count} is more than TPQUIZ_SHARD_COUNT="
                f"{shard_count}: every process needs at least one shard"
            )
        if len(shard_ids) == shard_count:
            raise ConfigError(
                f"TPQUIZ_PROCESS_COUNT={process_count} but TPQUIZ_SHARDS names all"
                f" {shard_count} shards: give each process only its own part"
            )
    return shard_count, shard_ids, process_count
