"""Checks of single values in a question file: strings, bilingual texts, duplicate keys.

`FieldChecker` is the base of the question checker (questions.py): it collects
`Problem`s for the current file and question, and turns a YAML value into a stripped
string or a `Text` only when it is one, saying otherwise what is wrong and what to write.
"""

from __future__ import annotations

import unicodedata

from bot.bank.problems import Problem, shown, suggest, type_name
from bot.bank.yaml_lines import Map
from bot.quiz.model import LANGS, MAX_CHOICES, MIN_CHOICES, TOPICS, Text

__all__ = ["HOW_TO_FILL", "FieldChecker", "has_visible_character"]

#: What to write when a field is missing or empty.
HOW_TO_FILL: dict[str, str] = {
    "id": "add a unique id like 'mlp-split-03' (lowercase, digits, '-')",
    "topic": f"add one of: {', '.join(TOPICS)}",
    "difficulty": "add 1 (recall), 2 (understanding) or 3 (worked numbers / subtle)",
    "text": "add the question stem as text: {tr: ..., en: ...}",
    "choices": f"add {MIN_CHOICES}-{MAX_CHOICES} choices, exactly one with correct: true",
    "explanation": "add explanation: {tr: ..., en: ...} stating why the right answer is right",
    "source": "cite the paper section or doc page the answer comes from, "
    "e.g. 'Shoeybi et al. 2019, Megatron-LM (arXiv:1909.08053), 3'",
    "tr": "write the Turkish text",
    "en": "write the English text",
}

# Unicode categories that draw nothing: controls, format characters (zero-width space,
# U+202E), surrogates, private use, unassigned, separators and combining marks.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})
# Letters and symbols that render as blanks although their category says otherwise.
_BLANK_GLYPHS = frozenset("\u034f\u115f\u1160\u2800\u3164\uffa0\u180e")


def has_visible_character(text: str) -> bool:
    """True when at least one character of `text` draws something on screen."""
    return any(
        c not in _BLANK_GLYPHS and unicodedata.category(c) not in _INVISIBLE_CATEGORIES
        for c in text
    )


class FieldChecker:
    """Collects problems for one file at a time; the base of the question checker."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self._file = ""
        self._qid = "-"
        #: A server's own questions (issue 27) may be in one language: a text then needs
        #: only one of tr and en, and the languages each text had are kept in
        #: `languages_seen` (the question checker asks that all agree).
        self.one_language = False
        self.languages_seen: set[frozenset[str]] = set()

    def add(self, line: int, field: str, message: str) -> None:
        self.problems.append(Problem(self._file, line, self._qid, field, message))

    def _duplicate_keys(self, mapping: Map, prefix: str) -> None:
        for key, line in mapping.duplicates:
            self.add(
                line,
                f"{prefix}{key}",
                f"key {shown(key)} appears twice in the same mapping (YAML keeps only the "
                "last); delete one",
            )

    def _string(self, parent: Map, key: str, field: str, limit: int | None) -> str | None:
        """The stripped string at parent[key], or None after reporting why it isn't one."""
        if key not in parent:
            return None
        value = parent[key]
        line = parent.key_lines[key]
        if value is None or (isinstance(value, str) and not value.strip()):
            self.add(line, field, f"is empty; {HOW_TO_FILL.get(key, 'write the text')}")
            return None
        if not isinstance(value, str):
            self.add(
                line,
                field,
                f"must be a string, got {type_name(value)}; quote it if YAML read it as "
                "another type",
            )
            return None
        text = value.strip()
        if not has_visible_character(text):
            codes = ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(text[:50]))
            self.add(
                line,
                field,
                f"has no visible characters (only {codes[:120]}); "
                f"{HOW_TO_FILL.get(key, 'write the text')}",
            )
            return None
        if limit is not None and len(text) > limit:
            self.add(
                line,
                field,
                f"is {len(text)} characters, over the limit of {limit}; shorten it "
                "(Discord cuts longer text)",
            )
            return None
        return text

    def _text(self, parent: Map, key: str, field: str, limit: int) -> Text | None:
        """A bilingual `Text` from parent[key], checking both languages and the limit."""
        if key not in parent:
            return None
        value = parent[key]
        line = parent.key_lines[key]
        if not isinstance(value, Map):
            self.add(
                line,
                field,
                f'must be a mapping with both languages, e.g. {{tr: "...", en: "..."}}, '
                f"got {type_name(value)}",
            )
            return None
        before = len(self.problems)
        self._duplicate_keys(value, f"{field}.")
        for lang_key in value:
            if lang_key not in LANGS:
                self.add(
                    value.key_lines[lang_key],
                    f"{field}.{str(lang_key)[:40]}",
                    f"unknown language key {shown(lang_key)}; {suggest(lang_key, LANGS)}"
                    "only tr and en are allowed",
                )
        strings: dict[str, str] = {}
        present = [lang for lang in LANGS if lang in value]
        for lang in LANGS:
            if lang not in value and self.one_language and present:
                continue
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
        self.languages_seen.add(frozenset(strings))
        return Text(
            tr=strings.get("tr", strings.get("en", "")), en=strings.get("en", strings.get("tr", ""))
        )
