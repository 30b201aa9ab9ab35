"""`FigureCache`: a picture drawn once per (figure, parameters, language), off the loop."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Iterator
from fractions import Fraction

import discord
import pytest

from bot.bank.figures.registry import REGISTRY, FigureDef
from bot.quiz.model import FigureRef, Text
from bot.ui.figures import FigureCache, attach, explanation_name, show_explanation_figure
from tests.factories import make_question

ALT = Text(tr="dört rank", en="four ranks")


def ref(name: str = "allreduce-sum", **params: int) -> FigureRef:
    return FigureRef(name, ALT, tuple((k, Fraction(v)) for k, v in sorted(params.items())))


async def test_200_concurrent_requests_draw_once() -> None:
    cache = FigureCache()
    pngs = await asyncio.gather(*(cache.png(ref(), "en") for _ in range(200)))
    assert len(set(pngs)) == 1 and pngs[0].startswith(b"\x89PNG")
    assert (cache.draws, cache.hits) == (1, 199)


async def test_the_key_is_figure_parameters_and_language() -> None:
    cache = FigureCache()
    await cache.png(ref("pipeline-bubble", p=4, m=8), "en")
    await cache.png(ref("pipeline-bubble", p=4, m=8, t=2), "en")  # t is not read: same picture
    await cache.png(ref("pipeline-bubble", p=8, m=8), "en")
    await cache.png(ref("pipeline-bubble", p=4, m=8), "tr")
    await cache.png(ref("pipeline-bubble"), "en")  # the defaults are p=4, m=8
    assert (cache.draws, cache.hits) == (3, 2)


async def test_the_oldest_picture_leaves_a_full_cache() -> None:
    cache = FigureCache(entries=2)
    for m in (4, 8, 16, 4):
        await cache.png(ref("pipeline-bubble", p=4, m=m), "en")
    assert cache.draws == 4  # m=4 was pushed out by 8 and 16


@pytest.fixture
def failing() -> Iterator[str]:
    calls: list[int] = []

    def draw(*_: object) -> None:
        calls.append(1)
        raise ValueError("planted")

    REGISTRY["planted-failing"] = FigureDef("planted-failing", "basics", draw)
    try:
        yield "planted-failing"
    finally:
        del REGISTRY["planted-failing"]


async def test_a_failed_draw_is_not_cached_and_a_message_goes_without_it(
    failing: str, caplog: pytest.LogCaptureFixture
) -> None:
    cache = FigureCache()
    results = await asyncio.gather(
        *(cache.png(ref(failing), "en") for _ in range(5)), return_exceptions=True
    )
    assert all(isinstance(r, Exception) for r in results)
    assert cache.draws == 0
    question = dataclasses.replace(make_question(qid="q-fig"), explanation_figure=ref(failing))
    embed = show_explanation_figure(discord.Embed(title="x"), question)
    with caplog.at_level(logging.WARNING):
        sent = await attach(cache, {"embed": embed}, [question], "en")
    assert "files" not in sent
    assert f"figure {failing} could not be drawn for {explanation_name(question)}" in caplog.text


async def test_an_attachment_carries_the_alt_text_in_the_language() -> None:
    file = await FigureCache().file(ref(), "tr", "explanation-x.png")
    assert file.filename == "explanation-x.png" and file.description == "dört rank"
