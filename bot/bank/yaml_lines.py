"""The line-tracking YAML reader behind the question bank's `file:line` messages.

PyYAML's safe loader builds plain dicts and lists and forgets where they were written;
the bank's checks must name the line of every mistake, so mappings and lists here carry
the line of themselves and of each key or item. The reader also turns what a hand-edited
(or hostile) file can make PyYAML raise into one sentence with a real line number:

* a control character: PyYAML reports a byte offset in a two-line message; we find the
  character ourselves and name its line and code point;
* an integer of thousands of digits: Python refuses to convert it to or from decimal text
  (ValueError), so it is kept as a `HugeInt` that the checks describe by its length,
  never print. Hexadecimal, octal, binary and 60-base (`1:30:00`) integers convert without
  that limit and would fail later, in whatever message prints them; they are bounded here
  too, by value, so no such integer ever leaves the reader;
* nesting hundreds of levels deep: construction recurses, so the depth is measured on the
  composed node tree first and refused past `MAX_DEPTH`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
import yaml.reader

try:  # libyaml's parser is ~10x faster; the checks are the same either way
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

__all__ = [
    "MAX_DEPTH",
    "HugeInt",
    "Map",
    "Seq",
    "YamlProblem",
    "construct_int",
    "control_character",
    "read_yaml",
]

#: A question file needs five levels (list, question, choices, choice, text); anything
#: far deeper is a mistake, and deep enough nesting exhausts Python's recursion limit.
MAX_DEPTH = 32
#: Python's default limit on converting an integer to decimal text (sys.int_info).
MAX_INT_DIGITS = 4300
_TOO_LONG = 10**MAX_INT_DIGITS


class Map(dict[Any, Any]):
    """A YAML mapping that remembers where it and each of its keys were written."""

    line: int
    key_lines: dict[Any, int]
    duplicates: list[tuple[Any, int]]


class Seq(list[Any]):
    """A YAML sequence that remembers where it and each item were written."""

    line: int
    item_lines: list[int]


@dataclass(frozen=True, repr=False)
class HugeInt:
    """An integer too long for Python to convert (over 4,300 digits): only its length.

    Printing one gives that length, so even a message that formats the value directly
    (`f"{value}"`, `str(key)`) stays short and cannot raise.
    """

    #: The digits written in the file (in its own base: hexadecimal digits for 0x...).
    digits: int

    def __repr__(self) -> str:
        return f"<an integer of {self.digits} digits>"

    __str__ = __repr__


@dataclass(frozen=True)
class YamlProblem(Exception):
    """The file is not YAML the bank can read: where, and one sentence saying why."""

    line: int
    message: str


class _LineLoader(_SafeLoader):
    """SafeLoader whose mappings and lists carry 1-based line numbers.

    Only the safe tags are constructed (no arbitrary Python objects), and duplicate keys
    are recorded instead of silently keeping the last one, as PyYAML does by default.
    """


_STR_TAG = "tag:yaml.org,2002:str"


def _construct(loader: _LineLoader, node: yaml.Node) -> Any:
    """`loader.construct_object(node, deep=True)`, without its bookkeeping for strings.

    A string scalar constructs to its node's value; most of a question file is strings,
    and the general path costs several calls each (issue 31 item 15: 10,000 questions).
    """
    if node.tag == _STR_TAG and isinstance(node, yaml.ScalarNode):
        return node.value
    return loader.construct_object(node, deep=True)


def _construct_map(loader: _LineLoader, node: yaml.MappingNode) -> Map:
    # Keys written in this mapping (not pulled in by a `<<: *anchor` merge, which they
    # may legitimately override): only these count as duplicates.
    own_keys = {id(k) for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge"}
    loader.flatten_mapping(node)
    seen_own: set[Any] = set()
    result = Map()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    result.duplicates = []
    for key_node, value_node in node.value:
        key = _construct(loader, key_node)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                "found an unhashable key (a list or mapping used as a key)",
                key_node.start_mark,
            ) from None
        key_line = key_node.start_mark.line + 1
        if id(key_node) in own_keys:
            if key in seen_own:
                result.duplicates.append((key, key_line))
            seen_own.add(key)
        result[key] = _construct(loader, value_node)
        result.key_lines[key] = key_line
    return result


def _construct_seq(loader: _LineLoader, node: yaml.SequenceNode) -> Seq:
    result = Seq(_construct(loader, child) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


def construct_int(loader: Any, node: yaml.ScalarNode) -> int | HugeInt:
    """YAML's int, or a `HugeInt` when it has more digits than Python can print.

    Also for the template reader. The written digits are counted first, so that a huge
    hexadecimal or 60-base integer is not even computed.
    """
    text = str(node.value).replace("_", "").lstrip("+-")
    if text[:2].lower() in ("0x", "0o", "0b"):
        text = text[2:]
    written = sum(c.isalnum() for c in text)
    if written > MAX_INT_DIGITS:
        return HugeInt(digits=written)
    try:
        value: int = yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
    except ValueError:  # Python's int-from-string digit limit
        return HugeInt(digits=written)
    return HugeInt(digits=written) if abs(value) >= _TOO_LONG else value


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
_LineLoader.add_constructor("tag:yaml.org,2002:int", construct_int)


def _too_deep(root: yaml.Node) -> yaml.Node | None:
    """The first node nested deeper than MAX_DEPTH (walked without recursion), or None."""
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:  # an alias: already measured where the anchor was written
            continue
        seen.add(id(node))
        if depth > MAX_DEPTH:
            return node
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend(((key, depth + 1), (value, depth + 1)))
    return None


def control_character(source: str) -> YamlProblem | None:
    """The first character YAML refuses, at its real line (PyYAML gives a byte offset)."""
    match = yaml.reader.Reader.NON_PRINTABLE.search(source)
    if match is None:
        return None
    line = source.count("\n", 0, match.start()) + 1
    return YamlProblem(
        line,
        f"YAML cannot hold the control character U+{ord(match.group()):04X} on this line; "
        'delete it, or write it as an escape inside double quotes (e.g. "\\a")',
    )


def read_yaml(source: str) -> Any:
    """The document in `source` with line-tracking mappings and lists; YamlProblem if unreadable."""
    control = control_character(source)
    if control is not None:
        raise control
    loader = _LineLoader(source)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        deep = _too_deep(node)
        if deep is not None:
            raise YamlProblem(
                deep.start_mark.line + 1,
                f"the YAML is nested more than {MAX_DEPTH} levels deep; a question needs five "
                "(list, question, choices, choice, text): check the brackets and indentation",
            )
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise YamlProblem(*_describe(exc)) from None
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps construction shallow
        raise YamlProblem(1, "the YAML is nested too deeply to read") from None
    finally:
        loader.dispose()


def _describe(exc: yaml.YAMLError) -> tuple[int, str]:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = mark.line + 1 if mark is not None else 1
    what = " ".join(
        str(part) for part in (getattr(exc, "context", None), getattr(exc, "problem", None)) if part
    ) or " ".join(str(exc).split())
    return line, (
        f"YAML syntax error: {what[:200]}; fix the YAML (check indentation, and quote strings "
        "that contain ': ', ' #', or start with a special character like '*', '&', '[')"
    )
