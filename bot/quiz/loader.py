"""Read `questions/*.yaml` into a validated `Bank`, or say exactly what is wrong.

The question bank is written by hand by several people, so the loader is built for the
author more than for the bot: it never stops at the first mistake, it reports every
problem across every file in one pass, and each report carries `file:line`, the
question id, the field path and a message saying what is wrong *and* what to do. The
bot refuses to start on a bank with problems (`load_bank` raises), and `tpquiz validate`
prints the same list, so a broken question never reaches a Discord channel.

Field paths use 0-based indices (`choices[0]` is the first choice in the file, the one
shown as A before shuffling).
"""

from __future__ import annotations

import collections
import difflib
import importlib.resources
import math
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

try:  # libyaml's parser is ~10x faster; the checks are the same either way
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

from bot.quiz.model import (
    LANGS,
    MAX_CHOICE_TEXT,
    MAX_CHOICES,
    MAX_EXPLANATION,
    MAX_FEEDBACK,
    MAX_QUESTION_TEXT,
    MAX_SOURCE,
    MIN_CHOICES,
    TOPICS,
    Bank,
    Choice,
    Question,
    Text,
)

__all__ = [
    "ALLOWED_CHOICE_KEYS",
    "ALLOWED_QUESTION_KEYS",
    "BankError",
    "ID_PATTERN",
    "MAX_ID_LENGTH",
    "MAX_TAG_LENGTH",
    "NEAR_DUPLICATE_RATIO",
    "Problem",
    "REQUIRED_QUESTION_KEYS",
    "TAG_PATTERN",
    "bundled_question_files",
    "check_files",
    "expand_paths",
    "load_bank",
    "near_duplicate_pairs",
    "normalise",
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
)
REQUIRED_QUESTION_KEYS: tuple[str, ...] = tuple(k for k in ALLOWED_QUESTION_KEYS if k != "tags")
ALLOWED_CHOICE_KEYS: tuple[str, ...] = ("text", "correct", "feedback")

#: Ids end up inside Discord `custom_id`s (100 chars, shared with a prefix and other
#: state), so they are short, lowercase and free of separators the bot uses.
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*\Z")
MAX_ID_LENGTH = 40
TAG_PATTERN = ID_PATTERN
MAX_TAG_LENGTH = 30

#: Two stems at least this similar (after `normalise`) are reported as near-duplicates.
NEAR_DUPLICATE_RATIO = 0.9

# Choices that test test-taking skill rather than understanding, and that break when the
# bot shuffles choices. Matched against `normalise`d text (case, accents, dotless i and
# spaces folded away), so "Yukarıdakilerin TÜMÜ." matches "yukaridakilerintumu".
_CATCH_ALL_PHRASES = (
    "alloftheabove",
    "noneoftheabove",
    "alltheabove",
    "allofthese",
    "noneofthese",
    "yukaridakilerintumu",
    "yukaridakilerinhepsi",
    "yukaridakilerinhicbiri",
)
# "hepsi"/"hiçbiri" are ordinary Turkish words, so only a choice that *is* the word
# (optionally followed by "doğru"/"yanlış") is flagged.
_CATCH_ALL_EXACT = re.compile(r"(hepsi|hicbiri|tumu)(dogru|dogrudur|yanlis|yanlistir)?")


def _is_catch_all(folded: str) -> bool:
    return any(p in folded for p in _CATCH_ALL_PHRASES) or bool(_CATCH_ALL_EXACT.fullmatch(folded))


_WHITESPACE_OR_PUNCT = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the bank, located precisely enough to fix without searching."""

    file: str
    line: int
    question_id: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.question_id}: {self.field}: {self.message}"


class BankError(Exception):
    """The bank has problems; `problems` lists every one of them."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


# --------------------------------------------------------------------------- YAML layer


class _Map(dict[Any, Any]):
    """A YAML mapping that remembers where it and each of its keys were written."""

    line: int
    key_lines: dict[Any, int]
    duplicates: list[tuple[Any, int]]


class _Seq(list[Any]):
    """A YAML sequence that remembers where it and each item were written."""

    line: int
    item_lines: list[int]


class _LineLoader(_SafeLoader):
    """SafeLoader whose mappings and lists carry 1-based line numbers.

    Only the safe tags are constructed (no arbitrary Python objects), and duplicate keys
    are recorded instead of silently keeping the last one, as PyYAML does by default.
    """


def _construct_map(loader: _LineLoader, node: yaml.MappingNode) -> _Map:
    # Keys written in this mapping (not pulled in by a `<<: *anchor` merge, which they
    # may legitimately override): only these count as duplicates.
    own_keys = {id(k) for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge"}
    loader.flatten_mapping(node)
    seen_own: set[Any] = set()
    result = _Map()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    result.duplicates = []
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
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
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_line
    return result


def _construct_seq(loader: _LineLoader, node: yaml.SequenceNode) -> _Seq:
    result = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


# --------------------------------------------------------------------------- helpers


def normalise(text: str) -> str:
    """Fold `text` for similarity checks: lowercase, no accents, punctuation or spaces.

    Accents are dropped and Turkish dotless ı is folded to i so that "HİÇBİRİ",
    "hiçbiri" and "hicbiri" compare equal, and so that stems differing only in
    typography are still caught as near-duplicates.
    """
    decomposed = unicodedata.normalize("NFKD", text.lower())
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _WHITESPACE_OR_PUNCT.sub("", stripped.replace("ı", "i"))


def _type_name(value: object) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({value!r})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__} ({value!r})"


def _suggest(word: object, allowed: Iterable[str]) -> str:
    close = difflib.get_close_matches(str(word), list(allowed), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""


def _display(path: Path) -> str:
    """Show paths under the working directory relative to it, as editors expect."""
    if path.is_absolute():
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)
    return str(path)


def _trigrams(text: str) -> frozenset[tuple[str, int]]:
    """The trigram multiset of `text` as a set of (trigram, occurrence) pairs.

    A set, so that intersections run in C; the occurrence number keeps it a multiset.
    """
    seen: collections.Counter[str] = collections.Counter()
    grams: set[tuple[str, int]] = set()
    for i in range(len(text) - 2):
        gram = text[i : i + 3]
        seen[gram] += 1
        grams.add((gram, seen[gram]))
    return frozenset(grams)


def near_duplicate_pairs(
    texts: Sequence[str], threshold: float = NEAR_DUPLICATE_RATIO
) -> Iterator[tuple[int, int, float]]:
    """(i, j, ratio) with i < j for every pair whose SequenceMatcher ratio >= threshold.

    Comparing every pair with SequenceMatcher is quadratic in pairs *and* in text
    length, too slow for a bank of hundreds of stems, so pairs are first pruned by
    bounds that can never drop a real match:

    * length: ratio <= 2 * min(len) / total;
    * shared trigrams: with M matched characters in at most (unmatched + 1) blocks, a
      pair at ratio r shares at least (2.5r - 2) * total - 2 trigrams;
    * prefix filter: two sets sharing >= k elements, each sorted by one global order,
      share an element within their first (size - k + 1) elements, so only pairs that
      meet in those prefixes (found with an inverted index) are looked at.

    Autojunk is off: with spaces removed every letter of a long stem is "popular" and
    would be ignored, making unrelated stems look alike.
    """
    slope = 2.5 * threshold - 2
    grams = [_trigrams(t) for t in texts]
    frequency = collections.Counter(g for gs in grams for g in gs)
    postings: dict[tuple[str, int], list[int]] = collections.defaultdict(list)
    short: list[int] = []
    for j, text in enumerate(texts):
        # Least overlap any admissible partner must have (partners at least
        # threshold / (2 - threshold) times as long).
        need = math.ceil(slope * 2 * len(text) / (2 - threshold) - 2)
        ordered = sorted(grams[j], key=lambda g: (frequency[g], g))
        if need <= 0 or not ordered:
            candidates = set(range(j))
            short.append(j)
        else:
            prefix = ordered[: len(ordered) - need + 1]
            candidates = {i for g in prefix for i in postings[g]}
            candidates.update(short)
            for g in prefix:
                postings[g].append(j)
        matcher: difflib.SequenceMatcher[str] = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(text)
        for i in sorted(candidates):
            other = texts[i]
            total = len(other) + len(text)
            if total == 0:
                yield i, j, 1.0
                continue
            if 2 * min(len(other), len(text)) < threshold * total:
                continue
            if len(grams[i] & grams[j]) < slope * total - 2:
                continue
            matcher.set_seq1(other)
            ratio = matcher.ratio()
            if ratio >= threshold:
                yield i, j, ratio


# --------------------------------------------------------------------------- checking


@dataclass
class _StemRef:
    question_id: str
    file: str
    line: int
    normalised: dict[str, str]


class _Checker:
    """Validates parsed YAML and builds questions, collecting problems as it goes."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.questions: list[Question] = []
        self._ids: dict[str, tuple[str, int]] = {}
        self._stems: list[_StemRef] = []
        self._file = ""
        self._qid = "-"

    def add(self, line: int, field: str, message: str) -> None:
        self.problems.append(Problem(self._file, line, self._qid, field, message))

    # ---- files

    def check_file(self, path: Path) -> None:
        self._file = _display(path)
        self._qid = "-"
        try:
            source = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            self.add(1, "-", "file not found; check the path")
            return
        except UnicodeDecodeError as exc:
            self.add(1, "-", f"file is not valid UTF-8 ({exc.reason}); save it as UTF-8")
            return
        except OSError as exc:
            self.add(1, "-", f"cannot read file ({exc.strerror}); check the path and permissions")
            return
        try:
            data = yaml.load(source, Loader=_LineLoader)  # safe: a SafeLoader subclass
        except yaml.YAMLError as exc:
            self._yaml_error(exc)
            return
        if data is None or (isinstance(data, list) and not data):
            self.add(
                1, "-", "file holds no questions; add questions (a YAML list) or delete the file"
            )
            return
        if not isinstance(data, _Seq):
            line = getattr(data, "line", 1)
            self.add(
                line,
                "-",
                f"the file must be a YAML list of questions, got {_type_name(data)}; "
                "start each question with '- id: ...'",
            )
            return
        for index, item in enumerate(data):
            self._qid = "-"
            self._check_question(item, data.item_lines[index])

    def _yaml_error(self, exc: yaml.YAMLError) -> None:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        what = " ".join(
            str(part)
            for part in (getattr(exc, "context", None), getattr(exc, "problem", None))
            if part
        ) or str(exc)
        self.add(
            line,
            "-",
            f"YAML syntax error: {what}; fix the YAML (check indentation, and quote strings "
            "that contain ': ', ' #', or start with a special character like '*', '&', '[')",
        )

    # ---- one question

    def _check_question(self, item: object, item_line: int) -> None:
        if not isinstance(item, _Map):
            self.add(
                item_line,
                "-",
                f"a question must be a mapping (id: ..., topic: ..., ...), got {_type_name(item)}",
            )
            return
        raw_id = item.get("id")
        if isinstance(raw_id, str) and raw_id.strip():
            self._qid = raw_id.strip()
        before = len(self.problems)

        self._duplicate_keys(item, "")
        for key in item:
            if key not in ALLOWED_QUESTION_KEYS:
                self.add(
                    item.key_lines[key],
                    str(key),
                    f"unknown key {key!r}; {_suggest(key, ALLOWED_QUESTION_KEYS)}"
                    f"allowed keys: {', '.join(ALLOWED_QUESTION_KEYS)}",
                )
        for key in REQUIRED_QUESTION_KEYS:
            if key not in item:
                self.add(item.line, key, f"missing required field {key}; {_HOW_TO_FILL[key]}")

        qid = self._check_id(item)
        topic = self._check_topic(item)
        difficulty = self._check_difficulty(item)
        tags = self._check_tags(item)
        text = self._text(item, "text", "text", MAX_QUESTION_TEXT)
        choices = self._check_choices(item)
        explanation = self._text(item, "explanation", "explanation", MAX_EXPLANATION)
        source = self._string(item, "source", "source", MAX_SOURCE)

        if text is not None:
            self._remember_stem(item, text)
        if len(self.problems) != before:
            return
        assert qid is not None and topic is not None and difficulty is not None
        assert text is not None and choices is not None and explanation is not None
        assert source is not None and tags is not None
        self.questions.append(
            Question(
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
            )
        )

    def _duplicate_keys(self, mapping: _Map, prefix: str) -> None:
        for key, line in mapping.duplicates:
            self.add(
                line,
                f"{prefix}{key}",
                f"key {key!r} appears twice in the same mapping (YAML keeps only the last); "
                "delete one",
            )

    def _check_id(self, item: _Map) -> str | None:
        value = self._string(item, "id", "id", None)
        if value is None:
            return None
        line = item.key_lines["id"]
        ok = True
        if not ID_PATTERN.match(value):
            self.add(
                line,
                "id",
                f"id {value!r} has the wrong format; use lowercase letters, digits and '-', "
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
                f"duplicate id {value!r}, also used at {other[0]}:{other[1]}; ids must be "
                "unique across the bank: give this question a new id (never reuse an old one)",
            )
            ok = False
        else:
            self._ids[value] = (self._file, line)
        return value if ok else None

    def _check_topic(self, item: _Map) -> str | None:
        value = self._string(item, "topic", "topic", None)
        if value is None:
            return None
        if value not in TOPICS:
            self.add(
                item.key_lines["topic"],
                "topic",
                f"unknown topic {value!r}; {_suggest(value, TOPICS)}topics: {', '.join(TOPICS)}",
            )
            return None
        return value

    def _check_difficulty(self, item: _Map) -> int | None:
        if "difficulty" not in item:
            return None
        value = item["difficulty"]
        line = item.key_lines["difficulty"]
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(
                line,
                "difficulty",
                f"must be an integer 1, 2 or 3, got {_type_name(value)}",
            )
            return None
        if not 1 <= value <= 3:
            self.add(
                line,
                "difficulty",
                f"difficulty {value} is out of range; use 1 (recall), 2 (understanding) "
                "or 3 (worked numbers / subtle)",
            )
            return None
        return value

    def _check_tags(self, item: _Map) -> frozenset[str] | None:
        if "tags" not in item:
            return frozenset()
        value = item["tags"]
        line = item.key_lines["tags"]
        if not isinstance(value, _Seq):
            self.add(
                line,
                "tags",
                f"must be a list of short lowercase words, e.g. [starting], "
                f"got {_type_name(value)}",
            )
            return None
        tags: set[str] = set()
        ok = True
        for i, tag in enumerate(value):
            tag_line = value.item_lines[i]
            field = f"tags[{i}]"
            if not isinstance(tag, str):
                self.add(tag_line, field, f"a tag must be a string, got {_type_name(tag)}")
                ok = False
            elif not TAG_PATTERN.match(tag) or len(tag) > MAX_TAG_LENGTH:
                self.add(
                    tag_line,
                    field,
                    f"tag {tag!r} must be a short lowercase word ([a-z0-9-], at most "
                    f"{MAX_TAG_LENGTH} characters), e.g. 'starting'",
                )
                ok = False
            elif tag in tags:
                self.add(tag_line, field, f"tag {tag!r} is listed twice; delete one")
                ok = False
            else:
                tags.add(tag)
        return frozenset(tags) if ok else None

    def _check_choices(self, item: _Map) -> tuple[Choice, ...] | None:
        if "choices" not in item:
            return None
        value = item["choices"]
        line = item.key_lines["choices"]
        if not isinstance(value, _Seq):
            self.add(
                line,
                "choices",
                f"must be a list of {MIN_CHOICES}-{MAX_CHOICES} choices "
                f"(each '- text: {{tr: ..., en: ...}}'), got {_type_name(value)}",
            )
            return None
        ok = True
        if not MIN_CHOICES <= len(value) <= MAX_CHOICES:
            self.add(
                line,
                "choices",
                f"has {len(value)} choices; a question needs {MIN_CHOICES} to {MAX_CHOICES}: "
                + (
                    "add plausible wrong choices"
                    if len(value) < MIN_CHOICES
                    else "drop the weakest"
                ),
            )
            ok = False
        choices: list[Choice] = []
        seen_texts: dict[str, dict[str, int]] = {lang: {} for lang in LANGS}
        correct_at: list[int] = []
        for i, raw in enumerate(value):
            field = f"choices[{i}]"
            choice_line = value.item_lines[i]
            if not isinstance(raw, _Map):
                self.add(
                    choice_line,
                    field,
                    "a choice must be a mapping with text (and correct or feedback), "
                    f"got {_type_name(raw)}",
                )
                ok = False
                continue
            choice = self._check_choice(raw, field, seen_texts, i)
            if isinstance(raw.get("correct"), bool) and raw["correct"]:
                correct_at.append(i)
            if choice is None:
                ok = False
            else:
                choices.append(choice)
        unreadable = any(
            not isinstance(c, _Map) or not isinstance(c.get("correct", False), bool) for c in value
        )
        if not correct_at and value and not unreadable:
            self.add(
                line,
                "choices",
                "no choice is marked correct; add 'correct: true' to exactly one choice",
            )
            ok = False
        elif len(correct_at) > 1:
            names = [f"choices[{i}]" for i in correct_at]
            listed = ", ".join(names[:-1]) + " and " + names[-1]
            both = "both" if len(names) == 2 else "all"
            self.add(
                line,
                "choices",
                f"{listed} are {both} marked correct; keep 'correct: true' on exactly one "
                "(split the question if several answers are right)",
            )
            ok = False
        return tuple(choices) if ok else None

    def _check_choice(
        self,
        raw: _Map,
        field: str,
        seen_texts: dict[str, dict[str, int]],
        index: int,
    ) -> Choice | None:
        before = len(self.problems)
        self._duplicate_keys(raw, f"{field}.")
        for key in raw:
            if key not in ALLOWED_CHOICE_KEYS:
                self.add(
                    raw.key_lines[key],
                    f"{field}.{key}",
                    f"unknown key {key!r}; {_suggest(key, ALLOWED_CHOICE_KEYS)}"
                    f"allowed keys: {', '.join(ALLOWED_CHOICE_KEYS)}",
                )
        if "text" not in raw:
            self.add(
                raw.line,
                f"{field}.text",
                "missing required field text; add text: {tr: ..., en: ...}",
            )
        correct = False
        correct_known = True
        if "correct" in raw:
            if not isinstance(raw["correct"], bool):
                self.add(
                    raw.key_lines["correct"],
                    f"{field}.correct",
                    f"must be true or false, got {_type_name(raw['correct'])}; "
                    "write 'correct: true' on the right choice only",
                )
                correct_known = False
            else:
                correct = raw["correct"]
        text = self._text(raw, "text", f"{field}.text", MAX_CHOICE_TEXT) if "text" in raw else None
        feedback = None
        if "feedback" in raw:
            feedback = self._text(raw, "feedback", f"{field}.feedback", MAX_FEEDBACK)
        elif not correct and correct_known:
            self.add(
                raw.line,
                f"{field}.feedback",
                "missing: every wrong choice needs feedback saying why it is wrong "
                "(the misconception it reflects); add feedback: {tr: ..., en: ...}",
            )
        if text is not None:
            for lang in LANGS:
                folded = normalise(text.get(lang))
                lang_line = raw["text"].key_lines.get(lang, raw.line)
                if _is_catch_all(folded):
                    self.add(
                        lang_line,
                        f"{field}.text.{lang}",
                        f"{text.get(lang)!r} is an 'all/none of the above' choice; these test "
                        "test-taking, not understanding, and break when choices are shuffled: "
                        "write a specific plausible wrong answer instead",
                    )
                first = seen_texts[lang].get(folded)
                if first is not None:
                    self.add(
                        lang_line,
                        f"{field}.text.{lang}",
                        f"same text as choices[{first}] ({lang}); every choice must be "
                        "different: reword or remove one",
                    )
                else:
                    seen_texts[lang][folded] = index
        if len(self.problems) != before or text is None:
            return None
        return Choice(text=text, correct=correct, feedback=feedback)

    # ---- typed values

    def _string(self, parent: _Map, key: str, field: str, limit: int | None) -> str | None:
        """The stripped string at parent[key], or None after reporting why it isn't one."""
        if key not in parent:
            return None
        value = parent[key]
        line = parent.key_lines[key]
        if value is None or (isinstance(value, str) and not value.strip()):
            self.add(line, field, f"is empty; {_HOW_TO_FILL.get(key, 'write the text')}")
            return None
        if not isinstance(value, str):
            self.add(
                line,
                field,
                f"must be a string, got {_type_name(value)}; quote it if YAML read it as "
                "another type",
            )
            return None
        text = value.strip()
        if limit is not None and len(text) > limit:
            self.add(
                line,
                field,
                f"is {len(text)} characters, over the limit of {limit}; shorten it "
                "(Discord cuts longer text)",
            )
            return None
        return text

    def _text(self, parent: _Map, key: str, field: str, limit: int) -> Text | None:
        """A bilingual `Text` from parent[key], checking both languages and the limit."""
        if key not in parent:
            return None
        value = parent[key]
        line = parent.key_lines[key]
        if not isinstance(value, _Map):
            self.add(
                line,
                field,
                f'must be a mapping with both languages, e.g. {{tr: "...", en: "..."}}, '
                f"got {_type_name(value)}",
            )
            return None
        before = len(self.problems)
        self._duplicate_keys(value, f"{field}.")
        for lang_key in value:
            if lang_key not in LANGS:
                self.add(
                    value.key_lines[lang_key],
                    f"{field}.{lang_key}",
                    f"unknown language key {lang_key!r}; {_suggest(lang_key, LANGS)}"
                    "only tr and en are allowed",
                )
        strings: dict[str, str] = {}
        for lang in LANGS:
            if lang not in value:
                self.add(
                    line,
                    f"{field}.{lang}",
                    f"missing language {lang}; add '{lang}: ...' (every text needs both tr and en)",
                )
                continue
            text = self._string(value, lang, f"{field}.{lang}", limit)
            if text is not None:
                strings[lang] = text
        if len(self.problems) != before:
            return None
        return Text(tr=strings["tr"], en=strings["en"])

    # ---- cross-question checks

    def _remember_stem(self, item: _Map, text: Text) -> None:
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
        into one language is caught even if the other language differs.
        """
        for lang in LANGS:
            texts = [ref.normalised[lang] for ref in self._stems]
            for i, j, ratio in near_duplicate_pairs(texts):
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


#: What to write when a field is missing or empty.
_HOW_TO_FILL: dict[str, str] = {
    "id": "add a unique id like 'mlp-split-03' (lowercase, digits, '-')",
    "topic": f"add one of: {', '.join(TOPICS)}",
    "difficulty": "add 1 (recall), 2 (understanding) or 3 (worked numbers / subtle)",
    "text": "add the question stem as text: {tr: ..., en: ...}",
    "choices": f"add {MIN_CHOICES}-{MAX_CHOICES} choices, exactly one with correct: true",
    "explanation": "add explanation: {tr: ..., en: ...} stating why the right answer is right",
    "source": "cite the paper section or doc page the answer comes from, "
    "e.g. 'Shoeybi et al. 2019, Megatron-LM (arXiv:1909.08053), §3'",
    "tr": "write the Turkish text",
    "en": "write the English text",
}


# --------------------------------------------------------------------------- public API


def _bundled_dir() -> Path:
    """The installed `questions` directory.

    `importlib.resources` finds it when the `questions` package is installed (wheel or
    editable); otherwise it sits next to the `bot` package in a source checkout.
    """
    try:
        root = importlib.resources.files("questions")
    except ModuleNotFoundError:
        root = None
    if isinstance(root, Path) and root.is_dir():
        return root
    import bot

    return Path(bot.__file__).resolve().parents[1] / "questions"


def bundled_question_files() -> list[Path]:
    """The bank shipped with the bot: every `questions/*.yaml`, sorted by name."""
    directory = _bundled_dir()
    if not directory.is_dir():
        return []
    return sorted(directory.glob("*.yaml"))


def expand_paths(paths: Sequence[str | Path]) -> list[Path]:
    """Files as given; directories replaced by their `*.yaml` and `*.yml` files, sorted."""
    result: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = [p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()]
            result.extend(sorted(found))
        else:
            result.append(path)
    return result


def check_files(paths: Sequence[str | Path]) -> tuple[Bank | None, list[Problem]]:
    """Validate every file and return (bank, []) or (None, every problem found).

    All files are checked even after problems are found, so one run of `tpquiz validate`
    shows the author everything to fix, including cross-file duplicates.
    """
    files = expand_paths(paths)
    checker = _Checker()
    if not files:
        where = ", ".join(str(p) for p in paths) or "questions/"
        checker.problems.append(
            Problem(where, 1, "-", "-", "no question files (*.yaml) found; check the path")
        )
        return None, checker.problems
    for path in files:
        checker.check_file(path)
    checker.check_near_duplicates()
    if checker.problems:
        order = {_display(p): i for i, p in enumerate(files)}
        problems = sorted(checker.problems, key=lambda p: (order.get(p.file, len(order)), p.line))
        return None, problems
    return Bank.of(checker.questions), []


def load_bank(paths: Sequence[str | Path] | None = None) -> Bank:
    """The validated bank from `paths` (default: the bundled files); raises BankError."""
    bank, problems = check_files(bundled_question_files() if paths is None else paths)
    if bank is None:
        raise BankError(problems)
    return bank
