"""Numbers and units as the bank writes them, in each language.

English groups thousands with "," and writes "." before decimals; Turkish groups with
"." and writes "," (12,288 MiB / 12.288 MiB; 0.75 / 0,75), as in
tests/quiz/test_worked_numbers_a.py. Tensor dimensions are written without grouping
(4096×16384), so a placeholder can ask for `plain`. Percentages put the sign first in
Turkish (%12,5) and last in English (12.5%).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from bot.quiz.model import Lang

#: Units a computed answer may carry; written the same way in both languages.
UNITS: tuple[str, ...] = ("", "%", "B", "KiB", "MiB", "GiB", "GB", "GB/s", "s", "ms", "µs")

#: Most decimals an exact value may need before it has to be rounded explicitly.
MAX_EXACT_DECIMALS = 6
#: Most digits a shown number may have before its decimal point, and in its denominator.
#: No question needs more, and a formula can build far more (`(10**60)**64`): Decimal's
#: 28-digit precision cannot round such a number, and Python refuses to print one of
#: over 4,300 digits, so it is refused here instead, in one sentence.
MAX_DIGITS = 24
_TOO_LONG = 10**MAX_DIGITS


_TURKISH = str.maketrans(",.", ".,")


class NumberError(ValueError):
    """A value that cannot be written as asked (a repeating decimal with no rounding)."""


def too_long(value: Fraction) -> bool:
    """Whether `value` has more than MAX_DIGITS digits before its point or in its denominator."""
    return abs(value) >= _TOO_LONG or value.denominator >= _TOO_LONG


def exact_decimals(value: Fraction) -> int | None:
    """Decimals needed to write `value` exactly, or None when it repeats (1/3)."""
    denominator = value.denominator
    twos = fives = 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    return max(twos, fives) if denominator == 1 else None


def format_number(
    value: Fraction, lang: Lang, *, decimals: int | None = None, group: bool = True
) -> str:
    """`value` with `decimals` places (rounded half up, as readers round), or exactly when None."""
    if too_long(value):
        raise NumberError(f"a number of over {MAX_DIGITS} digits; no question shows one")
    if decimals is None:
        needed = exact_decimals(value)
        if needed is None or needed > MAX_EXACT_DECIMALS:
            raise NumberError(f"{value} needs rounding: give it a number of decimals")
        decimals = needed
    quantum = Decimal(1).scaleb(-decimals)
    rounded = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
        quantum, rounding=ROUND_HALF_UP
    )
    if rounded == 0:
        rounded = abs(rounded)  # never "-0.00"
    text = f"{rounded:,.{decimals}f}" if group else f"{rounded:.{decimals}f}"
    if lang == "tr":
        text = text.translate(_TURKISH)
    return text


def with_unit(number: str, unit: str, lang: Lang) -> str:
    """'12.5' + '%' -> '12.5%' / '%12,5'; '3' + 'MiB' -> '3 MiB'."""
    if not unit:
        return number
    if unit == "%":
        return f"%{number}" if lang == "tr" else f"{number}%"
    return f"{number} {unit}"
