"""Numbers in custom_ids: only what the bot writes (plain ASCII decimal within int64)."""

from __future__ import annotations

import pytest

from bot.custom_ids import INT64_MAX, number


@pytest.mark.parametrize("text", ["0", "7", "1300000000000000001", str(INT64_MAX)])
def test_numbers_the_bot_writes_are_read(text: str) -> None:
    assert number(text) == int(text)


@pytest.mark.parametrize(
    "text",
    [
        str(INT64_MAX + 1),  # would overflow SQLite's INTEGER binding
        "9" * 40,
        "-1",
        "+1",
        "007",
        "²",  # str.isdigit() accepts it, int() does not
        "٣",  # Arabic-Indic three: \d and int() accept it
        "１",  # fullwidth one
        " 1",
        "1 ",
        "1_000",
        "",
    ],
)
def test_anything_else_is_not_a_number(text: str) -> None:
    assert number(text) is None


def test_a_maximum_bounds_indexes() -> None:
    assert number("9", 9) == 9
    assert number("10", 9) is None
