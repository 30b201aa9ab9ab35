"""`tpquiz doctor`: check a set-up end to end and say, line by line, what to fix.

The people who run this bot are not Discord developers; when it does not start they need
one command that checks everything it depends on in the order a person would: the token
(its shape, never its value), the database (opens, migrates, accepts a write, passes a
quick integrity check, has disk space), the question bank, and, when the network allows,
Discord itself (the token is accepted, and the bot can see its servers). Each problem is
one line that says what to do. Nothing here prints or logs the token.

The database's lines come from the backend the settings name, through
`bot.storage.admin.doctor_checks` (bot/storage/sqlite/doctor.py: the file;
bot/storage/pg/doctor.py: the server and its shard locks).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp

from bot.bank.loader import BankError, bundled_question_files, check_files
from bot.infra.checks import Check
from bot.infra.config import Settings, token_problem
from bot.ops.health import heartbeat_path_for, heartbeat_problem
from bot.runtime.startup import login_answered
from bot.storage import admin

__all__ = ["Check", "run_doctor", "DEFAULT_API_BASE"]

DEFAULT_API_BASE = "https://discord.com/api/v10"
#: View Channel, Send Messages, Embed Links, Attach Files, Read Message History.
INVITE_PERMISSIONS = 1024 | 2048 | 16384 | 32768 | 65536
MAX_BANK_LINES = 20


def check_token(settings: Settings) -> list[Check]:
    problem = token_problem(settings.token)
    if problem:
        return [Check("FAIL", "token", problem)]
    assert settings.token is not None
    return [Check("ok", "token", f"looks like a bot token ({len(settings.token)} characters)")]


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
    results += await admin.doctor_checks(settings)  # the backend the bot would use
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
