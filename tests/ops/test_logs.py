"""Logs: one event per line on stdout, text or JSON, and the token never in them."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator

import discord
import pytest
from discord.http import Route

from bot.infra.config import Settings
from bot.infra.logs import REDACTED, setup_logging
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
    out = capsys.readouterr().out
    every = [json.loads(line) for line in out.splitlines()]
    # Only this test's records: an aiosqlite thread that an earlier test left closing may
    # log a DEBUG line at any moment (it is one JSON object per line as well).
    lines = [json.dumps(record) for record in every if record["logger"] == "tpquiz.test"]
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
    assert TOKEN not in out


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


# -- interaction and webhook tokens (issue #10, item 26) -------------------------------------

INTERACTION_TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OnNlY3JldC1wYXJ0"
BASE = "https://discord.com/api/v10"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_interaction_and_webhook_tokens_in_logged_urls_are_redacted(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    setup_logging("DEBUG", fmt, secrets=[TOKEN])
    webhook = logging.getLogger("discord.webhook.async_")
    # The lines discord.py 2.7 logs for a callback, a followup and an edit of the reply.
    for method, url in (
        ("POST", f"{BASE}/interactions/1234/{INTERACTION_TOKEN}/callback?with_response=1"),
        ("POST", f"{BASE}/webhooks/900/{INTERACTION_TOKEN}?wait=1"),
        ("PATCH", f"{BASE}/webhooks/900/{INTERACTION_TOKEN}/messages/@original"),
    ):
        webhook.debug("Webhook ID %s with %s %s has returned status code %s", 900, method, url, 200)
    logging.getLogger("discord.http").debug(
        "%s %s has received %s", "GET", f"{BASE}/webhooks/900/{INTERACTION_TOKEN}", {"token": "x1"}
    )
    log.info("payload %s", json.dumps({"id": "1", "token": INTERACTION_TOKEN}))
    out = capsys.readouterr().out
    assert INTERACTION_TOKEN not in out and "x1" not in out
    lines = [json.loads(line)["message"] for line in out.splitlines()] if fmt == "json" else out
    text = "\n".join(lines) if isinstance(lines, list) else lines
    assert f"{BASE}/interactions/1234/{REDACTED}/callback?with_response=1" in text
    assert f"{BASE}/webhooks/900/{REDACTED}?wait=1" in text
    assert f"{BASE}/webhooks/900/{REDACTED}/messages/@original" in text
    assert f"'token': '{REDACTED}'" in text
    assert f'"token": "{REDACTED}"' in text


def test_tokens_in_a_traceback_are_redacted_without_any_configured_secret(
    capsys: pytest.CaptureFixture[str],
) -> None:
    setup_logging("INFO", "text", secrets=[])
    try:
        raise RuntimeError(f"POST {BASE}/interactions/1/{INTERACTION_TOKEN}/callback failed")
    except RuntimeError:
        log.exception("callback failed")
    out = capsys.readouterr().out
    assert INTERACTION_TOKEN not in out
    assert f"/interactions/1/{REDACTED}/callback failed" in out
