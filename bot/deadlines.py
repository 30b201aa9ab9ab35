"""Answering interactions inside Discord's 3-second window.

Work that touches the database usually takes milliseconds, but another process may hold
the write lock (a backup, say). `within_deadline` runs the work and, if it is not done
after `DEFER_AFTER` seconds, defers the interaction so Discord keeps waiting; the reply
then goes out as a followup or an edit. The work itself is never cancelled, so a slow
commit still lands and the member still hears about it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import discord

T = TypeVar("T")

#: Seconds to wait before deferring; Discord fails interactions not answered in 3 s.
DEFER_AFTER = 2.0


async def within_deadline(
    interaction: discord.Interaction[Any],
    work: Awaitable[T],
    *,
    ephemeral: bool,
    update: bool = False,
    defer_after: float = DEFER_AFTER,
) -> T:
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=defer_after)
    if not done and not interaction.response.is_done():
        if update:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    return await task


async def reply(interaction: discord.Interaction[Any], **kwargs: Any) -> int | None:
    """Send a new message as the response, or as a followup when already deferred.

    Returns the id of the message sent, where Discord says it.
    """
    if interaction.response.is_done():
        kwargs.setdefault("wait", True)
        message = await interaction.followup.send(**kwargs)
        return message.id if message else None
    response = await interaction.response.send_message(**kwargs)
    return response.message_id if response else None


async def update(interaction: discord.Interaction[Any], **kwargs: Any) -> None:
    """Edit the message a component sits on, as the response or after a deferral."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**kwargs)
    else:
        await interaction.response.edit_message(**kwargs)
