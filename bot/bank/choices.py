"""Checks of a question's choices: count, exactly one key, feedback, distinct texts.

`ChoiceChecker` adds the choice rules to the field checks; the question checker
(questions.py) builds on it. Catch-all choices ("all of the above") are refused
here because they test test-taking and break when the bot shuffles choices.
"""

from __future__ import annotations

import re

from bot.bank.fields import FieldChecker
from bot.bank.near_duplicates import normalise
from bot.bank.problems import shown, suggest, type_name
from bot.bank.yaml_lines import Map, Seq
from bot.quiz.model import LANGS, MAX_CHOICE_TEXT, MAX_CHOICES, MAX_FEEDBACK, MIN_CHOICES, Choice

__all__ = ["ALLOWED_CHOICE_KEYS", "ChoiceChecker"]

ALLOWED_CHOICE_KEYS: tuple[str, ...] = ("text", "correct", "feedback")

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


class ChoiceChecker(FieldChecker):
    """The choice rules, on top of the field checks."""

    def _check_choices(self, item: Map) -> tuple[Choice, ...] | None:
        if "choices" not in item:
            return None
        value = item["choices"]
        line = item.key_lines["choices"]
        if not isinstance(value, Seq):
            self.add(
                line,
                "choices",
                f"must be a list of {MIN_CHOICES}-{MAX_CHOICES} choices "
                f"(each '- text: {{tr: ..., en: ...}}'), got {type_name(value)}",
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
            if not isinstance(raw, Map):
                self.add(
                    choice_line,
                    field,
                    "a choice must be a mapping with text (and correct or feedback), "
                    f"got {type_name(raw)}",
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
            not isinstance(c, Map) or not isinstance(c.get("correct", False), bool) for c in value
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
        raw: Map,
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
                    f"{field}.{str(key)[:40]}",
                    f"unknown key {shown(key)}; {suggest(key, ALLOWED_CHOICE_KEYS)}"
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
                    f"must be true or false, got {type_name(raw['correct'])}; "
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
