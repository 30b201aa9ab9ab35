"""Settings, read once from the environment (or a `.env` file) and passed in.

Nothing else in the bot reads `os.environ`: tests build a `Settings` directly, and the
token is kept out of `repr()` so a logged or printed settings object never shows it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import dotenv_values

from bot.endpoints import endpoint_problem

DEFAULT_DB = Path("data") / "tpquiz.sqlite3"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

# A bot token is three base64url parts joined by dots: the user id, a timestamp, an HMAC.
_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


class ConfigError(Exception):
    """A setting is missing or malformed; the message says which and how to fix it."""


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

    def require_token(self) -> str:
        problem = token_problem(self.token)
        if problem:
            raise ConfigError(problem)
        assert self.token is not None
        return self.token

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
    ) -> Settings:
        """Read settings; the process environment wins over the `.env` file."""
        values: dict[str, str] = {}
        if env_file is not None and env_file.is_file():
            values.update({k: v for k, v in dotenv_values(env_file).items() if v is not None})
        values.update(os.environ if environ is None else environ)

        def get(name: str) -> str | None:
            value = values.get(name, "").strip()
            return value or None

        try:
            sync_guilds = tuple(
                int(part) for part in re.split(r"[,\s]+", get("TPQUIZ_SYNC_GUILDS") or "") if part
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
        try:
            interval = float(get("TPQUIZ_COUNT_EDIT_INTERVAL") or 3.0)
        except ValueError:
            raise ConfigError("TPQUIZ_COUNT_EDIT_INTERVAL must be a number of seconds") from None
        try:
            health_max_age = float(get("TPQUIZ_HEALTH_MAX_AGE") or 120.0)
        except ValueError:
            raise ConfigError("TPQUIZ_HEALTH_MAX_AGE must be a number of seconds") from None
        if health_max_age <= 0:
            raise ConfigError("TPQUIZ_HEALTH_MAX_AGE must be a number of seconds above 0")
        metrics_port = get("TPQUIZ_METRICS_PORT")
        if metrics_port is not None and not (
            metrics_port.isascii() and metrics_port.isdigit() and 1 <= int(metrics_port) <= 65535
        ):
            raise ConfigError("TPQUIZ_METRICS_PORT must be a TCP port (1-65535), e.g. 9464")
        heartbeat = get("TPQUIZ_HEARTBEAT")
        for name, schemes, example in (
            ("DISCORD_API_BASE", ("http", "https"), "https://discord.com/api/v10"),
            ("DISCORD_GATEWAY_URL", ("ws", "wss"), "wss://gateway.discord.gg/"),
        ):
            problem = endpoint_problem(name, get(name), schemes, example)
            if problem:
                raise ConfigError(problem)
        return cls(
            token=get("DISCORD_TOKEN"),
            db_path=Path(get("TPQUIZ_DB") or DEFAULT_DB),
            question_paths=tuple(Path(p) for p in questions.split(os.pathsep)) if questions else (),
            sync_guilds=sync_guilds,
            api_base=get("DISCORD_API_BASE"),
            gateway_url=get("DISCORD_GATEWAY_URL"),
            log_level=level,
            log_format=log_format,
            count_edit_interval=interval,
            heartbeat_path=Path(heartbeat) if heartbeat else None,
            health_max_age=health_max_age,
            metrics_port=int(metrics_port) if metrics_port else None,
            metrics_host=get("TPQUIZ_METRICS_HOST") or "127.0.0.1",
        )
