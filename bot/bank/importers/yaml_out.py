"""Imported questions as a bank file, in the style of the hand-written ones.

The style: the schema comment first, one blank line between questions, each choice's
`text` and `feedback` on one line (`- text: {en: By columns}`), the `choices` list
indented under its key, multi-line text as `|` blocks.

Speed (bench/import_speed.py): PyYAML's pure-Python emitter and representer spent about
4 s per MB of questions, most of a 10 MB import. So the nodes are built here directly
(which scalars need quotes is still the emitter's call) and libyaml's C emitter writes
them when PyYAML has it. libyaml writes a list inside a mapping flush with its key
("indentless") and has no option against it, so the `choices` lines are shifted two
columns right afterwards. That is safe because every line of a choice (block scalar and
quoted continuation lines included) is indented deeper than the question's own keys,
no text is ever folded, and every line break in the output is a "\n" (the other YAML
line breaks are written as escapes); shifting all of a choice's lines alike changes no
value. The tests compare the two emitters' output byte for byte and read it back.
"""

from __future__ import annotations

from typing import Any

import yaml

from bot.bank.importers.draft import gc_paused

SCHEMA_COMMENT = "# yaml-language-server: $schema=./question.schema.json"


_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"

#: Characters YAML reads as line breaks besides "\n": always written as escapes, so that
#: every line of the output ends in "\n" (the re-indenting relies on it).
_OTHER_BREAKS = frozenset("\x85\u2028\u2029")

#: Line width: never fold a long text (the two emitters fold differently, and a folded
#: line is harder to edit).
_NEVER_FOLD = 2**30


class _BankDumper(yaml.SafeDumper):
    """PyYAML's own emitter, told to indent lists inside mappings as the bank does."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
        return super().increase_indent(flow, False)


_DUMPERS: dict[str, type[Any]] = {"python": _BankDumper}
if hasattr(yaml, "CSafeDumper"):
    _DUMPERS["libyaml"] = yaml.CSafeDumper

#: The emitters this PyYAML has, fastest last; `dump_yaml` uses the last.
EMITTERS = tuple(_DUMPERS)


def _node(value: Any, *, flow: bool = False) -> yaml.Node:
    """The YAML node of a question's value, styled as the bank writes it.

    Built directly rather than through PyYAML's representer, which took most of the
    remaining time; which scalars need quotes is still decided by the emitter.
    """
    if isinstance(value, str):
        if not _OTHER_BREAKS.isdisjoint(value):
            return yaml.ScalarNode(_STR, value, style='"')
        return yaml.ScalarNode(_STR, value, style="|" if "\n" in value else None)
    if isinstance(value, bool):
        return yaml.ScalarNode(_BOOL, "true" if value else "false")
    if isinstance(value, int):
        return yaml.ScalarNode(_INT, str(value))
    if isinstance(value, dict):
        return yaml.MappingNode(
            _MAP, [(_node(k), _node(v)) for k, v in value.items()], flow_style=flow
        )
    if isinstance(value, list):
        return yaml.SequenceNode(_SEQ, [_node(v) for v in value], flow_style=False)
    raise TypeError(f"cannot write {type(value).__name__} into a question file")


def _question_node(question: dict[str, Any]) -> yaml.Node:
    """A question; each choice's text and feedback on one line unless multi-line."""
    pairs: list[tuple[yaml.Node, yaml.Node]] = []
    for key, value in question.items():
        if key == "choices" and isinstance(value, list):
            node: yaml.Node = yaml.SequenceNode(
                _SEQ, [_choice_node(c) for c in value], flow_style=False
            )
        else:
            node = _node(value)
        pairs.append((_node(key), node))
    return yaml.MappingNode(_MAP, pairs, flow_style=False)


def _choice_node(choice: Any) -> yaml.Node:
    if not isinstance(choice, dict):
        return _node(choice)
    return yaml.MappingNode(
        _MAP,
        [
            (
                _node(key),
                _node(
                    value,
                    flow=key in ("text", "feedback")
                    and isinstance(value, dict)
                    and not any("\n" in str(v) for v in value.values()),
                ),
            )
            for key, value in choice.items()
        ],
        flow_style=False,
    )


def _indent_choices(lines: list[str]) -> list[str]:
    """libyaml's `  choices:\\n  - text: …` as the bank writes it: `    - text: …`."""
    shifted: list[str] = []
    inside = False
    for line in lines:
        if inside and line and not line.startswith(("    ", "  - ")):
            inside = False
        shifted.append("  " + line if inside and line else line)
        if line == "  choices:":
            inside = True
    return shifted


def dump_yaml(questions: list[dict[str, Any]], *, emitter: str = EMITTERS[-1]) -> str:
    """Questions as a bank file: schema comment first, one blank line between questions."""
    with gc_paused():
        root = yaml.SequenceNode(_SEQ, [_question_node(q) for q in questions], flow_style=False)
        body = yaml.serialize(root, Dumper=_DUMPERS[emitter], allow_unicode=True, width=_NEVER_FOLD)
    lines = body.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    if emitter == "libyaml":
        lines = _indent_choices(lines)
    spaced: list[str] = []
    for i, line in enumerate(lines):
        if i and line.startswith("- "):
            spaced.append("")
        spaced.append(line)
    return SCHEMA_COMMENT + "\n" + "\n".join(spaced) + "\n"
