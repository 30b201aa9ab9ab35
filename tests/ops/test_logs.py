"""Logs: one event per line on stdout, text or JSON, and the token never in them."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator

import discord
import pytest
from discord.http import Route

from bot.config import Settings
from bot.logs import REDACTED, setup_logging
from tests.ops.fake_discord import TOKEN, FakeDiscord

log = logging.getLogger("tpquiz.test")

pytestmark = pytest.mark.usefixtures("restore_logging")


def _fail_login(token: str) -> None:
    try:
        raise ValueError(f"Authorization: Bot {token}")
    except ValueError as exc:
        raise discord.LoginFailure(f"Improper token has been passed: {token}") from exc


def _token_in_unredacted_traceback() -> tuple[type[BaseException], BaseException, object]:
    try:
        _fail_login(TOKEN)
    except discord.LoginFailure:
        exc_info = sys.exc_info()
    assert TOKEN in logging.Formatter().formatException(exc_info)  # type: ignore[arg-type]
    return exc_info  # type: ignore[return-value]


def test_text_lines_carry_time_level_logger_and_message(capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging("INFO", "text", secrets=[TOKEN])
    log.info("posted question %s to %d channels", "basics-01", 2)
    log.debug("not shown at INFO")
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert out.rstrip().endswith("INFO     tpquiz.test: posted question basics-01 to 2 channels")


def test_the_level_comes_from_the_settings(capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings.from_env(
        {"TPQUIZ_LOG_LEVEL": "warning", "TPQUIZ_LOG_FORMAT": "JSON"}, env_file=None
    )
    setup_logging(settings.log_level, settings.log_format, secrets=[TOKEN])
    log.info("hidden")
    log.warning("shown")
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["message"] for line in lines] == ["shown"]


def test_json_is_one_object_per_line_even_with_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    setup_logging("DEBUG", "json", secrets=[TOKEN])
    log.error("login failed", exc_info=_token_in_unredacted_traceback())  # type: ignore[arg-type]
    log.info("multi\nline message")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert set(first) == {"time", "level", "logger", "message", "exc"}
    assert (first["level"], first["logger"], first["message"]) == (
        "ERROR",
        "tpquiz.test",
        "login failed",
    )
    assert "discord.errors.LoginFailure" in first["exc"] and REDACTED in first["exc"]
    assert second["message"] == "multi\nline message"
    assert TOKEN not in "\n".join(lines)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_token_is_redacted_from_messages_args_and_tracebacks(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    setup_logging("DEBUG", fmt, secrets=[TOKEN])
    log.info("using token %s", TOKEN)
    log.info(f"Authorization: Bot {TOKEN}")  # noqa: G004 (an f-string is what leaks)
    log.error("login failed", exc_info=_token_in_unredacted_traceback())  # type: ignore[arg-type]
    try:
        _fail_login(TOKEN)
    except discord.LoginFailure:
        log.exception("login failed for %s", TOKEN)
    log.info("%d wrong arguments", TOKEN)  # must neither raise nor leak
    out = capsys.readouterr().out
    assert TOKEN not in out
    assert out.count(REDACTED) >= 5
    assert "Traceback (most recent call last)" in out or '"exc": "Traceback' in out


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_stack_info_is_redacted_too(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    # The printed stack holds source lines; treat a piece of this one as the secret.
    marker = "stack-marker-" + "q" * 12
    setup_logging("DEBUG", fmt, secrets=[marker])
    log.warning("here", stack_info=True)  # stack-marker-qqqqqqqqqqqq
    out = capsys.readouterr().out
    assert "Stack (most recent call last)" in out
    assert marker not in out and REDACTED in out


def test_uncaught_exceptions_go_through_the_redacting_handler(
    capsys: pytest.CaptureFixture[str],
) -> None:
    setup_logging("INFO", "text", secrets=[TOKEN])
    exc_type, exc, tb = _token_in_unredacted_traceback()
    sys.excepthook(exc_type, exc, tb)  # type: ignore[arg-type]
    captured = capsys.readouterr()
    assert "CRITICAL" in captured.out and "uncaught exception" in captured.out
    assert TOKEN not in captured.out + captured.err


@pytest.fixture
async def discord_fake() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(token="the-token-discord-knows")
    await fake.start()
    saved = Route.BASE
    Route.BASE = fake.api_base
    yield fake
    Route.BASE = saved
    await fake.close()


async def test_a_real_failed_login_never_logs_the_token(
    discord_fake: FakeDiscord, capsys: pytest.CaptureFixture[str]
) -> None:
    """discord.py logs its HTTP traffic at DEBUG; a 401 at login must not show the token."""
    setup_logging("DEBUG", "text", secrets=[TOKEN])
    logging.getLogger("discord").setLevel(logging.DEBUG)
    client = discord.Client(intents=discord.Intents.none())
    try:
        with pytest.raises(discord.LoginFailure) as caught:
            await client.login(TOKEN)
        log.error("login failed", exc_info=caught.value)
    finally:
        await client.close()
    out = capsys.readouterr().out
    assert "login failed" in out and "LoginFailure" in out
    assert discord_fake.requests == [("GET", "/api/v10/users/@me")]
    assert TOKEN not in out
