"""What a member remembers of each question: one FSRS card per member and question.

The scheduling is the `fsrs` package's (the open-spaced-repetition scheduler that Anki
uses); this module only decides how tpquiz feeds it and keeps its state in plain numbers
the storage layer can write. No I/O, no clock of its own: every call takes the instant.

Choices made here, and why:

- Rating: a wrong answer is Again and a right one Good. A quiz click says nothing about
  how hard recall felt, so Hard and Easy are never used.
- No learning steps and no fuzzing. Learning steps (minutes) suit a deck studied in one
  sitting; a member meets a question here at most a few times a day, so the first answer
  goes straight to day intervals (wrong: tomorrow, right: two days, then longer). Fuzzing
  would draw random numbers inside the scheduler, and the project passes randomness in.
- `reps` and `lapses` are counted here (fsrs 6 dropped them from its card): every answer
  is a rep; a wrong answer to a card already in review is a lapse.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from fsrs import Card, Rating, Scheduler, State

#: One scheduler for every card; it holds only parameters, so sharing it is safe.
SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)

DAY_MS = 86_400_000


def rating_for(*, correct: bool) -> Rating:
    """wrong -> Again, right -> Good (see the module docstring)."""
    return Rating.Good if correct else Rating.Again


@dataclass(frozen=True, slots=True)
class CardState:
    """A card as stored: FSRS's fields plus tpquiz's counts. Times in Unix ms UTC."""

    state: int
    step: int | None
    stability: float
    difficulty: float
    due_ms: int
    last_review_ms: int
    reps: int
    lapses: int


def _instant(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def _ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


def _fsrs_card(card: CardState | None, now_ms: int) -> Card:
    if card is None:
        # card_id is fsrs's own bookkeeping; fixed so creating a card never sleeps.
        return Card(card_id=1, state=State.Learning, due=_instant(now_ms))
    return Card(
        card_id=1,
        state=State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=_instant(card.due_ms),
        last_review=_instant(card.last_review_ms),
    )


def review(card: CardState | None, *, correct: bool, now_ms: int) -> CardState:
    """The card after one answer at `now_ms` (None: the member's first answer)."""
    before = _fsrs_card(card, now_ms)
    after, _ = SCHEDULER.review_card(
        before, rating_for(correct=correct), review_datetime=_instant(now_ms)
    )
    assert after.stability is not None and after.difficulty is not None
    lapsed = card is not None and not correct and card.state == State.Review.value
    return CardState(
        state=after.state.value,
        step=after.step,
        stability=after.stability,
        difficulty=after.difficulty,
        due_ms=_ms(after.due),
        last_review_ms=now_ms,
        reps=(card.reps if card else 0) + 1,
        lapses=(card.lapses if card else 0) + int(lapsed),
    )


def replay(answers: list[tuple[bool, int]]) -> CardState:
    """The card after a history of (correct, answered_at ms) answers, oldest first."""
    if not answers:
        raise ValueError("a card needs at least one answer")
    card: CardState | None = None
    for correct, at in answers:
        card = review(card, correct=correct, now_ms=at)
    assert card is not None
    return card


def retrievability(card: CardState, now_ms: int) -> float:
    """FSRS's estimate (0..1) that the member would answer the card right at `now_ms`."""
    return float(SCHEDULER.get_card_retrievability(_fsrs_card(card, now_ms), _instant(now_ms)))


def mean_retrievability(cards: list[CardState], now_ms: int) -> float | None:
    """The retention estimate over a member's cards; None when they have none."""
    if not cards:
        return None
    return sum(retrievability(c, now_ms) for c in cards) / len(cards)
