"""Discord's 3-second window, counted from the interaction's creation, not our arrival.

Discord fails an interaction not answered (or deferred) within 3 s of its creation. Under
overload a click can spend part of that window before its handler runs: in the gateway's
backlog, in the event loop's ready queue. Counting "2 s then defer" from the handler's
start would then defer too late, and the click's answer would be written although its
member only ever saw "This interaction failed". So the window is read off the click's
snowflake id (its creation time, as `discord.Interaction.created_at` reads it):

- defer `DEFER_AFTER` s after creation (at once if that moment has passed on arrival);
- a click already past `EXPIRES_AFTER` s on arrival is too late for any reply: its work
  is not run, nothing is recorded (`InteractionExpired`).

The two clocks differ: Discord's (the id) and this host's. Both are NTP-kept, a few ms
apart; an age beyond `IMPLAUSIBLE_AGE`, or below zero, says the clocks disagree, not that
the click waited that long, and the click is then treated as fresh (it is answered as it
was before this rule: timer from arrival), so a skewed host clock never drops every click.

Pure: the clock is passed in (`now`, seconds since the Unix epoch).
"""

from __future__ import annotations

#: Discord's epoch (2015-01-01) in Unix milliseconds: snowflake timestamps count from it.
DISCORD_EPOCH_MS = 1_420_070_400_000
#: Seconds after creation by which Discord wants the interaction answered or deferred.
EXPIRES_AFTER = 3.0
#: Seconds after creation at which a reply not yet sent is deferred instead.
DEFER_AFTER = 2.0
#: An age beyond this is a clock disagreement, not a wait (see the module's docstring).
IMPLAUSIBLE_AGE = 60.0


class InteractionExpired(Exception):
    """The interaction was past Discord's window before its work ran (or while it waited,
    and the defer was refused): nothing of it is recorded and no reply can be sent."""

    def __init__(self, age: float) -> None:
        super().__init__(f"interaction expired: {age:.2f} s old")
        self.age = age


def created_at(snowflake: int) -> float:
    """The creation time, in Unix seconds, that a snowflake id carries."""
    return ((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000.0


def age(snowflake: int, now: float) -> float | None:
    """Seconds since the interaction was created; None when the clocks disagree."""
    seconds = now - created_at(snowflake)
    if seconds < 0.0 or seconds > IMPLAUSIBLE_AGE:
        return None
    return seconds


def expired(snowflake: int, now: float) -> bool:
    """True when no reply can reach the member any more: do not run the work."""
    seconds = age(snowflake, now)
    return seconds is not None and seconds >= EXPIRES_AFTER


def defer_delay(snowflake: int, now: float, defer_after: float = DEFER_AFTER) -> float:
    """Seconds from `now` until the interaction is to be deferred if not yet answered:
    `defer_after` after its creation, at once if that has passed, never later than
    `defer_after` from now (the clocks disagreeing)."""
    seconds = age(snowflake, now)
    if seconds is None:
        return defer_after
    return max(0.0, min(defer_after, defer_after - seconds))
