"""Members' suggested questions (issue 27): their states, the modal's text, the question.

Why here, pure: the modal a member fills in (`/tpquiz suggest`), the review buttons and
the storage all speak of one suggestion the same way: which states it passes through and
who may move it, how the wrong-answer lines are read, and what question an accepted one
becomes. None of that needs Discord or the database, so each rule is a function a test
can call.

A suggestion's life::

    draft --(resubmitted without problems)--> open
    open --(moderator)--> accepted | rejected | changes
    changes --(author resubmits without problems)--> open

`draft` keeps a member's text that had problems (so nothing typed is lost: the modal
reopens prefilled from it); `changes` is "asked for changes", which the author edits and
resubmits as the same suggestion. `open` and `changes` count toward the limit of
`MAX_OPEN` per member; `accepted` and `rejected` are final, decided once.

The wrong answers come in one text box, one per line, each with why it is wrong:
``wrong answer | why it is wrong`` (the bank wants every wrong choice explained).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from bot.quiz.model import (
    MAX_CHOICE_TEXT,
    MAX_EXPLANATION,
    MAX_FEEDBACK,
    MAX_QUESTION_TEXT,
    MAX_SOURCE,
    Lang,
    Question,
)

__all__ = [
    "ACTIVE",
    "CREDIT",
    "DECIDED",
    "DEFAULT_DIFFICULTY",
    "DEFAULT_TOPIC",
    "FIELD_LIMITS",
    "MAX_OPEN",
    "MAX_REASON",
    "MAX_WRONG",
    "SEPARATOR",
    "Draft",
    "DraftProblem",
    "Outcome",
    "Saved",
    "State",
    "Suggestion",
    "WrongLine",
    "can_decide",
    "can_resubmit",
    "credit_text",
    "credited_source",
    "draft_problems",
    "parse_wrong",
    "plain",
    "question_id_of",
    "to_question",
]

State = Literal["draft", "open", "changes", "accepted", "rejected"]
#: What a moderator decides: accept (as written or edited), ask for changes, reject.
Outcome = Literal["accepted", "changes", "rejected"]
#: The states that count toward a member's limit.
ACTIVE: tuple[State, ...] = ("open", "changes")
#: The final states.
DECIDED: tuple[State, ...] = ("accepted", "rejected")

#: Open suggestions (open or asked for changes) a member may have in a server.
MAX_OPEN = 5
#: Wrong answers a suggestion may have (the bank's 5 choices less the right one).
MAX_WRONG = 4
#: A moderator's reason for asking for changes or rejecting.
MAX_REASON = 500
SEPARATOR = "|"
DEFAULT_TOPIC = "practice"
DEFAULT_DIFFICULTY = 2

#: The longest text each modal field takes (the modal's `max_length`): the bank's limits,
#: and for the wrong answers four lines of a choice, the separator and its feedback.
FIELD_LIMITS: dict[str, int] = {
    "text": MAX_QUESTION_TEXT,
    "right": MAX_CHOICE_TEXT,
    "wrong": MAX_WRONG * (MAX_CHOICE_TEXT + MAX_FEEDBACK + 4),
    "explanation": MAX_EXPLANATION,
    "source": MAX_SOURCE,
}

#: The credit an accepted suggestion's source line ends with, in the question's language
#: (`credited_source`); a forgotten author is shown as "a member".
CREDIT: dict[Lang, tuple[str, str]] = {
    "tr": ("öneren: {name}", "bir üye"),
    "en": ("suggested by {name}", "a member"),
}


@dataclass(frozen=True, slots=True)
class Draft:
    """What the modal holds, exactly as typed (kept so the modal reopens prefilled)."""

    text: str
    right: str
    wrong: str
    explanation: str
    source: str

    def fields(self) -> dict[str, str]:
        return {
            "text": self.text,
            "right": self.right,
            "wrong": self.wrong,
            "explanation": self.explanation,
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One suggestion as stored."""

    id: int
    guild_id: int
    user_id: int
    #: The author's display name when they last submitted it (the credit's name).
    author_name: str
    language: Lang
    draft: Draft
    state: State
    created_at: int
    updated_at: int
    decided_at: int | None = None
    reviewer_id: int | None = None
    reason: str | None = None
    #: The server question an accepted suggestion became.
    question_id: str | None = None
    #: Where the review channel's post about it is (channel, message), if posted.
    post: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Saved:
    """What a submission stored: the suggestion, or why nothing was (`limit`: the member
    has `MAX_OPEN` open already; `gone`: no such suggestion of theirs that may be
    edited, e.g. decided meanwhile)."""

    suggestion: Suggestion | None
    refused: Literal["limit", "gone"] | None = None


@dataclass(frozen=True, slots=True)
class WrongLine:
    text: str
    why: str


@dataclass(frozen=True, slots=True)
class DraftProblem:
    """A problem with what was typed: the modal field, an i18n key and its values (the
    bank's own checks give an English `message` instead of a key)."""

    field: str
    key: str
    params: tuple[tuple[str, object], ...] = ()
    message: str | None = None


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def parse_wrong(text: str) -> tuple[list[WrongLine], list[DraftProblem]]:
    """The wrong answers of the modal's box: one per non-empty line, `answer | why`.
    Only the first `|` separates (an explanation may hold more)."""
    found: list[WrongLine] = []
    problems: list[DraftProblem] = []
    lines = _lines(text)
    if not lines:
        return [], [DraftProblem("wrong", "suggest_no_wrong")]
    if len(lines) > MAX_WRONG:
        problems.append(DraftProblem("wrong", "suggest_too_many_wrong", (("n", len(lines)),)))
    for number, line in enumerate(lines, 1):
        answer, sep, why = line.partition(SEPARATOR)
        answer, why = answer.strip(), why.strip()
        if not sep or not why:
            problems.append(DraftProblem("wrong", "suggest_no_why", (("line", number),)))
        elif not answer:
            problems.append(DraftProblem("wrong", "suggest_empty_wrong", (("line", number),)))
        else:
            found.append(WrongLine(answer, why))
    return found, problems


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def draft_problems(draft: Draft) -> list[DraftProblem]:
    """What the modal's text must satisfy before the bank's checks can read it: every
    field filled (the source too), within its length, the wrong answers parseable and
    all choices different."""
    problems: list[DraftProblem] = []
    for name, value in draft.fields().items():
        if not value.strip():
            if name != "wrong":
                problems.append(DraftProblem(name, "suggest_empty"))
        elif len(value) > FIELD_LIMITS[name]:
            problems.append(
                DraftProblem(
                    name, "suggest_too_long", (("n", len(value)), ("limit", FIELD_LIMITS[name]))
                )
            )
    if "\n" in draft.right.strip():
        problems.append(DraftProblem("right", "suggest_one_line"))
    wrong, found = parse_wrong(draft.wrong)
    problems += found
    seen = {_key(draft.right)}
    for number, line in enumerate(wrong, 1):
        if _key(line.text) in seen:
            problems.append(DraftProblem("wrong", "suggest_duplicate", (("line", number),)))
        seen.add(_key(line.text))
    return problems


def question_id_of(suggestion_id: int) -> str:
    """The server question id an accepted suggestion becomes (the bank's id format)."""
    return f"suggestion-{suggestion_id}"


def to_question(
    draft: Draft,
    question_id: str,
    lang: Lang,
    *,
    topic: str = DEFAULT_TOPIC,
    difficulty: int = DEFAULT_DIFFICULTY,
) -> dict[str, object]:
    """The draft as one question of the bank's YAML format, written in `lang` only (what
    the upload's checks read: bot/bank/suggestion_check.py). The right answer comes
    first; posts shuffle the choices."""
    wrong, _ = parse_wrong(draft.wrong)
    choices: list[dict[str, object]] = [{"text": {lang: draft.right.strip()}, "correct": True}]
    choices += [{"text": {lang: w.text}, "feedback": {lang: w.why}} for w in wrong]
    return {
        "id": question_id,
        "topic": topic,
        "difficulty": difficulty,
        "text": {lang: draft.text.strip()},
        "choices": choices,
        "explanation": {lang: draft.explanation.strip()},
        "source": " ".join(draft.source.split()),
    }


def can_decide(state: State) -> bool:
    """A moderator decides an open suggestion only (once: the storage's conditional
    update makes the second click find it decided)."""
    return state == "open"


def can_resubmit(state: State) -> bool:
    """The author may edit and resubmit a draft or one asked for changes."""
    return state in ("draft", "changes")


_MARKDOWN = re.compile(r"([\\*_~`|>\[\]()#<:-])")


def plain(text: str) -> str:
    """A member's words made inert for Discord: markdown characters escaped, mentions
    (`@everyone`, `<@id>`) broken, one line. For the credit's name, which is rendered
    inside question posts (bot/ui escapes everything else itself)."""
    one_line = " ".join(text.split())
    return _MARKDOWN.sub(r"\\\1", one_line).replace("@", "@\u200b")


def credited_source(source: str, name: str | None, lang: Lang) -> str:
    """An accepted suggestion's source line: its source, then who suggested it (never a
    ping: `plain`), or "a member" once the author asked to be forgotten."""
    template, anonymous = CREDIT[lang]
    who = plain(name) if name else anonymous
    return f"{source} · {template.format(name=who)}"


def credit_text(question: Question, name: str | None, lang: Lang) -> Question:
    """`question` with its source credited (`credited_source`)."""
    return replace(question, source=credited_source(question.source, name, lang))
