"""Checks of one question and of the file that holds a list of them.

`QuestionChecker` walks a parsed question file (yaml_lines.py), applies the per-field
rules (fields.py, choices.py) and builds a `Question` only from a question
with no problem, so the bank never holds half-checked data. It also keeps each stem,
normalised, for the cross-question near-duplicate check (near_duplicates.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.bank.clues import clues
from bot.bank.fields import HOW_TO_FILL
from bot.bank.figure_refs import FIGURE_KEYS, FigureChecker
from bot.bank.glossary import PINNED_TURKISH, ruled_out_in
from bot.bank.near_duplicates import (
    PARTIAL_CANDIDATES,
    SEARCH_BUDGET,
    SearchWork,
    near_duplicate_pairs,
    normalise,
)
from bot.bank.problems import Problem, shown, suggest, type_name
from bot.bank.yaml_lines import Map, Seq, YamlProblem, read_yaml
from bot.quiz.model import (
    LANGS,
    MAX_EXPLANATION,
    MAX_QUESTION_TEXT,
    MAX_SOURCE,
    STARTING_TAG,
    TOPICS,
    Question,
    Text,
)

__all__ = [
    "ALLOWED_QUESTION_KEYS",
    "ID_PATTERN",
    "MAX_ID_LENGTH",
    "MAX_TAG_LENGTH",
    "REQUIRED_QUESTION_KEYS",
    "TAG_PATTERN",
    "QuestionChecker",
]

#: Keys a question mapping may have, in the order the format document lists them.
ALLOWED_QUESTION_KEYS: tuple[str, ...] = (
    "id",
    "topic",
    "difficulty",
    "tags",
    "text",
    "choices",
    "explanation",
    "source",
    *FIGURE_KEYS,
)
REQUIRED_QUESTION_KEYS: tuple[str, ...] = tuple(
    k for k in ALLOWED_QUESTION_KEYS if k not in ("tags", *FIGURE_KEYS)
)

#: Ids end up inside Discord `custom_id`s (100 chars, shared with a prefix and other
#: state), so they are short, lowercase and free of separators the bot uses.
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*\Z")
MAX_ID_LENGTH = 40
TAG_PATTERN = ID_PATTERN
MAX_TAG_LENGTH = 30


_PATH_PART = re.compile(r"\[(\d+)\]|[^.\[\]]+")


def _walk(item: Map, field: str) -> tuple[object, int]:
    """The value at a field path such as `choices[2].text.en`, and the line it is on."""
    node: object = item
    line = item.line
    for match in _PATH_PART.finditer(field):
        if match.group(1) is not None:
            assert isinstance(node, Seq)
            index = int(match.group(1))
            line = node.item_lines[index]
            node = node[index]
        else:
            assert isinstance(node, Map)
            key = match.group(0)
            line = node.key_lines[key]
            node = node[key]
    return node, line


def _line_of(item: Map, field: str) -> int:
    return _walk(item, field)[1]


def _value_of(item: Map, field: str) -> str:
    return str(_walk(item, field)[0])


@dataclass
class _StemRef:
    question_id: str
    file: str
    line: int
    normalised: dict[str, str]


class QuestionChecker(FigureChecker):
    """Validates parsed YAML and builds questions, collecting problems as it goes."""

    def __init__(self) -> None:
        super().__init__()
        self.questions: list[Question] = []
        self._ids: dict[str, tuple[str, int]] = {}
        self._stems: list[_StemRef] = []
        #: Clues that do not fail the bank (printed by `tpquiz validate`).
        self.warnings: list[Problem] = []

    def check_source(self, file: str, source: str) -> None:
        """Check the text of one question file, shown in messages as `file`."""
        self._file = file
        self._qid = "-"
        try:
            data = read_yaml(source)
        except YamlProblem as exc:
            self.add(exc.line, "-", exc.message)
            return
        if data is None or (isinstance(data, list) and not data):
            self.add(
                1, "-", "file holds no questions; add questions (a YAML list) or delete the file"
            )
            return
        if not isinstance(data, Seq):
            line = getattr(data, "line", 1)
            self.add(
                line,
                "-",
                f"the file must be a YAML list of questions, got {type_name(data)}; "
                "start each question with '- id: ...'",
            )
            return
        for index, item in enumerate(data):
            self._qid = "-"
            self._check_question(item, data.item_lines[index])

    # ---- one question

    def _check_question(self, item: object, item_line: int) -> None:
        if not isinstance(item, Map):
            self.add(
                item_line,
                "-",
                f"a question must be a mapping (id: ..., topic: ..., ...), got {type_name(item)}",
            )
            return
        raw_id = item.get("id")
        if isinstance(raw_id, str) and raw_id.strip():
            shown_id = raw_id.strip()
            self._qid = shown_id if len(shown_id) <= 60 else shown_id[:60] + "..."
        before = len(self.problems)

        self._duplicate_keys(item, "")
        for key in item:
            if key not in ALLOWED_QUESTION_KEYS:
                self.add(
                    item.key_lines[key],
                    str(key)[:40],
                    f"unknown key {shown(key)}; {suggest(key, ALLOWED_QUESTION_KEYS)}"
                    f"allowed keys: {', '.join(ALLOWED_QUESTION_KEYS)}",
                )
        for key in REQUIRED_QUESTION_KEYS:
            if key not in item:
                self.add(item.line, key, f"missing required field {key}; {HOW_TO_FILL[key]}")

        qid = self._check_id(item)
        topic = self._check_topic(item)
        difficulty = self._check_difficulty(item)
        tags = self._check_tags(item)
        text = self._text(item, "text", "text", MAX_QUESTION_TEXT)
        choices = self._check_choices(item)
        explanation = self._text(item, "explanation", "explanation", MAX_EXPLANATION)
        source = self._string(item, "source", "source", MAX_SOURCE)
        figures = {key: self._check_figure(item, key) for key in FIGURE_KEYS}

        if text is not None:
            self._remember_stem(item, text)
        if len(self.problems) != before:
            return
        assert qid is not None and topic is not None and difficulty is not None
        assert text is not None and choices is not None and explanation is not None
        assert source is not None and tags is not None
        question = Question(
            id=qid,
            topic=topic,
            difficulty=difficulty,
            text=text,
            choices=choices,
            explanation=explanation,
            source=source,
            tags=tags,
            file=self._file,
            line=item.line,
            figure=figures["figure"],
            explanation_figure=figures["explanation_figure"],
        )
        self.questions.append(question)
        self._check_clues(question, item)
        self._check_glossary(question, item)

    # ---- content checks on a well-formed question

    def _check_clues(self, question: Question, item: Map) -> None:
        """Length, stem-word and absolute-word clues: errors fail, warnings are listed."""
        for clue in clues(question):
            problem = Problem(
                self._file, _line_of(item, clue.field), self._qid, clue.field, clue.message
            )
            if clue.severity == "error":
                self.problems.append(problem)
            else:
                self.warnings.append(problem)

    def _check_glossary(self, question: Question, item: Map) -> None:
        """Turkish texts must use the glossary's forms (questions/glossary/turkish.yaml)."""
        pinned = question.id in PINNED_TURKISH and STARTING_TAG in question.tags
        fields = [] if pinned else ["text.tr"]
        for i, choice in enumerate(question.choices):
            if not pinned:
                fields.append(f"choices[{i}].text.tr")
            if choice.feedback is not None:
                fields.append(f"choices[{i}].feedback.tr")
        fields.append("explanation.tr")
        fields += [f"{key}.alt.tr" for key in FIGURE_KEYS if key in item]
        for field in fields:
            for variant in ruled_out_in(_value_of(item, field)):
                self.add(
                    _line_of(item, field),
                    field,
                    f"{variant.found!r} is a form docs/glossary.md rules out for "
                    f"'{variant.term.english}'; write {variant.term.turkish!r}",
                )

    def _check_id(self, item: Map) -> str | None:
        value = self._string(item, "id", "id", None)
        if value is None:
            return None
        line = item.key_lines["id"]
        ok = True
        if not ID_PATTERN.match(value):
            self.add(
                line,
                "id",
                f"id {shown(value)} has the wrong format; use lowercase letters, digits and '-', "
                "starting with a letter or digit, e.g. 'mlp-split-03'",
            )
            ok = False
        if len(value) > MAX_ID_LENGTH:
            self.add(
                line,
                "id",
                f"id is {len(value)} characters, over the limit of {MAX_ID_LENGTH} "
                "(it must fit in a Discord custom_id); shorten it",
            )
            ok = False
        other = self._ids.get(value)
        if other is not None:
            self.add(
                line,
                "id",
                f"duplicate id {shown(value)}, also used at {other[0]}:{other[1]}; ids must be "
                "unique across the bank: give this question a new id (never reuse an old one)",
            )
            ok = False
        else:
            self._ids[value] = (self._file, line)
        return value if ok else None

    def _check_topic(self, item: Map) -> str | None:
        value = self._string(item, "topic", "topic", None)
        if value is None:
            return None
        if value not in TOPICS:
            self.add(
                item.key_lines["topic"],
                "topic",
                f"unknown topic {shown(value)}; {suggest(value, TOPICS)}topics: {', '.join(TOPICS)}",
            )
            return None
        return value

    def _check_difficulty(self, item: Map) -> int | None:
        if "difficulty" not in item:
            return None
        value = item["difficulty"]
        line = item.key_lines["difficulty"]
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(
                line,
                "difficulty",
                f"must be an integer 1, 2 or 3, got {type_name(value)}",
            )
            return None
        if not 1 <= value <= 3:
            self.add(
                line,
                "difficulty",
                f"difficulty {shown(value)} is out of range; use 1 (recall), 2 (understanding) "
                "or 3 (worked numbers / subtle)",
            )
            return None
        return value

    def _check_tags(self, item: Map) -> frozenset[str] | None:
        if "tags" not in item:
            return frozenset()
        value = item["tags"]
        line = item.key_lines["tags"]
        if not isinstance(value, Seq):
            self.add(
                line,
                "tags",
                f"must be a list of short lowercase words, e.g. [starting], got {type_name(value)}",
            )
            return None
        tags: set[str] = set()
        ok = True
        for i, tag in enumerate(value):
            tag_line = value.item_lines[i]
            field = f"tags[{i}]"
            if not isinstance(tag, str):
                self.add(tag_line, field, f"a tag must be a string, got {type_name(tag)}")
                ok = False
            elif not TAG_PATTERN.match(tag) or len(tag) > MAX_TAG_LENGTH:
                self.add(
                    tag_line,
                    field,
                    f"tag {shown(tag)} must be a short lowercase word ([a-z0-9-], at most "
                    f"{MAX_TAG_LENGTH} characters), e.g. 'starting'",
                )
                ok = False
            elif tag in tags:
                self.add(tag_line, field, f"tag {tag!r} is listed twice; delete one")
                ok = False
            else:
                tags.add(tag)
        return frozenset(tags) if ok else None

    # ---- cross-question checks

    def _remember_stem(self, item: Map, text: Text) -> None:
        self._stems.append(
            _StemRef(
                question_id=self._qid,
                file=self._file,
                line=item.key_lines["text"],
                normalised={lang: normalise(text.get(lang)) for lang in LANGS},
            )
        )

    def check_near_duplicates(self) -> None:
        """Report stems that are (almost) the same question written twice.

        Normalised stems are compared per language, so a question translated twice
        into one language is caught even if the other language differs. Each stem is
        reported once, naming one earlier look-alike: enough to merge or reword it, and
        bounded on a bank of many copies.
        """
        for lang in LANGS:
            texts = [ref.normalised[lang] for ref in self._stems]
            work = SearchWork()
            found = near_duplicate_pairs(texts, first_only=True, budget=SEARCH_BUDGET, work=work)
            for i, j, ratio in found:
                first, second = self._stems[i], self._stems[j]
                self.problems.append(
                    Problem(
                        second.file,
                        second.line,
                        second.question_id,
                        f"text.{lang}",
                        f"stem is nearly identical ({ratio:.0%}) to {first.question_id} "
                        f"at {first.file}:{first.line} (this is {second.question_id} at "
                        f"{second.file}:{second.line}); merge them or make each ask "
                        "a different idea",
                    )
                )
            if work.partial:
                self._warn_partial(lang, work.partial)

    def _warn_partial(self, lang: str, partial: list[int]) -> None:
        """One warning when the search's budget ran out (issue 31 item 15)."""
        at = self._stems[partial[0]]
        self.warnings.append(
            Problem(
                at.file,
                at.line,
                at.question_id,
                f"text.{lang}",
                f"the bank has so many look-alike stems that the near-duplicate check "
                f"reached its work limit here: this stem and {len(partial) - 1} later ones "
                f"were compared only with their {PARTIAL_CANDIDATES} likeliest look-alikes, "
                "so a near-duplicate among them may go unreported; reword stems that "
                "differ only in their numbers, or make them a template "
                "(questions/templates/)",
            )
        )
