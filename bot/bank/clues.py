"""Clue checks: choices that give the key away without any tensor parallelism.

Issue 9 found the right choice was the longest in 77 % of the bank: a member who always
clicks the longest letter would top the leaderboard. Item-writing guidelines (Haladyna,
Downing and Rodriguez 2002) name the clues checked here, per language:

* length: the key more than `ERROR_LONGEST_RATIO` times the longest distractor is an
  error; the key more than `WARNING_MEAN_RATIO` times the mean distractor length is a
  warning naming the ratio (1.15 is the top of the bank-wide median target 0.85-1.15:
  one question above it is a hint, docs/questions.md), unless the key is fewer than
  `WARNING_MIN_EXCESS` characters longer than that mean (short numeric choices);
* the key repeating the stem's words when no distractor does (a "clang" clue);
* absolute words ("always", "never", "her zaman", "asla", "hiçbir zaman") only in
  distractors, which test-wise members learn to rule out.

The starting eight (tagged `starting`) are the original quiz, kept verbatim: exempt.
These are pure functions of a `Question`; the loader places findings at file:line.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.quiz.model import LANGS, STARTING_TAG, Lang, Question

__all__ = [
    "ABSOLUTE_WORDS",
    "ERROR_LONGEST_RATIO",
    "WARNING_MEAN_RATIO",
    "Clue",
    "clues",
    "is_exempt",
    "key_ratios",
]

ERROR_LONGEST_RATIO = 1.5
WARNING_MEAN_RATIO = 1.15
#: Below this many characters longer than the mean distractor, a key is not visibly
#: longer: with short choices ("1,75 GiB" against "7 GiB", a command-line flag) the
#: ratio swings past 1.15 on one digit or one word ending (docs/questions.md).
WARNING_MIN_EXCESS = 6

ABSOLUTE_WORDS: dict[Lang, tuple[str, ...]] = {
    "en": ("always", "never"),
    "tr": ("her zaman", "asla", "hiçbir zaman"),
}
_ABSOLUTE = {
    lang: re.compile(r"(?<!\w)(" + "|".join(map(re.escape, words)) + r")(?!\w)", re.IGNORECASE)
    for lang, words in ABSOLUTE_WORDS.items()
}

# Words too common to be a clue; stems are compared on their first `_STEM` letters so
# that Turkish suffixes ("katman", "katmanın", "katmanlar") and English plurals agree.
_STEM = 6
_MIN_WORD = 4
_COMMON = frozenset(
    {
        # en
        "that", "this", "with", "from", "each", "which", "what", "when", "does", "have",
        "into", "than", "then", "they", "their", "there", "only", "both", "same", "more",
        "most", "many", "much", "some", "such", "over", "also", "about", "used", "uses",
        "using", "after", "before", "where", "while", "would", "could", "should", "other",
        "every", "between", "because",
        # tr
        "için", "olan", "gibi", "daha", "hangi", "neden", "nasıl", "kadar", "sonra",
        "önce", "bunu", "buna", "şekilde", "olarak", "değil", "aynı", "yalnızca", "sadece",
        "tüm", "her", "bir", "iki", "olur", "eder", "ederek", "yapar", "arasında",
    }
)  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@dataclass(frozen=True)
class Clue:
    """One clue found in one language: `field` is a path such as `choices[2].text.en`."""

    severity: Literal["error", "warning"]
    lang: Lang
    field: str
    message: str


def is_exempt(question: Question) -> bool:
    """The starting eight stay as the original quiz wrote them."""
    return STARTING_TAG in question.tags


def key_ratios(question: Question, lang: Lang) -> tuple[float, float]:
    """(key / mean distractor length, key / longest distractor length) in `lang`."""
    key, mean, longest = _lengths(question, lang)
    return key / mean, key / longest


def _lengths(question: Question, lang: Lang) -> tuple[int, float, int]:
    key = next(len(c.text.get(lang)) for c in question.choices if c.correct)
    others = [len(c.text.get(lang)) for c in question.choices if not c.correct]
    # sum / len: the same float as statistics.mean for ints, at a tenth of the cost
    return key, sum(others) / len(others), max(others)


def clues(question: Question) -> list[Clue]:
    """Every clue in `question`, both languages; none for an exempt question."""
    if is_exempt(question) or not any(not c.correct for c in question.choices):
        return []
    found: list[Clue] = []
    for lang in LANGS:
        found += _length_clues(question, lang)
        found += _stem_word_clues(question, lang)
        found += _absolute_clues(question, lang)
    return found


def _length_clues(question: Question, lang: Lang) -> list[Clue]:
    mean_ratio, longest_ratio = key_ratios(question, lang)
    if longest_ratio > ERROR_LONGEST_RATIO:
        return [
            Clue(
                "error",
                lang,
                "choices",
                f"the right choice is {longest_ratio:.2f}x as long as the longest wrong one "
                f"({lang}); over {ERROR_LONGEST_RATIO}x length gives the answer away: move "
                "the justification into the explanation, or make the wrong choices as specific",
            )
        ]
    key, mean, _ = _lengths(question, lang)
    if mean_ratio > WARNING_MEAN_RATIO and key - mean >= WARNING_MIN_EXCESS:
        return [
            Clue(
                "warning",
                lang,
                "choices",
                f"the right choice is {mean_ratio:.2f}x the mean length of the wrong ones "
                f"({lang}), above {WARNING_MEAN_RATIO}; balance the choices' length and detail",
            )
        ]
    return []


def _content_stems(text: str) -> set[str]:
    words = (w.casefold().replace("ı", "i") for w in _WORD.findall(text))
    return {w[:_STEM] for w in words if len(w) >= _MIN_WORD and w not in _COMMON}


def _stem_word_clues(question: Question, lang: Lang) -> list[Clue]:
    stem = _content_stems(question.text.get(lang))
    shared = [stem & _content_stems(c.text.get(lang)) for c in question.choices]
    key = next(i for i, c in enumerate(question.choices) if c.correct)
    if not shared[key] or any(s for i, s in enumerate(shared) if i != key):
        return []
    words = ", ".join(sorted(shared[key])[:5])
    return [
        Clue(
            "warning",
            lang,
            f"choices[{key}].text.{lang}",
            f"only the right choice repeats words of the stem ({words}); reword it, or let "
            "a wrong choice use them too",
        )
    ]


def _absolute_clues(question: Question, lang: Lang) -> list[Clue]:
    pattern = _ABSOLUTE[lang]
    hits = [pattern.search(c.text.get(lang)) for c in question.choices]
    key = next(i for i, c in enumerate(question.choices) if c.correct)
    if hits[key] is not None:
        return []
    return [
        Clue(
            "warning",
            lang,
            f"choices[{i}].text.{lang}",
            f"absolute word {match.group(0)!r} appears only in wrong choices, which test-wise "
            "members rule out unread; qualify it, or word the right choice as firmly",
        )
        for i, match in enumerate(hits)
        if match is not None
    ]


def median(values: Sequence[float]) -> float:
    """The median of `values` (0.0 for none), for the bank-wide figures."""
    return statistics.median(values) if values else 0.0
