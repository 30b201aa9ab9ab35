"""A small arithmetic language for computed questions: parsed with `ast`, never `eval`.

Template files hold formulas as text (`2 * (t - 1) / t * S`). Running such text with
`eval` would run whatever a file says; instead `parse` reads it with `ast.parse` and
keeps only names, numbers, + - * / // % **, comparisons, `and`/`or`/`not` and a few
named functions, and `evaluate` walks that tree itself. Every number is a `Fraction`,
so 2 * (t - 1) / t is exact and "is the key a whole count?" has a true answer instead of
a float's guess.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

Value = Fraction | bool

#: Longest formula accepted; a formula is a line, not a program.
MAX_LENGTH = 300
#: Largest exponent allowed in a ** b, so no formula builds a number of a million digits.
MAX_EXPONENT = 64


class ExpressionError(ValueError):
    """A formula that is not in the language, or cannot be computed for these values."""


def _log2(x: Fraction) -> Fraction:
    """log2 of a power of two (a degree, a size); anything else is an error."""
    if x.denominator != 1 or x.numerator <= 0 or x.numerator & (x.numerator - 1):
        # A formula can build a number of thousands of digits, too long to print.
        what = (
            str(x)
            if x.numerator.bit_length() + x.denominator.bit_length() < 200
            else "a long number"
        )
        raise ExpressionError(f"log2 of {what}, which is not a power of two")
    return Fraction(x.numerator.bit_length() - 1)


def _int(f: Callable[[Fraction], int]) -> Callable[[Fraction], Fraction]:
    return lambda x: Fraction(f(x))


FUNCTIONS: dict[str, tuple[Callable[..., Fraction], int | None]] = {
    # name: (function, number of arguments or None for "one or more")
    "ceil": (_int(math.ceil), 1),
    "floor": (_int(math.floor), 1),
    "min": (min, None),
    "max": (max, None),
    "log2": (_log2, 1),
}

_BINARY: dict[type[ast.operator], Callable[[Fraction, Fraction], Fraction]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: lambda a, b: Fraction(a // b),
    ast.Mod: operator.mod,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Fraction, Fraction], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


@dataclass(frozen=True)
class Expression:
    """A parsed formula: its text, its tree, and the names it reads."""

    text: str
    tree: ast.expr
    names: frozenset[str]

    def __call__(self, values: Mapping[str, Fraction]) -> Value:
        return _eval(self.tree, values)

    def number(self, values: Mapping[str, Fraction]) -> Fraction:
        result = self(values)
        if isinstance(result, bool):
            raise ExpressionError(f"{self.text!r} is a condition, not a number")
        return result


def parse(text: str) -> Expression:
    """Parse `text` into an Expression, or raise ExpressionError saying what is not allowed."""
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError("a formula must be a non-empty string")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"a formula has at most {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ExpressionError(f"not a formula ({exc.msg})") from None
    names: set[str] = set()
    _check(tree, names)
    return Expression(text, tree, frozenset(names))


def _check(node: ast.AST, names: set[str]) -> None:
    """Reject every node outside the language, before anything is computed."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise ExpressionError(f"only numbers may appear as constants, not {node.value!r}")
        return
    if isinstance(node, ast.Name):
        if node.id in FUNCTIONS:
            raise ExpressionError(f"{node.id} is a function: write {node.id}(...)")
        names.add(node.id)
        return
    if isinstance(node, ast.BinOp) and (type(node.op) in _BINARY or isinstance(node.op, ast.Pow)):
        children: list[ast.AST] = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd | ast.Not):
        children = [node.operand]
    elif isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        children = [node.left, *node.comparators]
    elif isinstance(node, ast.BoolOp):
        children = list(node.values)
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
            allowed = ", ".join(sorted(FUNCTIONS))
            raise ExpressionError(f"only these functions may be called: {allowed}")
        arity = FUNCTIONS[node.func.id][1]
        if (arity is not None and len(node.args) != arity) or not node.args:
            raise ExpressionError(f"{node.func.id} takes {arity or 'one or more'} argument(s)")
        children = list(node.args)
    else:
        raise ExpressionError(
            f"{type(node).__name__} is not allowed; use names, numbers, + - * / // % **,"
            " comparisons, and/or/not and " + ", ".join(sorted(FUNCTIONS))
        )
    for child in children:
        _check(child, names)


@functools.lru_cache(maxsize=1024)
def _constant(value: int | float) -> Fraction:
    return Fraction(str(value))  # "0.1" -> 1/10 exactly, not the float's binary


def _number(value: Value, what: str) -> Fraction:
    if isinstance(value, bool):
        raise ExpressionError(f"{what} must be a number, not a condition")
    return value


def _eval(node: ast.expr, values: Mapping[str, Fraction]) -> Value:
    if isinstance(node, ast.Constant):
        return _constant(node.value)
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise ExpressionError(f"unknown name {node.id!r}")
        return values[node.id]
    if isinstance(node, ast.BinOp):
        left = _number(_eval(node.left, values), "an operand")
        right = _number(_eval(node.right, values), "an operand")
        if isinstance(node.op, ast.Pow):
            if right.denominator != 1 or abs(right) > MAX_EXPONENT:
                raise ExpressionError(f"exponents are whole numbers up to {MAX_EXPONENT}")
            if left == 0 and right < 0:
                raise ExpressionError("division by zero")
            return left ** int(right)
        if right == 0 and not isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
            raise ExpressionError("division by zero")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, values)
        if isinstance(node.op, ast.Not):
            return not operand
        number = _number(operand, "an operand")
        return -number if isinstance(node.op, ast.USub) else number
    if isinstance(node, ast.Compare):
        left = _number(_eval(node.left, values), "a compared value")
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _number(_eval(comparator, values), "a compared value")
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        results = (bool(_eval(v, values)) for v in node.values)
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        function = FUNCTIONS[node.func.id][0]
        return function(*(_number(_eval(a, values), "an argument") for a in node.args))
    raise ExpressionError(f"{type(node).__name__} is not allowed")  # _check keeps these out
