"""The question bank's data model.

These types are what every other layer sees of a question: the loader builds them from
YAML, the domain rules read them, the Discord glue renders them. They are frozen so a
loaded bank can be shared by every coroutine without copies or locks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

Lang = Literal["tr", "en"]
LANGS: tuple[Lang, ...] = ("tr", "en")

#: Topic names a question may use (issue #4); the loader rejects any other.
TOPICS: tuple[str, ...] = (
    "basics",
    "mlp-split",
    "attention-split",
    "collectives",
    "comm-cost",
    "embeddings",
    "sequence-parallel",
    "memory",
    "3d-parallelism",
    "vs-other-parallelism",
    "practice",
    "overlap",
    "rng-and-dropout",
    "inference",
    "context-parallel",
    "moe-parallel",
    "fp8",
    "dtensor",
    "checkpoint-resharding",
    "determinism",
)

#: Tag carried by the eight questions of the original quiz, run by `/tpquiz test`.
STARTING_TAG = "starting"

# Length limits, chosen so that every rendered string stays inside Discord's limits
# (embed description 4096, field value 1024, footer 2048) with room for decoration.
MAX_QUESTION_TEXT = 900
MAX_CHOICE_TEXT = 300
MAX_EXPLANATION = 1000
MAX_FEEDBACK = 500
MAX_SOURCE = 300
MIN_CHOICES = 2
MAX_CHOICES = 5

LETTERS = "ABCDE"


def in_topic_order(topics: Iterable[str]) -> list[str]:
    """`topics` in the canonical order of TOPICS (the bank's teaching order), any other
    after them by name: the order of every per-topic list a member reads."""
    present = set(topics)
    return [t for t in TOPICS if t in present] + sorted(present - set(TOPICS))


def lang_for_locale(locale: str | None) -> Lang:
    """Turkish for a Turkish client, English for every other locale."""
    return "tr" if locale and str(locale).lower().startswith("tr") else "en"


@dataclass(frozen=True, slots=True)
class Text:
    """One string in both languages."""

    tr: str
    en: str

    def get(self, lang: Lang) -> str:
        return self.tr if lang == "tr" else self.en


@dataclass(frozen=True, slots=True)
class Choice:
    text: Text
    correct: bool = False
    feedback: Text | None = None


@dataclass(frozen=True, slots=True)
class FigureRef:
    """A picture a question names: a drawing function of the bank's code (by name, never
    a file's code), its alt text in both languages, and, for a computed question, the
    values drawn for the post, so that the picture shows the very numbers asked about."""

    name: str
    alt: Text
    params: tuple[tuple[str, Fraction], ...] = ()


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    topic: str
    difficulty: int
    text: Text
    choices: tuple[Choice, ...]
    explanation: Text
    source: str
    tags: frozenset[str] = frozenset()
    #: Where the question was read from, for error messages; "" when built in code.
    file: str = ""
    line: int = 0
    #: Shown with the question (it must not give the key away) and with the explanation.
    figure: FigureRef | None = None
    explanation_figure: FigureRef | None = None

    @property
    def correct_index(self) -> int:
        """Index (in file order) of the one correct choice."""
        for i, choice in enumerate(self.choices):
            if choice.correct:
                return i
        raise ValueError(f"question {self.id} has no correct choice")


@dataclass(frozen=True)
class Bank:
    """A validated, immutable set of questions with lookups by id and topic."""

    questions: tuple[Question, ...]
    _by_id: dict[str, Question] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {q.id: q for q in self.questions})

    @classmethod
    def of(cls, questions: Iterable[Question]) -> Bank:
        return cls(tuple(questions))

    def __len__(self) -> int:
        return len(self.questions)

    def __iter__(self) -> Iterator[Question]:
        return iter(self.questions)

    def __contains__(self, question_id: object) -> bool:
        return question_id in self._by_id

    def get(self, question_id: str) -> Question | None:
        return self._by_id.get(question_id)

    def __getitem__(self, question_id: str) -> Question:
        return self._by_id[question_id]

    def topics(self) -> list[str]:
        """Topics present in the bank, in the canonical order of TOPICS."""
        return in_topic_order({q.topic for q in self.questions})

    def by_topic(self, topic: str | None) -> list[Question]:
        if topic is None:
            return list(self.questions)
        return [q for q in self.questions if q.topic == topic]

    def tagged(self, tag: str) -> list[Question]:
        """Questions carrying `tag`, ordered by id (the starting quiz's order)."""
        return sorted((q for q in self.questions if tag in q.tags), key=lambda q: q.id)
