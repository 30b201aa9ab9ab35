"""A server's own questions (issue 27): their stored form, versions, settings and limits.

Why here, pure: the storage keeps a server's question as one JSON document in the bank's
model (`encode`/`decode`), the services pick from it and the UI renders it, and all three
must read it the same way without knowing the database or Discord. A server question
may be written in one language only: `languages` says which, and `decode` fills the
other language with the same text so that every renderer finds both (the UI adds a
one-line note when a member's language is missing).

Ids are the server's own (the bank's id format), and each upload of an id a server
already has makes a new version: the answers, cards and item statistics of a version
name it by `runtime_id` (`id@version`), so earlier answers keep pointing at the version
they answered and a new version's statistics start afresh.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from bot.quiz.model import LANGS, Choice, Lang, Question, Text
from bot.quiz.suggestions import credit_text

__all__ = [
    "DEFAULT_DAILY_SHARE",
    "DRAWS",
    "MAX_SERVER_QUESTIONS",
    "MAX_UPLOAD_BYTES",
    "MAX_UPLOAD_QUESTIONS",
    "ONLY_TAGS",
    "BankSettings",
    "Draw",
    "OwnQuestion",
    "PutResult",
    "decode",
    "encode",
    "languages_of",
    "only_language",
    "parse_runtime_id",
    "runtime_id",
]

#: The limits of issue 27: an uploaded file's size, its questions, a server's questions.
MAX_UPLOAD_BYTES = 1024 * 1024
MAX_UPLOAD_QUESTIONS = 500
MAX_SERVER_QUESTIONS = 2000

Draw = Literal["both", "own", "bundled"]
#: What a server draws its questions from: the bundled bank and its own (the default),
#: its own only, or the bundled bank only.
DRAWS: tuple[Draw, ...] = ("both", "own", "bundled")
#: The share (percent) of the server's own questions in its daily posts, by default.
DEFAULT_DAILY_SHARE = 50

_SEPARATOR = "@"
#: The tag `decode` gives a question written in one language, so that whoever renders it
#: can say so to a member of the other language (bot/ui/render.py); never stored.
ONLY_TAGS: dict[Lang, str] = {"tr": "only-tr", "en": "only-en"}


@dataclass(frozen=True, slots=True)
class BankSettings:
    draw: Draw = "both"
    daily_share: int = DEFAULT_DAILY_SHARE


@dataclass(frozen=True, slots=True)
class OwnQuestion:
    """One version of a server's question, as stored."""

    guild_id: int
    #: The server's id for the question (the bank's id format).
    question_id: str
    version: int
    languages: tuple[Lang, ...]
    #: The question itself; its `id` is `runtime_id(question_id, version)`.
    question: Question
    created_at: int
    retired_at: int | None = None
    #: A question accepted from a member's suggestion is credited to them: `credited`,
    #: and their display name (None once they asked to be forgotten: "a member"). Kept
    #: out of the stored body, so forgetting clears the name only.
    credited: bool = False
    credit_name: str | None = None

    @property
    def retired(self) -> bool:
        return self.retired_at is not None

    @property
    def shown(self) -> Question:
        """The question as posts show it: a credited one's source names its author
        (bot/quiz/suggestions.py `credited_source`); `question` stays as stored (what an
        export writes back)."""
        if not self.credited:
            return self.question
        return credit_text(self.question, self.credit_name, self.languages[0])


@dataclass(frozen=True, slots=True)
class PutResult:
    """What an upload stored: the ids added and replaced (a new version), or, when the
    server would pass `MAX_SERVER_QUESTIONS`, nothing and the total it would have had."""

    added: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    refused_total: int | None = None


def runtime_id(question_id: str, version: int) -> str:
    """The id answers, posts and cards record for one version of a server question."""
    return f"{question_id}{_SEPARATOR}{version}"


def parse_runtime_id(value: str) -> tuple[str, int] | None:
    """(id, version) of a server question's runtime id; None for a bundled question's."""
    head, sep, tail = value.rpartition(_SEPARATOR)
    if not sep or not head or not tail.isdigit():
        return None
    return head, int(tail)


def _text(text: Text, languages: tuple[Lang, ...]) -> dict[str, str]:
    return {lang: text.get(lang) for lang in languages}


def encode(question: Question, languages: tuple[Lang, ...]) -> str:
    """The question as stored: the bank's fields, in `languages` only (JSON)."""
    body: dict[str, Any] = {
        "topic": question.topic,
        "difficulty": question.difficulty,
        "tags": sorted(question.tags - set(ONLY_TAGS.values())),
        "text": _text(question.text, languages),
        "choices": [
            {
                "text": _text(c.text, languages),
                "correct": c.correct,
                "feedback": None if c.feedback is None else _text(c.feedback, languages),
            }
            for c in question.choices
        ],
        "explanation": _text(question.explanation, languages),
        "source": question.source,
    }
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def _both(value: dict[str, str]) -> Text:
    """A stored text as a `Text`: a missing language gets the other's words."""
    present = [lang for lang in LANGS if lang in value]
    tr = value.get("tr", value[present[0]])
    en = value.get("en", value[present[0]])
    return Text(tr=tr, en=en)


def only_language(question: Question) -> Lang | None:
    """The one language a server's question is written in; None for one in both."""
    return next((lang for lang, tag in ONLY_TAGS.items() if tag in question.tags), None)


def decode(body: str, question_id: str) -> Question:
    """A stored question (`encode`'s JSON) as a `Question` named `question_id`; one in a
    single language carries that language's `ONLY_TAGS` tag."""
    data = json.loads(body)
    present = [lang for lang in LANGS if lang in data["text"]]
    only = {ONLY_TAGS[present[0]]} if len(present) == 1 else set()
    return Question(
        id=question_id,
        topic=data["topic"],
        difficulty=int(data["difficulty"]),
        text=_both(data["text"]),
        choices=tuple(
            Choice(
                text=_both(c["text"]),
                correct=bool(c["correct"]),
                feedback=None if c["feedback"] is None else _both(c["feedback"]),
            )
            for c in data["choices"]
        ),
        explanation=_both(data["explanation"]),
        source=data["source"],
        tags=frozenset(data.get("tags", ())) | only,
    )


def languages_of(value: str) -> tuple[Lang, ...]:
    """The stored `languages` column ('tr', 'en' or 'tr,en') as a tuple in LANGS order."""
    found = set(value.split(","))
    return tuple(lang for lang in LANGS if lang in found)
