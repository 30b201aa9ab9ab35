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

from bot.bank.figure_refs import FIGURE_KEYS, figure_name_problem, missing_params
from bot.bank.files import cannot_list, read_question_file
from bot.bank.loader import BankError, Problem, bundled_question_files
from bot.bank.template_yaml import Located, line_of, load_template_yaml
from bot.quiz.expressions import Expression, ExpressionError, parse
from bot.quiz.model import MAX_SOURCE, TOPICS, Bank, FigureRef, Text
from bot.quiz.numbers import UNITS
from bot.quiz.templates import (
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
    "figure",
    "explanation_figure",
}


class _Reader:
    """Checks one template mapping, collecting problems instead of stopping at the first."""

    def __init__(self, file: str, raw: Located) -> None:
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
            where = line_of(value, lang, line)
            if not isinstance(value[lang], str) or not value[lang].strip():
                self.problem(f"{field}.{lang}", "must be a non-empty string", where)
                return Text("", "")
            for match in PLACEHOLDER.finditer(value[lang]):
                if match[1] not in names or not PLACEHOLDER_SPEC.match(match[2] or ""):
                    self.problem(f"{field}.{lang}", f"unknown placeholder {match[0]}", where)
            if "{" in PLACEHOLDER.sub("", value[lang]) or "}" in PLACEHOLDER.sub("", value[lang]):
                self.problem(f"{field}.{lang}", "a brace that is not a {placeholder}", where)
        return Text(tr=value["tr"], en=value["en"])

    def figure(self, key: str, value: object, names: set[str], texts: set[str]) -> FigureRef | None:
        """A figure drawn with each post's values: registered, with alt text, and every
        parameter it reads among the template's parameters and `let` names."""
        if value is None:
            return None
        if not isinstance(value, dict) or set(value) != {"name", "alt"}:
            self.problem(key, "needs exactly name (a registered figure) and alt: {tr, en}")
            return None
        line = line_of(value, "name", None)
        why = figure_name_problem(value["name"])
        if why is not None:
            self.problem(f"{key}.name", why, line)
            return None
        missing = missing_params(value["name"], names)
        if missing:
            self.problem(
                f"{key}.name",
                f"figure {value['name']} reads {', '.join(missing)}, which this template "
                "neither draws (params) nor computes (let)",
                line,
            )
        alt = self.text(f"{key}.alt", value["alt"], texts, line_of(value, "alt", line))
        return FigureRef(value["name"], alt)

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
            line = d.line if isinstance(d, Located) else None
            if not isinstance(d, dict) or set(d) != {"value", "mistake"}:
                self.problem(field, "needs value and mistake (the feedback, tr and en)", line)
                continue
            value = self.formulas(f"{field}.value", d["value"], names, line_of(d, "value", line))
            if key and value and len(value) != len(key):
                self.problem(f"{field}.value", "must have as many numbers as the answer", line)
            mistake = self.text(
                f"{field}.mistake", d["mistake"], texts | {VALUE_NAME}, line_of(d, "mistake", line)
            )
            distractors.append(Distractor(value, mistake))
        text = self.text("text", raw.get("text"), texts)
        explanation = self.text("explanation", raw.get("explanation"), texts)
        figures = {key: self.figure(key, raw.get(key), names, texts) for key in FIGURE_KEYS}
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
            figure=figures["figure"],
            explanation_figure=figures["explanation_figure"],
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
    data, problem = load_template_yaml(file, source)
    if problem is not None:
        return [], [problem]
    if not isinstance(data, list):
        return [], [Problem(file, 1, "-", "-", "a template file is a list of templates")]
    templates, problems = [], []
    for i, raw in enumerate(data):
        if not isinstance(raw, Located):
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


def template_files(paths: Sequence[str | Path] = ()) -> tuple[list[Path], list[Problem]]:
    """Template files: `templates/*.yaml` in each directory given or holding a file given
    (so `questions/` and `questions/basics.yaml` both find `questions/templates/`);
    with no paths, the bundled ones. A templates folder that cannot be listed is a
    problem, not an exception.

    When even the folder's place cannot be looked at (a directory given that may not
    be searched), nothing is said here: the bank's own reading of that directory has
    already named it, in the same words.
    """
    if not paths:
        paths = bundled_question_files()[:1]
    found: set[Path] = set()
    problems: list[Problem] = []
    for d in sorted({_folder(p) for p in paths}):
        folder = d / "templates"
        try:
            if not folder.is_dir():
                continue
        except OSError:  # the directory itself is closed: reported with the bank
            continue
        try:  # not glob(), which passes over a folder it may not list without a word
            found.update(f for f in folder.iterdir() if f.name.endswith(".yaml"))
        except OSError as exc:
            problems.append(cannot_list(folder, exc))
    return sorted(found), problems


def _folder(path: str | Path) -> Path:
    """`path` if it is a directory, else the directory holding it."""
    try:
        return Path(path) if Path(path).is_dir() else Path(path).parent
    except OSError:  # cannot be looked at: not a directory we can use
        return Path(path).parent


def check_templates(
    paths: Sequence[str | Path] = (), bank: Bank | None = None, draws: int = CHECK_DRAWS
) -> tuple[TemplateSet, list[Problem]]:
    """Every template under `paths` (default: the bundled ones), and every problem."""
    templates: list[Template] = []
    files, problems = template_files(paths)
    for path in files:
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
