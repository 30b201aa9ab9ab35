"""What the privacy commands and the retention loop decide, between cogs and storage.

`docs/privacy.md` is the member-facing side of this: what is stored, why, for how long.
The clock is passed in (the bot's, which tests move), so "31 days later" is testable.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime

from bot.storage.contract import StorageContract
from bot.storage.records import PendingRemoval

log = logging.getLogger(__name__)

DAY_MS = 86_400_000


def removal_due_ms(removed_ms: int, retention_days: int) -> int:
    """When a server removed at `removed_ms` has its data deleted."""
    return removed_ms + retention_days * DAY_MS


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


class PrivacyService:
    def __init__(self, storage: StorageContract, retention_days: int) -> None:
        self.storage = storage
        self.retention_days = retention_days

    async def forget_member(self, guild_id: int, user_id: int) -> dict[str, int]:
        deleted = await self.storage.privacy.forget_member(guild_id, user_id)
        log.info("forgot user %s in guild %s: %s rows", user_id, guild_id, sum(deleted.values()))
        return deleted

    async def export_json(self, guild_id: int, user_id: int) -> bytes:
        """The member's data in the server as an indented UTF-8 JSON document."""
        data = await self.storage.privacy.export_member(guild_id, user_id)
        return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")

    async def guild_removed(self, guild_id: int, now: datetime) -> PendingRemoval:
        """The bot was removed from the server (not an outage): schedule its deletion."""
        removed = _ms(now)
        due = removal_due_ms(removed, self.retention_days)
        await self.storage.privacy.mark_removed(guild_id, removed, due)
        log.info(
            "removed from guild %s: its data will be deleted in %d days unless re-added",
            guild_id,
            self.retention_days,
        )
        return PendingRemoval(guild_id, removed, due)

    async def guild_present(self, guild_id: int) -> bool:
        """The bot is in the server (added back, or seen at start): keep its data."""
        cancelled = await self.storage.privacy.cancel_removal(guild_id)
        if cancelled:
            log.info("back in guild %s: its pending deletion is cancelled", guild_id)
        return cancelled

    async def delete_due(
        self, now: datetime, *, owns: Callable[[int], bool] | None = None
    ) -> list[int]:
        """Delete the servers due at `now`; `owns` limits it to this process's shards."""
        deleted = await self.storage.privacy.delete_due(_ms(now), owns=owns)
        for guild_id in deleted:
            log.info("deleted the data of guild %s (removed the bot long enough ago)", guild_id)
        return deleted
