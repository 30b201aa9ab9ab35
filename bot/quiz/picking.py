"""Which question to post, and in which order its choices appear.

The random source is passed in, so tests fix it and production uses `random.Random()`.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

from bot.quiz.model import Bank, Question


class NoQuestions(LookupError):
    """The bank has no question for the requested topic."""


def shuffled_order(n_choices: int, rng: random.Random) -> tuple[int, ...]:
    """A permutation of choice indexes: position i on the post shows choice order[i].

    Shuffling per post means the right answer is not always the same letter.
    """
    order = list(range(n_choices))
    rng.shuffle(order)
    return tuple(order)


def pick_question(
    bank: Bank,
    rng: random.Random,
    *,
    topic: str | None = None,
    recent: Sequence[str] = (),
    exclude_tags: Collection[str] = (),
) -> Question:
    """A random question of `topic`, avoiding the server's recent posts where possible.

    `recent` lists question ids posted lately, newest first; the oldest of them become
    eligible again when every candidate was posted recently.
    """
    candidates = [q for q in bank.by_topic(topic) if not (q.tags & set(exclude_tags))]
    if not candidates:
        candidates = bank.by_topic(topic)
    if not candidates:
        raise NoQuestions(topic or "")
    recent_rank = {qid: i for i, qid in enumerate(recent)}
    fresh = [q for q in candidates if q.id not in recent_rank]
    if fresh:
        return rng.choice(fresh)
    # Everything was posted lately: take the one posted longest ago.
    return max(candidates, key=lambda q: recent_rank[q.id])
