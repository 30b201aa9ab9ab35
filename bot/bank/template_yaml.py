"""The YAML reader behind template files: mappings that know their lines, one sentence
for what cannot be read.

Template files are read apart from question files (their fields are checked by
`bot.bank.template_files`), with the same care for what a hand-edited or hostile file
holds: a control character, nesting too deep to construct, and an integer of more
digits than Python prints (`bank_yaml.construct_int`: a hexadecimal one too) are each
one `file:line` sentence, never a traceback.
"""

from __future__ import annotations

from typing import Any

import yaml

from bot.bank.problems import Problem
from bot.bank.yaml_lines import HugeInt, construct_int, control_character

__all__ = ["Located", "line_of", "load_template_yaml"]


class Located(dict[Any, Any]):
    """A YAML mapping that remembers its line and the line of each key."""

    line = 0
    lines: dict[Any, int]


class _LineLoader(yaml.SafeLoader):
    pass


def _mapping(loader: _LineLoader, node: yaml.MappingNode) -> Located:
    result = Located(loader.construct_mapping(node, deep=True))
    result.line = node.start_mark.line + 1
    result.lines = {
        loader.construct_object(k, deep=True): k.start_mark.line + 1 for k, _ in node.value
    }
    return result


class _HugeNumber(ValueError):
    """An integer of more digits than Python prints, at `line`."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _integer(loader: _LineLoader, node: yaml.ScalarNode) -> int:
    value = construct_int(loader, node)
    if isinstance(value, HugeInt):  # hexadecimal too: no template number is that long
        raise _HugeNumber(node.start_mark.line + 1)
    return value


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_LineLoader.add_constructor("tag:yaml.org,2002:int", _integer)


def line_of(mapping: object, key: str, default: int | None) -> int | None:
    """The line of `key` in a YAML mapping, else `default`."""
    return mapping.lines.get(key, default) if isinstance(mapping, Located) else default


def load_template_yaml(file: str, source: str) -> tuple[Any, Problem | None]:
    """The document in `source`, or None and the one problem that stops reading it."""
    control = control_character(source)
    if control is not None:
        return None, Problem(file, control.line, "-", "-", control.message)
    try:
        return yaml.load(source, Loader=_LineLoader), None  # noqa: S506
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        what = " ".join(str(exc).split())[:300]
        return None, Problem(file, line, "-", "-", f"not valid YAML: {what}")
    except RecursionError:
        return None, Problem(file, 1, "-", "-", "the YAML is nested too deeply to read")
    except _HugeNumber as exc:
        message = "holds an integer of more than 4,300 digits; a template's numbers are short"
        return None, Problem(file, exc.line, "-", "-", message)
