"""Which questions a member's review round brings, and what its summary says.

A round is up to `ROUND_SIZE` questions: the member's due cards, most overdue first; when
fewer are due, questions they have never answered fill it, from their weakest topics
first. A question is never twice in a round. Pure: the caller passes the cards' due
times, what the member answered per topic, the pool, the instant and the random source.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bot.quiz.memory import DAY_MS
from bot.quiz.model import Bank
from bot.quiz.scoring import accuracy

ROUND_SIZE = 10


def topic_order(per_topic: Mapping[str, tuple[int, int]], topics: Sequence[str]) -> list[str]:
    """`topics` weakest first: answered topics with misses by accuracy (fewer answers
    first on a tie), then topics never answered, then topics answered without a miss.

    `per_topic` maps topic -> (answered, correct), as `MemberStats.per_topic`.
    """

    def key(topic: str) -> tuple[int, float, int, str]:
        answered, correct = per_topic.get(topic, (0, 0))
        if answered == 0:
            return (1, 0.0, 0, topic)
        if correct >= answered:
            return (2, 1.0, answered, topic)
        return (0, accuracy(correct, answered), answered, topic)

    return sorted(topics, key=key)


def pick_round(
    *,
    due: Sequence[tuple[str, int]],
    answered: Collection[str],
    per_topic: Mapping[str, tuple[int, int]],
    pool: Bank,
    now_ms: int,
    rng: random.Random,
    size: int = ROUND_SIZE,
) -> list[str]:
    """The question ids of a new round, in the order they are asked.

    `due` holds (question id, due ms) of the member's cards (any order; those not due
    at `now_ms` are ignored, as are ids no longer in `pool`); `answered` every question
    id the member has a card for.
    """
    overdue = sorted((at, qid) for qid, at in due if at <= now_ms and qid in pool)
    chosen: list[str] = []
    for _, qid in overdue:
        if qid not in chosen:
            chosen.append(qid)
        if len(chosen) >= size:
            return chosen
    seen = set(answered) | set(chosen)
    for topic in topic_order(per_topic, pool.topics()):
        fresh = [q for q in pool.by_topic(topic) if q.id not in seen]
        # Easier questions first within a topic; the random source breaks ties.
        rng.shuffle(fresh)
        fresh.sort(key=lambda q: q.difficulty)
        for question in fresh:
            chosen.append(question.id)
            seen.add(question.id)
            if len(chosen) >= size:
                return chosen
    return chosen


@dataclass(frozen=True, slots=True)
class Outlook:
    """What is coming: cards due within a day and within a week, and the next due time."""

    tomorrow: int
    week: int
    next_due_ms: int | None


def outlook(due_times: Sequence[int], now_ms: int) -> Outlook:
    """Counted over the member's card due times, strictly after `now_ms`."""
    later = [at for at in due_times if at > now_ms]
    return Outlook(
        tomorrow=sum(1 for at in later if at <= now_ms + DAY_MS),
        week=sum(1 for at in later if at <= now_ms + 7 * DAY_MS),
        next_due_ms=min(later) if later else None,
    )
