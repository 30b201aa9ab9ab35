"""Numbers in custom_ids: only what the bot writes (plain ASCII decimal within int64)."""

from __future__ import annotations

import re

import pytest

from bot.ui.custom_ids import INT64_MAX, number, run_click


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


def test_run_click_reads_the_three_numbers_or_names_the_refusal() -> None:
    template = re.compile(r"tpq:t:(?P<run>[^:]+):(?P<pos>[^:]+):(?P<choice>[^:]+)")

    def read(custom_id: str) -> tuple[tuple[int, int, int], str | None]:
        match = template.fullmatch(custom_id)
        assert match is not None
        return run_click(match, "unknown_test")

    assert read("tpq:t:42:3:1") == ((42, 3, 1), None)
    assert read("tpq:t:-1:3:1") == ((0, 3, 1), "unknown_test")
    assert read("tpq:t:42:100:1") == ((42, 0, 1), "bad_choice")
    assert read("tpq:t:42:3:10") == ((42, 3, 0), "bad_choice")
