"""Reaching Discord at start: the addresses checked, the network waited for, one line.

At boot the network may not be up yet (a VPS whose DHCP or DNS comes late, a container
started before its network). Before logging in, `tpquiz run` checks that Discord's REST
API (`DISCORD_API_BASE`, or discord.com) answers and that its gateway
(`DISCORD_GATEWAY_URL`, or gateway.discord.gg) says HELLO, and retries what can be
transient (connection refused, DNS failure, no answer, HTTP 5xx) after each delay in
`RETRY_DELAYS`, about a minute in all. Then it gives up with one line naming the URL and
what to check. An answer that is not Discord's (HTML, a handshake refused with 404, a
first frame that is not HELLO) is a wrong setting: no retry. Each failure is a
`StartupError` with the exit status it means (bot/infra/exit_codes.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import ssl
import time
from collections.abc import Awaitable, Callable

import aiohttp
import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.infra.exit_codes import EXIT_SETTINGS, EXIT_UNREACHABLE, StartupError

log = logging.getLogger(__name__)

#: Seconds to wait before each retry: 8 attempts over about 60 s.
RETRY_DELAYS: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0, 15.0, 15.0, 15.0)
#: Seconds one attempt may take (connect plus the first answer).
ATTEMPT_TIMEOUT = 10.0


def login_answered(base: str, status: int) -> str:
    """The sentence for an answer to the login (GET /users/@me) other than 200 or 401:
    `tpquiz run` and `tpquiz doctor` say the same."""
    return (
        f"GET {base}/users/@me answered HTTP {status}: Discord may be down "
        "(https://discordstatus.com) or DISCORD_API_BASE is wrong (Discord's is "
        "https://discord.com/api/v10)"
    )


class _Transient(Exception):
    """This attempt failed in a way the next one may not (the network is not up yet)."""


def _reason(exc: BaseException) -> str:
    """A few words for why a connection attempt failed."""
    if isinstance(exc, aiohttp.ClientConnectorDNSError | socket.gaierror):
        return "the host name does not resolve"
    if isinstance(exc, aiohttp.ClientConnectorCertificateError | ssl.SSLError):
        return "its TLS certificate was not accepted"
    if isinstance(exc, aiohttp.ClientConnectorError):
        exc = exc.os_error
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, TimeoutError):
        return f"no answer within {ATTEMPT_TIMEOUT:.0f} s"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "the server closed the connection"
    if isinstance(exc, aiohttp.ClientResponseError):
        return f"HTTP {exc.status}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


async def _probe_rest(session: aiohttp.ClientSession, base: str) -> None:
    url = f"{base}/gateway"
    try:
        async with session.get(url) as response:
            if response.status >= 500:
                raise _Transient(f"HTTP {response.status}")
            if response.content_type != "application/json":
                raise StartupError(
                    f"Discord's API at {base} answered HTTP {response.status} with"
                    f" {response.content_type or 'no content type'}, not JSON: check"
                    " DISCORD_API_BASE (Discord's is https://discord.com/api/v10)",
                    EXIT_SETTINGS,
                )
    except (aiohttp.ClientConnectionError, TimeoutError, OSError) as exc:
        if isinstance(exc, aiohttp.ClientConnectorCertificateError):
            raise StartupError(
                f"cannot reach Discord's API at {base}: {_reason(exc)}: check the system clock,"
                " CA certificates and DISCORD_API_BASE"
            ) from None
        raise _Transient(_reason(exc)) from None


async def _probe_gateway(session: aiohttp.ClientSession, gateway: yarl.URL) -> None:
    url = gateway.with_query(v=10, encoding="json")
    try:
        async with session.ws_connect(url, autoclose=True, max_msg_size=0) as ws:
            frame = await ws.receive(timeout=ATTEMPT_TIMEOUT)
    except aiohttp.WSServerHandshakeError as exc:
        if exc.status >= 500:
            raise _Transient(f"HTTP {exc.status}") from None
        raise StartupError(
            f"Discord's gateway at {gateway} refused the WebSocket handshake (HTTP"
            f" {exc.status}): check DISCORD_GATEWAY_URL (Discord's is wss://gateway.discord.gg/)",
            EXIT_SETTINGS,
        ) from None
    except (aiohttp.ClientConnectionError, TimeoutError, OSError) as exc:
        raise _Transient(_reason(exc)) from None
    hello = None
    if frame.type is aiohttp.WSMsgType.TEXT:
        try:
            hello = json.loads(frame.data)
        except ValueError:
            hello = None
    if not isinstance(hello, dict) or hello.get("op") != 10:
        if frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            raise _Transient("the gateway closed the connection before HELLO")
        raise StartupError(
            f"Discord's gateway at {gateway} did not speak Discord's gateway protocol (its first"
            f" message was not HELLO): check DISCORD_GATEWAY_URL (Discord's is"
            " wss://gateway.discord.gg/)",
            EXIT_SETTINGS,
        )


async def _with_retries(
    what: str, url: str, check: str, attempt: Callable[[], Awaitable[None]]
) -> None:
    tries = len(RETRY_DELAYS) + 1
    started = time.monotonic()
    for number, delay in enumerate((*RETRY_DELAYS, None), start=1):
        try:
            await attempt()
            return
        except _Transient as exc:
            reason = str(exc)
        if delay is None:
            raise StartupError(
                f"cannot reach {what} at {url} ({reason}) after {tries} attempts in"
                f" {time.monotonic() - started:.0f} s: check {check}"
            )
        log.warning(
            "cannot reach %s at %s (%s); trying again in %.0f s (attempt %d of %d)",
            what,
            url,
            reason,
            delay,
            number,
            tries,
        )
        await asyncio.sleep(delay)


async def wait_for_discord() -> None:
    """Return once Discord's REST API and gateway answer (see the module docstring)."""
    base = Route.BASE
    gateway = DiscordWebSocket.DEFAULT_GATEWAY
    timeout = aiohttp.ClientTimeout(total=ATTEMPT_TIMEOUT)
    network = "the network, DNS and any firewall or proxy"
    async with aiohttp.ClientSession(timeout=timeout) as session:
        await _with_retries(
            "Discord's API",
            base,
            f"{network}, and DISCORD_API_BASE",
            lambda: _probe_rest(session, base),
        )
        await _with_retries(
            "Discord's gateway",
            str(gateway),
            f"{network}, and DISCORD_GATEWAY_URL",
            lambda: _probe_gateway(session, gateway),
        )


async def _unless_closed(bot: discord.Client, work: Awaitable[None]) -> bool:
    """Run `work`; give up (False) as soon as the bot is closed (SIGTERM while waiting)."""
    task = asyncio.ensure_future(work)
    try:
        while not bot.is_closed():
            done, _ = await asyncio.wait({task}, timeout=0.25)
            if done:
                task.result()
                return True
        return False
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def start(bot: discord.Client, token: str) -> None:
    """`bot.start(token)`, once Discord answers; network failures become `StartupError`.

    A stop signal during the retries ends the wait at once (exit 0), not after a minute.
    """
    if not await _unless_closed(bot, wait_for_discord()):
        return
    try:
        await bot.login(token)
    except (aiohttp.ClientConnectionError, TimeoutError, OSError) as exc:
        raise StartupError(
            f"lost Discord's API at {Route.BASE} while logging in ({_reason(exc)}): check the"
            " network and DISCORD_API_BASE"
        ) from None
    except discord.HTTPException as exc:  # 401 is LoginFailure, not an HTTPException
        # An API base that answers /gateway (checked above) but not the login: a proxy or
        # a path that is not Discord's (404), or Discord failing after discord.py's retries.
        raise StartupError(
            login_answered(Route.BASE, exc.status),
            EXIT_UNREACHABLE if exc.status >= 500 else EXIT_SETTINGS,
        ) from None
    try:
        await bot.connect(reconnect=True)
    except discord.ConnectionClosed as exc:
        raise StartupError(
            f"Discord's gateway at {DiscordWebSocket.DEFAULT_GATEWAY} closed the connection"
            f" (code {exc.code}{': ' + exc.reason if exc.reason else ''}): check the token and"
            " DISCORD_GATEWAY_URL",
            EXIT_SETTINGS if 4000 <= exc.code < 5000 else EXIT_UNREACHABLE,
        ) from None
