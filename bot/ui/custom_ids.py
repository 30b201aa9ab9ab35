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


def run_click(match: re.Match[str], unknown: str) -> tuple[tuple[int, int, int], str | None]:
    """(run, position, choice) of a click on a personal round's button (the test or a
    review), and the refusal key when a number is not one the bot wrote: `unknown` for
    the run (e.g. "unknown_test"), "bad_choice" for the position or the choice."""
    run, pos, choice = (
        number(match["run"]),
        number(match["pos"], 99),
        number(match["choice"], 9),
    )
    refusal = unknown if run is None else "bad_choice" if pos is None or choice is None else None
    return (run or 0, pos or 0, choice or 0), refusal
