"""Run an unmodified discord.py bot against a :class:`~tests.loopback.server.LoopbackDiscord`.

discord.py takes its addresses from two process-wide class attributes,
``discord.http.Route.BASE`` (REST, also used for interaction callbacks and webhooks) and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``. :func:`running` points both at the
loopback for the duration of a ``with`` block, which is the same switch production bots
use for a REST or gateway proxy, so no bot code needs a test hook.

Create bots for these tests with a small ``guild_ready_timeout`` (e.g. ``0.05``):
discord.py waits that long after the last GUILD_CREATE before it fires ``on_ready``
(default 2 s), and :func:`running` waits for ``on_ready``. Use :func:`make_intents` so the
bot does not ask for privileged intents (which would also make it chunk guilds)::

    bot = commands.Bot(command_prefix="!", intents=make_intents(), guild_ready_timeout=0.05)
    async with running(bot, loopback):
        await loopback.interact(loopback.slash_command(...))

A bot that has to IDENTIFY again within one ``connect()`` (after
``LoopbackDiscord.invalidate_sessions()``), and every shard but the first of an
``AutoShardedBot``, first sleeps 5 s in discord.py's ``Client.before_identify_hook``
(Discord's identify rate limit); override that hook in the test bot to skip it.
RESUME (after ``LoopbackDiscord.drop_connections()``) has no such pause.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeVar

import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from tests.loopback.server import LoopbackDiscord

__all__ = ["make_intents", "running"]

_log = logging.getLogger(__name__)

ClientT = TypeVar("ClientT", bound=discord.Client)

#: How long to wait for the connect task after ``bot.close()`` before giving up on it.
_SHUTDOWN_TIMEOUT = 5.0


def make_intents() -> discord.Intents:
    """Default intents without the privileged ``members`` and ``message_content``.

    Without ``members`` discord.py does not chunk guilds at start-up, which the loopback
    does not implement (and which would delay ``on_ready``).
    """
    intents = discord.Intents.default()
    intents.members = False
    intents.message_content = False
    return intents


@asynccontextmanager
async def running(
    bot: ClientT,
    loopback: LoopbackDiscord,
    *,
    token: str | None = None,
    ready_timeout: float = 10.0,
) -> AsyncIterator[ClientT]:
    """Log ``bot`` in to ``loopback``, connect its gateway and yield it once ready.

    ``bot.login()`` runs ``setup_hook`` (and so any ``tree.sync()``); errors there are
    raised here. The gateway runs as a task; waiting for ``wait_until_ready()`` races that
    task, so a gateway reader that dies (e.g. on a payload discord.py cannot parse) fails
    the test at once instead of after ``ready_timeout``. On exit the bot is closed and its
    connect task awaited; an exception from that task is raised then. The loopback stays
    open, so a test may start a second bot against it (a "restart").
    """
    saved_base = Route.BASE
    saved_gateway = DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = loopback.rest_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(loopback.gateway_url)
    connect_task: asyncio.Task[None] | None = None
    body_failed = True
    try:
        await bot.login(token if token is not None else loopback.token)
        connect_task = asyncio.create_task(bot.connect(reconnect=True), name="loopback-bot-connect")
        await _wait_ready(bot, connect_task, ready_timeout)
        yield bot
        body_failed = False
    finally:
        try:
            gateway_died = connect_task is not None and connect_task.done()
            await bot.close()
            if connect_task is not None:
                # Raise what killed the gateway unless the test already failed (then log it).
                await _finish(connect_task, reraise=not body_failed)
                if gateway_died and not body_failed:
                    raise RuntimeError("bot.connect() returned while the test was running")
        finally:
            Route.BASE = saved_base
            DiscordWebSocket.DEFAULT_GATEWAY = saved_gateway


async def _wait_ready(
    bot: discord.Client, connect_task: asyncio.Task[None], ready_timeout: float
) -> None:
    ready_task = asyncio.create_task(bot.wait_until_ready(), name="loopback-bot-ready")
    try:
        done, _ = await asyncio.wait(
            {connect_task, ready_task}, timeout=ready_timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        if not ready_task.done():
            ready_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ready_task
    if ready_task in done:
        return
    if connect_task in done:
        connect_task.result()  # raises the gateway's exception
        raise RuntimeError("bot.connect() returned before the bot was ready")
    raise TimeoutError(
        f"bot not ready after {ready_timeout}s (is guild_ready_timeout small? see harness docstring)"
    )


async def _finish(connect_task: asyncio.Task[None], *, reraise: bool) -> None:
    """Await the connect task after ``bot.close()``; surface what killed it, if anything."""
    try:
        async with asyncio.timeout(_SHUTDOWN_TIMEOUT):
            await asyncio.shield(connect_task)
    except TimeoutError:
        _log.error(
            "bot.connect() did not finish within %ss of close(); cancelling", _SHUTDOWN_TIMEOUT
        )
        connect_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await connect_task
    except Exception:
        if reraise:
            raise
        _log.exception("the bot's gateway task failed (the test failed too)")
