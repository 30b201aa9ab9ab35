"""Imported questions as a bank file, in the style of the hand-written ones.

The style: the schema comment first, one blank line between questions, each choice's
`text` and `feedback` on one line (`- text: {en: By columns}`), the `choices` list
indented under its key, multi-line text as `|` blocks.

PyYAML's pure-Python emitter spends about 4 s per MB of questions (most of a 10 MB
import), so the C emitter of libyaml is used when PyYAML has it. libyaml writes a list
inside a mapping flush with its key ("indentless"), and has no option against it: the
`choices` lines are shifted two columns right afterwards, which is safe because every
line of a choice (block scalar and folded quoted lines included) is indented deeper
than the question's own keys, and shifting all of them alike changes no value. The
tests compare both emitters' output, byte for byte.
"""

from __future__ import annotations

from typing import Any

import yaml

SCHEMA_COMMENT = "# yaml-language-server: $schema=./question.schema.json"


class _Flow(dict[str, Any]):
    """A short language mapping written on one line, like `text: {tr: ..., en: ...}`."""


class _BankDumper(yaml.SafeDumper):
    """Dumps in the bank's style: nested lists indented, multi-line text as blocks."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
        return super().increase_indent(flow, False)


#: Characters YAML reads as line breaks besides "\n": always written as escapes, so that
#: every line of the output ends in "\n" (the re-indenting relies on it).
_OTHER_BREAKS = frozenset("\x85\u2028\u2029")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> Any:
    if not _OTHER_BREAKS.isdisjoint(value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _represent_flow(dumper: yaml.SafeDumper, value: _Flow) -> Any:
    return dumper.represent_mapping("tag:yaml.org,2002:map", dict(value), flow_style=True)


_DUMPERS: dict[str, type[Any]] = {"python": _BankDumper}
_CSafeDumper: type[Any] | None = getattr(yaml, "CSafeDumper", None)
if _CSafeDumper is not None:

    class _FastBankDumper(_CSafeDumper):  # type: ignore[misc, valid-type]
        """libyaml's emitter with the bank's representers (lists re-indented after)."""

    _DUMPERS["libyaml"] = _FastBankDumper

for _dumper in _DUMPERS.values():
    _dumper.add_representer(str, _represent_str)
    _dumper.add_representer(_Flow, _represent_flow)

#: Line width: never fold a long text (the two emitters fold differently, and a folded
#: line is harder to edit).
_NEVER_FOLD = 2**30

#: The emitters this PyYAML has, fastest last; `dump_yaml` uses the last.
EMITTERS = tuple(_DUMPERS)


def _bank_style(question: dict[str, Any]) -> dict[str, Any]:
    """Choice texts and feedback on one line each, as the hand-written files do."""
    styled = dict(question)
    choices = question.get("choices")
    if isinstance(choices, list):
        styled["choices"] = [
            {
                key: _Flow(value)
                if key in ("text", "feedback")
                and isinstance(value, dict)
                and not any("\n" in str(v) for v in value.values())
                else value
                for key, value in choice.items()
            }
            if isinstance(choice, dict)
            else choice
            for choice in choices
        ]
    return styled


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
    body = yaml.dump(
        [_bank_style(q) for q in questions],
        Dumper=_DUMPERS[emitter],
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=_NEVER_FOLD,
    )
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
