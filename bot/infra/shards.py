"""Which Discord servers this process acts for when the bot is split into shards.

Discord sends a server's events only on shard `(guild_id >> 22) % shard_count`. A
process that runs some of the shards (TPQUIZ_SHARDS) sees only those servers, and must
do the background work nobody asks for (daily posts, reminders, deletions) only for
them too, or two processes would both post each server's question. This module is the
one place that rule lives; it imports nothing from discord or the database drivers, so
the storage filters, the cogs and the tests share it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

#: Highest TPQUIZ_SHARD_COUNT accepted: far above any real bot, it only catches typos.
MAX_SHARD_COUNT = 10_000

_PART_RE = re.compile(r"^(\d+)(?:-(\d+))?$")


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord sends `guild_id`'s events on (Discord's sharding formula)."""
    if shard_count < 1:
        raise ValueError(f"shard_count must be at least 1, not {shard_count}")
    return (guild_id >> 22) % shard_count


def parse_shard_ids(text: str, shard_count: int) -> tuple[int, ...]:
    """`0-3`, `0,2` or `0-1,4` as sorted shard ids below `shard_count`.

    ValueError says what is wrong, in words completing "TPQUIZ_SHARDS ...".
    """
    ids: list[int] = []
    for raw in text.split(","):
        part = raw.strip()
        match = _PART_RE.match(part) if part.isascii() else None
        if match is None:
            shown = part if len(part) <= 20 else part[:20] + "..."
            raise ValueError(
                f"must be shard ids or ranges separated by commas, e.g. 0-3 or 0,2, not {shown!r}"
            )
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) is not None else low
        if high < low:
            raise ValueError(f"has the range {part!r} backwards: write {high}-{low}")
        if high >= shard_count:
            raise ValueError(
                f"names shard {high}, but TPQUIZ_SHARD_COUNT={shard_count} numbers the shards"
                f" 0 to {shard_count - 1}"
            )
        for shard in range(low, high + 1):
            if shard in ids:
                raise ValueError(f"names shard {shard} twice")
            ids.append(shard)
    return tuple(sorted(ids))


def format_shard_ids(ids: Iterable[int]) -> str:
    """Shard ids written back the way TPQUIZ_SHARDS takes them: `0-3,6`."""
    out: list[str] = []
    run: list[int] = []
    for shard in sorted(ids):
        if run and shard == run[-1] + 1:
            run.append(shard)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [shard]
    if run:
        out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(out)


@dataclass(frozen=True, slots=True)
class Ownership:
    """The servers this process owns: those on its shards, or all when not sharded.

    `shard_count` None is one unsharded process (today's default); `shard_ids` None
    with a count means every shard of that count runs here.
    """

    shard_count: int | None = None
    shard_ids: frozenset[int] | None = None

    def __post_init__(self) -> None:
        if self.shard_count is None:
            if self.shard_ids is not None:
                raise ValueError("shard ids need a shard count")
            return
        if self.shard_count < 1:
            raise ValueError(f"shard_count must be at least 1, not {self.shard_count}")
        if self.shard_ids is not None:
            if not self.shard_ids:
                raise ValueError("a process must own at least one shard")
            if not all(0 <= s < self.shard_count for s in self.shard_ids):
                raise ValueError(
                    f"shard ids {sorted(self.shard_ids)} not in 0..{self.shard_count - 1}"
                )

    @classmethod
    def of(cls, shard_count: int | None, shard_ids: Iterable[int] | None) -> Ownership:
        ids = frozenset(shard_ids) if shard_ids is not None else None
        if shard_count is not None and ids == frozenset(range(shard_count)):
            ids = None
        return cls(shard_count, ids)

    @property
    def owns_all(self) -> bool:
        return self.shard_count is None or self.shard_ids is None

    def owns(self, guild_id: int) -> bool:
        """Whether this process acts for the server `guild_id`."""
        if self.shard_count is None or self.shard_ids is None:
            return True
        return shard_of(guild_id, self.shard_count) in self.shard_ids

    @property
    def syncs_commands(self) -> bool:
        """Commands are global: only the process owning shard 0 syncs them."""
        return self.shard_ids is None or 0 in self.shard_ids

    def only_owned(self, items: Iterable[T], guild_id: Callable[[T], int]) -> list[T]:
        """The items whose server this process owns, in their order."""
        if self.owns_all:
            return list(items)
        return [item for item in items if self.owns(guild_id(item))]

    def describe(self) -> str:
        """For logs and `tpquiz doctor`: `shards 0-1 of 4`, `all 2 shards`, `not sharded`."""
        if self.shard_count is None:
            return "not sharded"
        if self.shard_ids is None:
            return f"all {self.shard_count} shards"
        return f"shards {format_shard_ids(self.shard_ids)} of {self.shard_count}"
