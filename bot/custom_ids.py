"""Reading the numbers in a button's custom_id, which anyone can forge (and ids typed in).

A custom_id comes back from Discord exactly as the bot wrote it, unless a client made it
up. The bot writes ids and indexes in plain ASCII decimal, without sign or leading zeros,
and every id fits SQLite's signed 64-bit INTEGER. Anything else (`-1`, `007`, a 20-digit
number that would overflow the database binding, `²` or `٣`, which `str.isdigit` and
`\\d` accept) is not a number the bot wrote: `number()` returns None and the click gets
the unknown-post (or unknown-test) reply instead of a traceback.
"""

from __future__ import annotations

import argparse
import re

#: The largest value an SQLite INTEGER (and so any id the bot stored) can hold.
INT64_MAX = 2**63 - 1

# [0-9], not \d: \d also matches other scripts' digits.
_CANONICAL = re.compile(r"0|[1-9][0-9]{0,18}")


def number(text: str, maximum: int = INT64_MAX) -> int | None:
    """The non-negative integer `text` spells as the bot writes it, or None."""
    if not _CANONICAL.fullmatch(text):
        return None
    value = int(text)
    return value if value <= maximum else None


def guild_id_arg(text: str) -> int:
    """argparse type of `--guild`: an id SQLite can hold, or a usage error (not OverflowError)."""
    value = number(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a server id (a number of up to 19 digits, e.g."
            " 123456789012345678)"
        )
    return value
