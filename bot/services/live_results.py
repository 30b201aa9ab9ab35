"""What a quiz night's state adds up to (issue 26): each reveal's verdicts, the
standings, and the end's podium, summaries and report data. No Discord.

Why computed from the stored choices every time rather than kept as running totals:
the choices are the truth (`live_choices`), a restart rebuilds nothing, and forget-me,
which deletes a member's choices, recounts the standings of a running session by itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.quiz.live import Answer, Standing, most_missed, points_for, standings
from bot.quiz.live_state import LiveChoice, LiveQuestion, LiveSession
from bot.quiz.model import Question
from bot.storage.contract import LiveContract

__all__ = ["Final", "Reveal", "Scored", "Verdict", "final_of", "scored", "standings_of"]

#: The question a session question shows (its template with the stored numbers).
QuestionOf = Callable[[LiveQuestion], Question]
Scored = tuple[LiveQuestion, Question, LiveChoice, Answer]


@dataclass(frozen=True, slots=True)
class Verdict:
    user_id: int
    choice_index: int | None
    correct: bool
    points: int
    place: int


@dataclass(frozen=True, slots=True)
class Reveal:
    session: LiveSession
    live: LiveQuestion
    question: Question
    #: Picks per choice index (file order), final choices only.
    counts: dict[int, int]
    verdicts: list[Verdict]
    standings: list[Standing]


@dataclass(frozen=True, slots=True)
class Final:
    session: LiveSession
    standings: list[Standing]
    #: The question the room missed most, or None.
    most_missed: tuple[LiveQuestion, Question] | None
    #: user -> [(position, choice or None, right)] for the private summaries.
    per_player: dict[int, list[tuple[int, int | None, bool]]]
    #: Every player's name, and each question with its final answers (the report).
    names: dict[int, str]
    scored: list[Scored]
    questions: list[tuple[LiveQuestion, Question]]


async def scored(
    store: LiveContract, session: LiveSession, question_of: QuestionOf
) -> list[Scored]:
    """Every final answer to the session's revealed (not skipped) questions, scored."""
    out: list[Scored] = []
    choices = await store.choices(session.id)
    for live in await store.questions(session.id):
        if live.revealed_at is None or live.skipped or live.opened_at is None:
            continue
        question = question_of(live)
        for c in choices:
            if c.position != live.position or c.locked_at > live.revealed_at:
                continue
            right = c.choice_index == question.correct_index
            elapsed = c.locked_at - live.opened_at
            points = points_for(
                session.scoring, correct=right, elapsed_ms=elapsed, limit_ms=live.seconds * 1000
            )
            out.append(
                (live, question, c, Answer(c.user_id, live.position, right, elapsed, points))
            )
    return out


async def standings_of(
    store: LiveContract, session: LiveSession, question_of: QuestionOf
) -> list[Standing]:
    players = await store.players(session.id)
    return standings(players, [a for *_, a in await scored(store, session, question_of)])


async def final_of(store: LiveContract, session: LiveSession, question_of: QuestionOf) -> Final:
    """The podium, the question missed most, each player's summary and the report rows."""
    answers = await scored(store, session, question_of)
    players = await store.players(session.id)
    table = standings(players, [a for *_, a in answers])
    tallies: dict[int, tuple[int, int]] = {}
    per_player: dict[int, list[tuple[int, int | None, bool]]] = {u: [] for u in players}
    for live, _question, choice, answer in answers:
        right, total = tallies.get(live.position, (0, 0))
        tallies[live.position] = (right + int(answer.correct), total + 1)
        per_player.setdefault(choice.user_id, []).append(
            (live.position, choice.choice_index, answer.correct)
        )
    questions = await store.questions(session.id)
    worst = most_missed([(p, r, n) for p, (r, n) in sorted(tallies.items())])
    missed = None if worst is None else (questions[worst], question_of(questions[worst]))
    asked = [
        (live, question_of(live))
        for live in questions
        if live.revealed_at is not None and not live.skipped
    ]
    return Final(session, table, missed, per_player, players, answers, asked)
