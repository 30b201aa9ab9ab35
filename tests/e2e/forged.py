"""Interaction payloads Discord's own client would not send: from a DM, with made-up ids.

The loopback builds the payloads a real client causes; these helpers change them the way
a stale client, a script or a forger could, and `LoopbackDiscord.interact` delivers them
like any other.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.loopback.server import LoopbackDiscord


def in_dm(loopback: LoopbackDiscord, payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` (built for a guild) as if sent from the member's DM with the bot."""
    forged = copy.deepcopy(payload)
    user = forged.pop("member")["user"]
    for key in ("guild_id", "guild", "guild_locale"):
        forged.pop(key, None)
    forged["data"].pop("guild_id", None)
    dm_id = loopback.snowflake()
    channel = {"id": str(dm_id), "type": 1, "flags": 0, "last_message_id": None}
    # The loopback stores the bot's replies per channel; a DM belongs to no guild.
    loopback.channels[dm_id] = {**channel, "guild_id": None}
    forged.update(
        user=user,
        channel_id=str(dm_id),
        channel={**channel, "recipients": [user]},
        context=1,
        authorizing_integration_owners={"1": user["id"]},
    )
    return forged


def with_custom_id(
    loopback: LoopbackDiscord, payload: dict[str, Any], custom_id: str
) -> dict[str, Any]:
    """A new click like `payload`, on a button (and message) with `custom_id` instead."""
    forged = copy.deepcopy(payload)
    forged["id"] = str(loopback.snowflake())
    forged["token"] = f"forged-{forged['id']}"
    real = forged["data"]["custom_id"]
    forged["data"]["custom_id"] = custom_id
    for row in forged["message"].get("components", []):
        for component in row.get("components", []):
            if component.get("custom_id") == real:
                component["custom_id"] = custom_id
    return forged
