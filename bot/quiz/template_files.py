"""Reading and checking template files (`questions/templates/*.yaml`).

Every problem is reported as `file:line: template-id: field: message`, like the bank's,
and every template is drawn `CHECK_DRAWS` times with a seeded random source, so a
template that can produce two equal choices, an unfilled placeholder or an over-long
text fails here rather than in a post. Formulas go through `bot.quiz.expressions`;
nothing in a file is ever run as Python.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from .bank_files import read_question_file
from .bank_yaml import HugeInt, construct_int, control_character
from .expressions import Expression, ExpressionError, parse
from .loader import BankError, Problem, bundled_question_files
from .model import MAX_SOURCE, TOPICS, Bank, Text
from .numbers import UNITS
from .templates import (
    ANSWER_NAME,
    MAX_MISTAKES,
    MAX_TRIES,
    PLACEHOLDER,
    PLACEHOLDER_SPEC,
    SHOWN_MISTAKES,
    VALUE_NAME,
    Distractor,
    Param,
    Rejected,
    Template,
    TemplateError,
    TemplateSet,
)

#: Seeded draws each template must survive to pass `tpquiz validate` (about 3 s for the
#: bundled templates).
CHECK_DRAWS = 200
#: Seeded draws at bot start-up: enough to refuse a broken file, quick enough to restart.
START_DRAWS = 20
TEMPLATE_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,39}\Z")
MAX_VALUES = 64
_FIELDS = {
    "id",
    "topic",
    "difficulty",
    "source",
    "text",
    "explanation",
    "params",
    "let",
    "where",
    "answer",
    "distractors",
}


class _Located(dict[Any, Any]):
    """A YAML mapping that remembers its line and the line of each key."""

    line = 0
    lines: dict[Any, int]


class _LineLoader(yaml.SafeLoader):
    pass


def _mapping(loader: _LineLoader, node: yaml.MappingNode) -> _Located:
    result = _Located(loader.construct_mapping(node, deep=True))
    result.line = node.start_mark.line + 1
    result.lines = {
        loader.construct_object(k, deep=True): k.start_mark.line + 1 for k, _ in node.value
    }
    return result


class _HugeNumber(ValueError):
    """An integer of more digits than Python prints (bank_yaml.construct_int), at `line`."""

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


def _line_of(mapping: object, key: str, default: int | None) -> int | None:
    """The line of `key` in a YAML mapping, else `default`."""
    return mapping.lines.get(key, default) if isinstance(mapping, _Located) else default


class _Reader:
    """Checks one template mapping, collecting problems instead of stopping at the first."""

    def __init__(self, file: str, raw: _Located) -> None:
        self.file = file
        self.raw = raw
        self.id = str(raw.get("id", "-"))
        self.problems: list[Problem] = []

    def problem(self, field: str, message: str, line: int | None = None) -> None:
        root = re.split(r"[.\[]", field, maxsplit=1)[0]
        where = line or self.raw.lines.get(root, self.raw.line)
        self.problems.append(Problem(self.file, where, self.id, field, message))

    def text(self, field: str, value: object, names: set[str], line: int | None = None) -> Text:
        if not isinstance(value, dict) or set(value) != {"tr", "en"}:
            self.problem(field, "needs exactly the keys tr and en", line)
            return Text("", "")
        for lang in ("tr", "en"):
            where = _line_of(value, lang, line)
            if not isinstance(value[lang], str) or not value[lang].strip():
                self.problem(f"{field}.{lang}", "must be a non-empty string", where)
                return Text("", "")
            for match in PLACEHOLDER.finditer(value[lang]):
                if match[1] not in names or not PLACEHOLDER_SPEC.match(match[2] or ""):
                    self.problem(f"{field}.{lang}", f"unknown placeholder {match[0]}", where)
            if "{" in PLACEHOLDER.sub("", value[lang]) or "}" in PLACEHOLDER.sub("", value[lang]):
                self.problem(f"{field}.{lang}", "a brace that is not a {placeholder}", where)
        return Text(tr=value["tr"], en=value["en"])

    def formula(
        self, field: str, value: object, names: set[str], line: int | None = None
    ) -> Expression | None:
        try:
            expr = parse(value if isinstance(value, str) else str(value))
        except ExpressionError as exc:
            self.problem(field, str(exc), line)
            return None
        unknown = sorted(expr.names - names)
        if unknown:
            self.problem(field, f"unknown name(s) {', '.join(unknown)}", line)
            return None
        return expr

    def formulas(
        self, field: str, value: object, names: set[str], line: int | None = None
    ) -> tuple[Expression, ...]:
        items = value if isinstance(value, list) else [value]
        found = [self.formula(f"{field}[{i}]", v, names, line) for i, v in enumerate(items)]
        return tuple(e for e in found if e is not None) if all(found) else ()

    def params(self, value: object) -> tuple[Param, ...]:
        if not isinstance(value, dict) or not value:
            self.problem("params", "needs at least one parameter: name: [values]")
            return ()
        params = []
        for name, spec in value.items():
            field = f"params.{name}"
            if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
                self.problem(
                    "params", f"{name!r} is not a name (a letter, then letters, digits, _)"
                )
                continue
            if isinstance(spec, dict) and set(spec) <= {"from", "to", "step"}:
                lo, hi, step = spec.get("from"), spec.get("to"), spec.get("step", 1)
                if not (isinstance(lo, int) and isinstance(hi, int) and isinstance(step, int)):
                    lo = hi = step = 0
                if step <= 0 or lo > hi or (hi - lo) // step >= MAX_VALUES:
                    self.problem(
                        field,
                        f"a range is {{from: int, to: int, step: int > 0}} of at most {MAX_VALUES} values",
                    )
                    continue
                spec = list(range(lo, hi + 1, step))
            if not isinstance(spec, list) or not spec or len(spec) > MAX_VALUES:
                self.problem(field, f"a list of 1 to {MAX_VALUES} numbers, or a small range")
                continue
            if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in spec):
                self.problem(field, "every value must be a number")
                continue
            params.append(Param(name, tuple(Fraction(str(v)) for v in spec)))
        return tuple(params)

    def template(self) -> Template | None:
        raw = self.raw
        for key in sorted(set(raw) - _FIELDS, key=str):
            self.problem(str(key), "unknown field", raw.lines.get(key))
        if not isinstance(raw.get("id"), str) or not TEMPLATE_ID.match(raw["id"]):
            self.problem("id", "a lower-case id of letters, digits and '-', at most 40")
        if raw.get("topic") not in TOPICS:
            self.problem("topic", f"one of {', '.join(TOPICS)}")
        if raw.get("difficulty") not in (1, 2, 3):
            self.problem("difficulty", "1, 2 or 3")
        source = raw.get("source")
        if not isinstance(source, str) or not source.strip() or len(source) > MAX_SOURCE:
            self.problem("source", f"cite the paper or document (1 to {MAX_SOURCE} characters)")
        params = self.params(raw.get("params"))
        names = {p.name for p in params}
        lets = []
        let_raw = raw.get("let", {})
        if not isinstance(let_raw, dict):
            self.problem("let", "a mapping of name: formula")
            let_raw = {}
        for name, text in let_raw.items():
            expr = self.formula(f"let.{name}", text, names)
            if expr is not None:
                lets.append((str(name), expr))
            names.add(str(name))
        where_raw = raw.get("where", [])
        where = tuple(
            e
            for i, text in enumerate(where_raw if isinstance(where_raw, list) else [where_raw])
            if (e := self.formula(f"where[{i}]", text, names)) is not None
        )
        answer = raw.get("answer")
        if not isinstance(answer, dict) or "value" not in answer:
            self.problem("answer", "needs value (a formula, or a list for a shape)")
            answer = {"value": "0"}
        unit, decimals, count = (
            answer.get("unit", ""),
            answer.get("decimals", 0),
            bool(answer.get("count", False)),
        )
        if unit not in UNITS:
            self.problem("answer.unit", f"one of {', '.join(repr(u) for u in UNITS)}")
        if decimals not in range(5) or (count and decimals):
            self.problem("answer.decimals", "0 to 4, and 0 for a count")
        key = self.formulas("answer.value", answer["value"], names)
        texts = names | {ANSWER_NAME}
        distractors = []
        raw_distractors = raw.get("distractors")
        if not isinstance(raw_distractors, list) or not (
            SHOWN_MISTAKES <= len(raw_distractors) <= MAX_MISTAKES
        ):
            self.problem(
                "distractors",
                f"{SHOWN_MISTAKES} to {MAX_MISTAKES} mistakes, each {{value, mistake}};"
                f" a post shows {SHOWN_MISTAKES} of them",
            )
            raw_distractors = []
        for i, d in enumerate(raw_distractors):
            field = f"distractors[{i}]"
            line = d.line if isinstance(d, _Located) else None
            if not isinstance(d, dict) or set(d) != {"value", "mistake"}:
                self.problem(field, "needs value and mistake (the feedback, tr and en)", line)
                continue
            value = self.formulas(f"{field}.value", d["value"], names, _line_of(d, "value", line))
            if key and value and len(value) != len(key):
                self.problem(f"{field}.value", "must have as many numbers as the answer", line)
            mistake = self.text(
                f"{field}.mistake", d["mistake"], texts | {VALUE_NAME}, _line_of(d, "mistake", line)
            )
            distractors.append(Distractor(value, mistake))
        text = self.text("text", raw.get("text"), texts)
        explanation = self.text("explanation", raw.get("explanation"), texts)
        if self.problems:
            return None
        return Template(
            id=raw["id"],
            topic=raw["topic"],
            difficulty=raw["difficulty"],
            source=source,  # type: ignore[arg-type]
            text=text,
            explanation=explanation,
            params=params,
            lets=tuple(lets),
            where=where,
            answer=key,
            distractors=tuple(distractors),
            unit=unit,
            decimals=decimals,
            count=count,
            file=self.file,
            line=raw.line,
        )


def check_draws(template: Template, draws: int = CHECK_DRAWS) -> str | None:
    """None when `draws` seeded draws all give an askable question, else why not."""
    rng = random.Random(f"check:{template.id}")
    try:
        for _ in range(draws):
            template.draw(rng, MAX_TRIES)
    except TemplateError as exc:
        return str(exc)
    except Rejected as exc:  # pragma: no cover - draw() turns these into TemplateError
        return str(exc)
    return None


def read_file(path: Path, draws: int = CHECK_DRAWS) -> tuple[list[Template], list[Problem]]:
    """The templates of one file, and every problem found in it."""
    file = str(path)
    # Read as question files are: regular files of bounded size only, no FIFO or device.
    source = read_question_file(path)
    if isinstance(source, Problem):
        return [], [Problem(file, source.line, "-", "-", source.message)]
    control = control_character(source)
    if control is not None:
        return [], [Problem(file, control.line, "-", "-", control.message)]
    try:
        data = yaml.load(source, Loader=_LineLoader)  # noqa: S506
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        what = " ".join(str(exc).split())[:300]
        return [], [Problem(file, line, "-", "-", f"not valid YAML: {what}")]
    except RecursionError:
        return [], [Problem(file, 1, "-", "-", "the YAML is nested too deeply to read")]
    except _HugeNumber as exc:
        message = "holds an integer of more than 4,300 digits; a template's numbers are short"
        return [], [Problem(file, exc.line, "-", "-", message)]
    if not isinstance(data, list):
        return [], [Problem(file, 1, "-", "-", "a template file is a list of templates")]
    templates, problems = [], []
    for i, raw in enumerate(data):
        if not isinstance(raw, _Located):
            problems.append(Problem(file, 1, "-", f"[{i}]", "each template is a mapping"))
            continue
        reader = _Reader(file, raw)
        template = reader.template()
        problems += reader.problems
        if template is not None:
            why = check_draws(template, draws)
            if why is not None:
                problems.append(Problem(file, raw.line, template.id, "params", why))
            else:
                templates.append(template)
    return templates, problems


def template_files(paths: Sequence[str | Path] = ()) -> list[Path]:
    """Template files: `templates/*.yaml` in each directory given or holding a file given
    (so `questions/` and `questions/basics.yaml` both find `questions/templates/`);
    with no paths, the bundled ones."""
    if not paths:
        paths = bundled_question_files()[:1]
    dirs = {Path(p) if Path(p).is_dir() else Path(p).parent for p in paths}
    return sorted({f for d in dirs for f in (d / "templates").glob("*.yaml")})


def check_templates(
    paths: Sequence[str | Path] = (), bank: Bank | None = None, draws: int = CHECK_DRAWS
) -> tuple[TemplateSet, list[Problem]]:
    """Every template under `paths` (default: the bundled ones), and every problem."""
    templates: list[Template] = []
    problems: list[Problem] = []
    for path in template_files(paths):
        found, more = read_file(path, draws)
        templates += found
        problems += more
    seen: dict[str, Template] = {}
    for template in templates:
        if template.id in seen:
            problems.append(Problem(template.file, template.line, template.id, "id", "used twice"))
        elif bank is not None and template.id in bank:
            problems.append(
                Problem(template.file, template.line, template.id, "id", "a question's id")
            )
        seen.setdefault(template.id, template)
    return TemplateSet(tuple(seen.values())), problems


def load_templates(
    paths: Sequence[str | Path] = (), bank: Bank | None = None, draws: int = START_DRAWS
) -> TemplateSet:
    """The templates for the bot (default: the bundled ones); BankError if any problem.

    Drawn START_DRAWS times each, not CHECK_DRAWS: `tpquiz validate` (and CI) is where a
    template is checked thoroughly; a restart should not wait seconds for it."""
    templates, problems = check_templates(paths, bank, draws)
    if problems:
        raise BankError(problems)
    return templates


def format_template_counts(templates: TemplateSet) -> str:
    """One line for `tpquiz validate`: templates are counted apart from the questions
    (nothing when the files checked have no templates folder)."""
    if not len(templates):
        return ""
    topics = sorted({t.topic for t in templates})
    return (
        f"OK: {len(templates)} template{'s' if len(templates) != 1 else ''} (computed questions,"
        f" each drawn {CHECK_DRAWS} times) in {len(topics)} topic{'s' if len(topics) != 1 else ''}"
        + (f": {', '.join(topics)}" if topics else "")
        + "\n"
    )
