"""Quiz night (`/tpquiz live`, issue 26): the rules of a timed session the channel plays.

Pure: no Discord, no database; the clock is passed in as milliseconds and the random
source as a `random.Random`, so every rule here is tested with fixed values
(tests/quiz/test_live_rules.py). The service (bot/services/live.py) keeps the session's
state in the database and asks these functions what follows from it:

- the settings a host may choose and their limits (`validate_settings`), and the seconds
  a question gets when the host chose none (`auto_seconds`: a worked-number question
  cannot be read in 10 s, so never under 20);
- the points of an answer (`points_for`): +1 per right answer for `accuracy`, Kahoot's
  500 to 1,000 by speed for `speed`;
- when a question is revealed (`reveal_reason`): at the deadline, as soon as every
  joined player answered, or when the host says so;
- whose choice counts (`final_choices`): the last one before the reveal; a click at or
  after the reveal changes nothing;
- the standings (`standings`), ties broken by total answer time, then by user id so the
  order never depends on a dict's;
- which questions a session asks (`pick_questions`): mixed, one topic, or the questions
  this server misses most (`group-weakest`, from the item statistics' facility).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.quiz.model import Bank, Question

__all__ = [
    "DEFAULT_QUESTIONS",
    "GROUP_WEAKEST",
    "LOBBY_MS",
    "MIXED",
    "NEXT_PAUSE_MS",
    "Answer",
    "Click",
    "LiveSettings",
    "LiveSettingsError",
    "Standing",
    "auto_seconds",
    "final_choices",
    "most_missed",
    "pick_questions",
    "points_for",
    "reveal_reason",
    "speed_points",
    "standings",
    "validate_settings",
]

Scoring = Literal["accuracy", "speed"]
RevealReason = Literal["deadline", "all_answered", "host"]

MIXED = "mixed"
GROUP_WEAKEST = "group-weakest"
MIN_QUESTIONS, MAX_QUESTIONS, DEFAULT_QUESTIONS = 3, 20, 10
MIN_SECONDS, MAX_SECONDS = 10, 120
#: The least a question gets when the host chose no time: reading one takes that long.
MIN_AUTO_SECONDS = 20
#: The lobby starts by itself after this long if the host does not press Start.
LOBBY_MS = 60_000
#: The pause between a reveal and the next question.
NEXT_PAUSE_MS = 5_000
SPEED_MIN, SPEED_MAX = 500, 1000


class LiveSettingsError(ValueError):
    """A setting out of its range; `key` names the message in bot.i18n."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class LiveSettings:
    #: `MIXED`, `GROUP_WEAKEST` or a topic of the bank.
    topic: str
    questions: int
    #: Seconds per question; None: each question's own (`auto_seconds`).
    seconds: int | None
    scoring: Scoring


def validate_settings(
    *,
    topic: str | None,
    questions: int | None,
    seconds: int | None,
    scoring: str | None,
    topics: Iterable[str],
) -> LiveSettings:
    """The host's choices with their defaults, or LiveSettingsError naming the bad one."""
    chosen_topic = topic or MIXED
    if chosen_topic not in (MIXED, GROUP_WEAKEST) and chosen_topic not in set(topics):
        raise LiveSettingsError("live_bad_topic", topic=chosen_topic)
    count = DEFAULT_QUESTIONS if questions is None else questions
    if not MIN_QUESTIONS <= count <= MAX_QUESTIONS:
        raise LiveSettingsError("live_bad_questions", low=MIN_QUESTIONS, high=MAX_QUESTIONS)
    if seconds is not None and not MIN_SECONDS <= seconds <= MAX_SECONDS:
        raise LiveSettingsError("live_bad_seconds", low=MIN_SECONDS, high=MAX_SECONDS)
    mode = scoring or "accuracy"
    if mode not in ("accuracy", "speed"):
        raise LiveSettingsError("live_bad_scoring")
    return LiveSettings(chosen_topic, count, seconds, mode)  # type: ignore[arg-type]


def auto_seconds(question: Question) -> int:
    """Seconds to read and answer `question`: 3 words a second over its longer language
    (text and choices), plus 10 s per difficulty step; 20 to 120, in steps of 5."""
    words = max(
        len(question.text.get(lang).split())
        + sum(len(c.text.get(lang).split()) for c in question.choices)
        for lang in ("tr", "en")
    )
    raw = words / 3 + 10 * max(question.difficulty, 1)
    stepped = 5 * -(-int(raw) // 5)
    return max(MIN_AUTO_SECONDS, min(MAX_SECONDS, stepped))


def speed_points(elapsed_ms: int, limit_ms: int) -> int:
    """Kahoot's rule: 1,000 for an instant answer falling linearly to 500 at the limit."""
    if limit_ms <= 0:
        return SPEED_MAX
    share = min(max(elapsed_ms, 0), limit_ms) / limit_ms
    return round(SPEED_MAX - (SPEED_MAX - SPEED_MIN) * share)


def points_for(scoring: Scoring, *, correct: bool, elapsed_ms: int, limit_ms: int) -> int:
    """The session points of one answer (the server leaderboard's are the core rule's)."""
    if not correct:
        return 0
    return 1 if scoring == "accuracy" else speed_points(elapsed_ms, limit_ms)


def reveal_reason(
    *,
    now_ms: int,
    deadline_ms: int,
    players: Iterable[int],
    answered: Iterable[int],
    host_pressed: bool = False,
) -> RevealReason | None:
    """Why the question is revealed now, or None while it stays open. `players` are
    those who had joined when the question opened (one joining by answering it would
    otherwise reveal it at their first click); every one of them answered counts only
    with at least one (an empty room waits for the deadline or the host)."""
    if host_pressed:
        return "host"
    if now_ms >= deadline_ms:
        return "deadline"
    joined = set(players)
    if joined and joined <= set(answered):
        return "all_answered"
    return None


@dataclass(frozen=True, slots=True)
class Click:
    user_id: int
    choice: int
    at_ms: int


def final_choices(clicks: Iterable[Click], revealed_at_ms: int | None) -> dict[int, Click]:
    """Each member's last click up to the reveal; later clicks change nothing. (A click
    in the reveal's own millisecond was saved before it: the store refuses any after.)"""
    final: dict[int, Click] = {}
    for click in sorted(clicks, key=lambda c: c.at_ms):
        if revealed_at_ms is not None and click.at_ms > revealed_at_ms:
            continue
        final[click.user_id] = click
    return final


@dataclass(frozen=True, slots=True)
class Answer:
    """One player's final answer to one session question."""

    user_id: int
    position: int
    correct: bool
    elapsed_ms: int
    points: int


@dataclass(frozen=True, slots=True)
class Standing:
    user_id: int
    name: str
    points: int
    right: int
    time_ms: int
    place: int


def standings(names: Mapping[int, str], answers: Iterable[Answer]) -> list[Standing]:
    """Every player's totals, best first: more points, then less total answer time
    (a right answer's time counts; so does a wrong one's), then the lower user id.
    Players with equal points and time share a place."""
    points: dict[int, int] = dict.fromkeys(names, 0)
    right: dict[int, int] = dict.fromkeys(names, 0)
    time: dict[int, int] = dict.fromkeys(names, 0)
    for a in answers:
        if a.user_id not in names:
            continue
        points[a.user_id] += a.points
        right[a.user_id] += int(a.correct)
        time[a.user_id] += a.elapsed_ms
    order = sorted(names, key=lambda u: (-points[u], time[u], u))
    rows: list[Standing] = []
    for i, user in enumerate(order):
        same = rows and (rows[-1].points, rows[-1].time_ms) == (points[user], time[user])
        place = rows[-1].place if same else i + 1
        rows.append(Standing(user, names[user], points[user], right[user], time[user], place))
    return rows


def most_missed(tallies: Sequence[tuple[int, int, int]]) -> int | None:
    """The position the room missed most, from (position, right, answered) per question:
    the lowest share right among answered questions, then the most wrong answers, then
    the earliest. None when nobody answered anything."""
    answered = [t for t in tallies if t[2] > 0]
    if not answered:
        return None
    return min(answered, key=lambda t: (t[1] / t[2], -(t[2] - t[1]), t[0]))[0]


def pick_questions(
    pool: Bank,
    rng: random.Random,
    *,
    mode: str,
    count: int,
    facility: Mapping[str, float] | None = None,
    recent: Sequence[str] = (),
) -> list[Question]:
    """`count` distinct questions (fewer if the pool has fewer).

    `MIXED`: topics in turn, a random one first, each topic's question at random
    (recently posted ones last); a topic: that topic's questions; `GROUP_WEAKEST`: the
    questions with the lowest share right in this server (`facility`, from the item
    statistics) first, ties in random order, then, when fewer have figures, mixed ones.
    """
    recent_set = set(recent)

    def shuffled(questions: Iterable[Question]) -> list[Question]:
        items = list(questions)
        rng.shuffle(items)
        # Stable sort: fresh questions first, each group still in random order.
        return sorted(items, key=lambda q: q.id in recent_set)

    if mode == GROUP_WEAKEST:
        known = [q for q in pool if facility and q.id in facility]
        rng.shuffle(known)
        weakest = sorted(known, key=lambda q: (facility or {})[q.id])[:count]
        rest = [q for q in pool if q.id not in {w.id for w in weakest}]
        return weakest + _mixed(rest, rng, count - len(weakest), shuffled)
    if mode == MIXED:
        return _mixed(list(pool), rng, count, shuffled)
    return shuffled(pool.by_topic(mode))[:count]


def _mixed(
    questions: list[Question],
    rng: random.Random,
    count: int,
    shuffled: Callable[[Iterable[Question]], list[Question]],
) -> list[Question]:
    """Round-robin over topics (in random order), a random question of each in turn."""
    by_topic: dict[str, list[Question]] = {}
    for q in questions:
        by_topic.setdefault(q.topic, []).append(q)
    topics = sorted(by_topic)
    rng.shuffle(topics)
    queues = {t: shuffled(by_topic[t]) for t in topics}
    chosen: list[Question] = []
    while len(chosen) < count and any(queues.values()):
        for topic in topics:
            if queues[topic] and len(chosen) < count:
                chosen.append(queues[topic].pop(0))
    return chosen
