"""Numbers and units written as the bank writes them in each language."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.quiz.numbers import NumberError, exact_decimals, format_number, with_unit


@pytest.mark.parametrize(
    ("value", "decimals", "group", "en", "tr"),
    [
        (Fraction(16_777_216), None, True, "16,777,216", "16.777.216"),
        (Fraction(4096), None, False, "4096", "4096"),
        (Fraction(3, 4), None, True, "0.75", "0,75"),
        (Fraction(12288 * 5, 4), None, True, "15,360", "15.360"),
        (Fraction(2, 3), 2, True, "0.67", "0,67"),
        (Fraction(1234567, 1000), 1, True, "1,234.6", "1.234,6"),
        (Fraction(5, 2), 0, True, "3", "3"),  # half up
        (Fraction(1, 8), 2, True, "0.13", "0,13"),
        (Fraction(7), 2, True, "7.00", "7,00"),
    ],
)
def test_grouping_and_decimal_marks_per_language(
    value: Fraction, decimals: int | None, group: bool, en: str, tr: str
) -> None:
    assert format_number(value, "en", decimals=decimals, group=group) == en
    assert format_number(value, "tr", decimals=decimals, group=group) == tr


def test_a_repeating_decimal_needs_an_explicit_rounding() -> None:
    assert exact_decimals(Fraction(1, 3)) is None
    assert exact_decimals(Fraction(1, 8)) == 3
    with pytest.raises(NumberError):
        format_number(Fraction(1, 3), "en")


def test_units_and_the_turkish_percent_sign() -> None:
    assert with_unit("12.5", "%", "en") == "12.5%"
    assert with_unit("12,5", "%", "tr") == "%12,5"
    assert with_unit("3", "MiB", "tr") == "3 MiB"
    assert with_unit("7", "", "en") == "7"
