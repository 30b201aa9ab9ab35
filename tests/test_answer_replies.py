"""The answer reply built from a post's kept parts (issue 30): the same embed as rendering
it whole, built once per post, language, choice and kind, rebuilt when the question
object changes, bounded, and fitted to Discord's limits with room for the footer."""

from __future__ import annotations

import dataclasses

from bot.quiz.model import Text
from bot.quiz.scoring import AnswerResult, MemberScore
from bot.ui import render
from bot.ui.answer_replies import AnswerReplies, kind_of
from bot.ui.limits import EMBED_TOTAL, Fitted, fit
from tests.factories import make_bank

QUESTION = make_bank()["mlp-split-01"]  # key: choice index 1
ORDER = (2, 0, 1, 3)


def _result(
    choice: int, *, points: int = 1, duplicate: bool = False, user: int = 1
) -> AnswerResult:
    correct = choice == QUESTION.correct_index
    score = MemberScore(user, f"m{user}", 10 + user, 20, 12, user % 4, 5)
    return AnswerResult(
        QUESTION.id, choice, correct, points if correct else 0, duplicate, score, user
    )


def _reply(replies: AnswerReplies, result: AnswerResult, lang: str = "en", question=QUESTION):  # type: ignore[no-untyped-def]
    footer = render.points_line(result.score, result.rank, result.points_awarded, lang)  # type: ignore[arg-type]
    return replies.embed(
        7, question, ORDER, result, lang,  # type: ignore[arg-type]
        footer, lambda: render.answer_embed(question, ORDER, result, lang),  # type: ignore[arg-type]
    )  # fmt: skip


def test_the_kept_reply_is_the_rendered_one_for_every_member() -> None:
    replies = AnswerReplies()
    for lang in ("en", "tr"):
        for user in range(1, 6):
            for result in (
                _result(1, user=user),
                _result(0, user=user),
                _result(1, points=0, user=user),
                _result(3, duplicate=True, user=user),
            ):
                expected = render.answer_embed(QUESTION, ORDER, result, lang)  # type: ignore[arg-type]
                assert _reply(replies, result, lang).to_dict() == expected.to_dict()
    assert replies.built == 2 * 4  # once per language and kind of reply, not per member


def test_kinds() -> None:
    assert kind_of(_result(1)) == "first"
    assert kind_of(_result(0)) == "first"
    assert kind_of(_result(1, points=0)) == "repeat"
    assert kind_of(_result(1, duplicate=True)) == "duplicate"


def test_a_changed_question_is_rendered_again() -> None:
    replies = AnswerReplies()
    _reply(replies, _result(1))
    edited = dataclasses.replace(QUESTION, text=Text(en="An edited question?", tr="Düzenlendi?"))
    embed = _reply(replies, _result(1), question=edited)
    assert embed.description is not None and "An edited question?" in embed.description
    assert replies.built == 2


def test_the_cache_is_bounded() -> None:
    replies = AnswerReplies(kept=3)
    for choice in range(4):
        _reply(replies, _result(choice))
    assert len(replies) == 3


def test_a_kept_reply_is_fitted_with_room_for_its_footer() -> None:
    long = dataclasses.replace(
        QUESTION,
        text=Text(en="q" * 4000, tr="q" * 4000),
        explanation=Text(en="w" * 1000, tr="w" * 1000),
    )
    embed = _reply(AnswerReplies(), _result(1), question=long)
    assert isinstance(embed, Fitted)
    assert len(embed) <= EMBED_TOTAL
    before = embed.to_dict()
    fit({"embed": embed})  # skipped: already fitted
    assert embed.to_dict() == before
