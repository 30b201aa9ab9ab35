"""Small hand-built questions for tests that must not depend on the bundled bank."""

from __future__ import annotations

from bot.quiz.model import STARTING_TAG, Bank, Choice, Question, Text


def make_question(
    qid: str = "basics-01",
    *,
    topic: str = "basics",
    correct: int = 0,
    n_choices: int = 4,
    tags: frozenset[str] = frozenset(),
) -> Question:
    choices = tuple(
        Choice(
            text=Text(tr=f"{qid} seçenek {i}", en=f"{qid} choice {i}"),
            correct=i == correct,
            feedback=None if i == correct else Text(tr=f"neden {i} değil", en=f"why not {i}"),
        )
        for i in range(n_choices)
    )
    return Question(
        id=qid,
        topic=topic,
        difficulty=1,
        text=Text(tr=f"{qid} soru metni?", en=f"{qid} question text?"),
        choices=choices,
        explanation=Text(tr=f"{qid} açıklama", en=f"{qid} explanation"),
        source="Shoeybi et al. 2019, 3",
        tags=tags,
    )


def make_bank() -> Bank:
    """Three starting questions and a few others across two topics."""
    starting = [
        make_question(f"start-0{i}", correct=i % 4, tags=frozenset({STARTING_TAG}))
        for i in range(1, 4)
    ]
    others = [
        make_question("mlp-split-01", topic="mlp-split", correct=1),
        make_question("mlp-split-02", topic="mlp-split", correct=2, n_choices=3),
        make_question("collectives-01", topic="collectives", correct=3, n_choices=5),
    ]
    return Bank.of(starting + others)
