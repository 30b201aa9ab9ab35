"""Gateway events Discord itself never sends: one warning line each, and the bot stays up.

A forged or corrupted INTERACTION_CREATE (a proxy, a test, a Discord bug) can carry what
discord.py 2.7 does not expect, and it then fails in one of two places:

* Commands and autocompletes are read in the command tree's task: an option value of the
  wrong type (`int("abc")` for a member, `float("abc")` for a number) or a malformed
  `resolved` raised a ValueError or KeyError there that no error handler sees (an
  asyncio "Task exception was never retrieved" traceback, and no reply), and an
  autocomplete with no focused option logged a traceback. `unreadable_command` runs in
  the tree's public `interaction_check`, before the tree reads anything, and reads the
  payload the way the tree will (`Interaction.namespace`); the tree then answers such an
  interaction with one warning line and a reply (bot/ui/tree.py).
* Components and modal submits are read by discord.py's gateway parser itself (a modal
  submit without `components` is a KeyError in `parse_interaction_create`), before any
  public hook runs, and the exception ends `Client.connect`: the process stopped.
  `Client.on_error` does not help, as it only sees exceptions of event handlers, and
  the parser is private. `keep_connected` wraps the public `Client.connect` instead:
  such an error is one warning line, the broken connection is closed and discord.py
  connects again (a new session; interactions sent meanwhile are lost, as on any
  reconnect). Repeated failures wait longer each time, so a broken gateway proxy
  cannot make the bot spend Discord's daily session starts.
  Not for a sharded process (TPQUIZ_SHARD_COUNT, discord.py's AutoShardedBot): its shard
  reader hands such an error to `connect`, which closes the whole client before it
  raises, so there the process still stops (and its supervisor restarts it).

Both halves read Discord's payloads and answer through the UI's replies
(`bot.ui.responses`), so the module is part of the UI: the command tree (bot/ui/tree.py)
uses the first, the bot's `connect` (bot/runtime/bot.py) the second, and nothing here
knows the bot class.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.services.quiz import QuizError
from bot.ui.options import logged
from bot.ui.responses import report_error

log = logging.getLogger(__name__)

#: What discord.py's reading of a payload raises on a missing key or a wrong type.
UNREADABLE = (LookupError, TypeError, ValueError, AttributeError)
#: The first reconnect after an unreadable event is at once; another within
#: `CALM_AFTER` seconds waits `FIRST_PAUSE`, doubled each time up to `LONGEST_PAUSE`.
FIRST_PAUSE = 5.0
LONGEST_PAUSE = 300.0
CALM_AFTER = 600.0


def _leaf_options(data: Any) -> list[Any]:
    """The options of the invoked subcommand (below any group and subcommand)."""
    options = data.get("options", [])
    while options and options[0].get("type") in (1, 2):
        options = options[0].get("options", [])
    return list(options)


def unreadable_command(interaction: discord.Interaction[Any]) -> str | None:
    """Why discord.py cannot read this command or autocomplete interaction, or None.

    Reads the payload as the command tree will (`Interaction.namespace` converts every
    option value as the tree does), so whatever would raise there raises here first.
    """
    data: Any = interaction.data
    try:
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            return "no command name"
        interaction.namespace  # noqa: B018  (reads and converts every option)
        if interaction.type is discord.InteractionType.autocomplete and not any(
            isinstance(o, dict) and o.get("focused") for o in _leaf_options(data)
        ):
            return "an autocomplete with no focused option"
    except UNREADABLE as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


async def refuse_unreadable(interaction: discord.Interaction[Any], why: str) -> None:
    """One warning line, and the shortest answer Discord accepts; never raises."""
    log.warning(
        "ignored an unreadable %s interaction %s from user %s in guild %s: %s",
        interaction.type.name,
        interaction.id,
        interaction.user.id,
        interaction.guild_id,
        logged(why),
    )
    try:
        if interaction.type is discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            await report_error(interaction, QuizError("unknown_command"))
    except discord.DiscordException as exc:  # the tree's check must not raise
        log.warning("could not answer interaction %s: %s", interaction.id, exc)


async def keep_connected(client: discord.Client, connect: Callable[[], Awaitable[None]]) -> None:
    """Run `connect` (discord.py's `Client.connect`) again after an event it could not
    read, instead of letting the exception end the process; anything else is raised."""
    pause, last = 0.0, -CALM_AFTER
    while True:
        try:
            await connect()
            return
        except UNREADABLE as exc:
            if client.is_closed():
                raise
            now = time.monotonic()
            pause = (
                0.0 if now - last > CALM_AFTER else min(max(2 * pause, FIRST_PAUSE), LONGEST_PAUSE)
            )
            last = now
            log.warning(
                "the gateway sent an event discord.py could not read (%s: %s); connecting again%s",
                type(exc).__name__,
                logged(str(exc)),
                f" in {pause:.0f} s" if pause else "",
            )
        ws = client.ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close(code=4000)
        if pause:
            await asyncio.sleep(pause)
