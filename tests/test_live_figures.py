"""Quiz night shows the figures of issue 29: the question's with the question, the
explanation's on the reveal (bot/ui/live_announcer.py).

Driven through `DiscordAnnouncer` with a stand-in channel that records what would be sent
and edited (the attachments themselves are checked against Discord's OpenAPI description
by the end-to-end tests of the figures, tests/e2e/test_figures.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord
import pytest

from bot.bank.loader import load_bank
from bot.quiz.live_state import LiveQuestion, LiveSession
from bot.quiz.model import Bank, Question
from bot.services.live import Reveal
from bot.ui.figures import FigureCache
from bot.ui.live_announcer import DiscordAnnouncer

MESSAGE_ID = 4242


class Channel:
    """Records sends and edits; `get_partial_message(id).edit(...)` lands in `edits`."""

    def __init__(self) -> None:
        self.sends: list[dict[str, Any]] = []
        self.edits: list[dict[str, Any]] = []

    async def send(self, **kwargs: Any) -> discord.Object:
        self.sends.append(kwargs)
        return discord.Object(MESSAGE_ID)

    def get_partial_message(self, message_id: int) -> Channel.Message:
        return Channel.Message(self, message_id)

    class Message:
        def __init__(self, channel: Channel, message_id: int) -> None:
            self.channel, self.id = channel, message_id

        async def edit(self, **kwargs: Any) -> None:
            self.channel.edits.append(kwargs)


class Client:
    def __init__(self) -> None:
        self.channel = Channel()

    def get_partial_messageable(self, channel_id: int, *, guild_id: int) -> Channel:
        return self.channel


class Quiz:
    async def attach_message(self, post_id: int, message_id: int) -> None:
        pass


class Live:
    quiz = Quiz()


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank()


def _session(language: str) -> LiveSession:
    return LiveSession(
        id=1, guild_id=10, channel_id=20, host_id=30, language=language, topic="mixed",
        question_count=3, seconds=20, scoring="accuracy", status="question",
        lobby_message_id=None, created_at=0, position=0, deadline_at=20_000,
        remaining_ms=None, ended_at=None, end_reason=None,
    )  # fmt: skip


def _live(question: Question, message_id: int | None = MESSAGE_ID) -> LiveQuestion:
    return LiveQuestion(
        session_id=1, position=0, post_id=5, question_id=question.id,
        order=tuple(range(len(question.choices))), params=None, message_id=message_id,
        seconds=20, opened_at=0, revealed_at=None, recorded_at=None, skipped=False,
    )  # fmt: skip


def _announcer() -> tuple[DiscordAnnouncer, Channel]:
    client = Client()
    announcer = DiscordAnnouncer(client, Live(), figures=FigureCache())  # type: ignore[arg-type]
    return announcer, client.channel


def _files(kwargs: dict[str, Any], key: str) -> list[tuple[str, str | None]]:
    return [(f.filename, f.description) for f in kwargs.get(key, [])]


def _with(bank: Bank, which: str) -> Question:
    return next(q for q in bank.questions if getattr(q, which) is not None)


@pytest.mark.parametrize("language", ["en", "tr"])
async def test_the_reveal_shows_the_explanation_figure_with_its_alt_text(
    bank: Bank, language: str
) -> None:
    question = _with(bank, "explanation_figure")
    announcer, channel = _announcer()
    reveal = Reveal(_session(language), _live(question), question, {}, [], [])
    await announcer.reveal(reveal)
    (edit,) = channel.edits
    name = f"explanation-{question.id}.png"
    assert edit["embed"].image.url == f"attachment://{name}"
    assert question.explanation_figure is not None
    lang = "tr" if language == "tr" else "en"
    assert _files(edit, "attachments") == [(name, question.explanation_figure.alt.get(lang))]
    assert edit["attachments"][0].fp.read(8) == b"\x89PNG\r\n\x1a\n"


async def test_a_question_figure_goes_with_the_question_and_stays_on_the_reveal(
    bank: Bank,
) -> None:
    question = _with(bank, "figure")
    if question.explanation_figure is not None:  # this test is about the question's alone
        question = replace(question, explanation_figure=None)
    announcer, channel = _announcer()
    await announcer.question(_session("en"), _live(question, None), question)
    (sent,) = channel.sends
    name = f"figure-{question.id}.png"
    assert sent["embed"].image.url == f"attachment://{name}"
    assert [f for f, _ in _files(sent, "files")] == [name]
    await announcer.reveal(Reveal(_session("en"), _live(question), question, {}, [], []))
    (edit,) = channel.edits
    assert edit["embed"].image.url == f"attachment://{name}"
    assert [f for f, _ in _files(edit, "attachments")] == [name]


async def test_a_question_without_figures_sends_no_file_and_the_reveal_drops_none(
    bank: Bank,
) -> None:
    question = next(q for q in bank.questions if q.figure is None and q.explanation_figure is None)
    announcer, channel = _announcer()
    await announcer.question(_session("en"), _live(question, None), question)
    (sent,) = channel.sends
    await announcer.reveal(Reveal(_session("en"), _live(question), question, {}, [], []))
    (edit,) = channel.edits
    assert "files" not in sent and not sent["embed"].image.url
    assert edit["attachments"] == [] and not edit["embed"].image.url
