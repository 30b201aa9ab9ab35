"""Figures on Discord: drawn off the event loop, cached, attached where embeds show them.

An embed shows a figure with `set_image(url="attachment://NAME")`, and the message carries
a file of that NAME with the figure's alt text as its `description` (what Discord reads
out and shows when the picture does not load). Names come from the question id, so the
pure embed functions (bot/ui/render.py) can point at a figure without drawing it, and
`figure_files` attaches exactly the figures a message's embeds point at.

`FigureCache` draws in an executor (matplotlib takes tens of milliseconds, which the event
loop must not spend) and keeps the PNG by (figure, parameters, language): a post with 200
clicks on its "Diagram" button draws once, and clicks that arrive while the first draw
runs wait for that same draw instead of starting their own.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from fractions import Fraction
from typing import Any

import discord

from bot.bank.figures import figure_params, render_png
from bot.quiz.model import FigureRef, Lang, Question

__all__ = [
    "FigureCache",
    "attach",
    "explanation_name",
    "figure_files",
    "question_name",
    "show_explanation_figure",
    "show_question_figure",
]

log = logging.getLogger(__name__)

#: Pictures kept: the bank's ~30 figures in two languages, and the numbers of recent posts.
CACHE_ENTRIES = 512
ATTACHMENT = "attachment://"

Key = tuple[str, tuple[tuple[str, Fraction], ...], Lang]


def question_name(question: Question) -> str:
    return f"figure-{question.id}.png"


def explanation_name(question: Question) -> str:
    return f"explanation-{question.id}.png"


def show_question_figure(embed: discord.Embed, question: Question) -> discord.Embed:
    """Point `embed` at the question's figure, when it has one."""
    if question.figure is not None:
        embed.set_image(url=ATTACHMENT + question_name(question))
    return embed


def show_explanation_figure(embed: discord.Embed, question: Question) -> discord.Embed:
    """Point `embed` at the explanation's figure, when the question has one."""
    if question.explanation_figure is not None:
        embed.set_image(url=ATTACHMENT + explanation_name(question))
    return embed


class FigureCache:
    """PNG bytes by (figure, parameters, language), drawn once each in an executor."""

    def __init__(self, entries: int = CACHE_ENTRIES, executor: Executor | None = None) -> None:
        self._entries = entries
        self._executor = executor
        self._done: OrderedDict[Key, bytes] = OrderedDict()
        self._drawing: dict[Key, asyncio.Future[bytes]] = {}
        #: For the bench and the tests: pictures drawn, and requests served from the cache.
        self.draws = 0
        self.hits = 0

    async def png(self, ref: FigureRef, lang: Lang) -> bytes:
        key: Key = (ref.name, figure_params(ref.name, ref.params), lang)
        found = self._done.get(key)
        if found is not None:
            self._done.move_to_end(key)
            self.hits += 1
            return found
        pending = self._drawing.get(key)
        if pending is not None:
            self.hits += 1
            return await asyncio.shield(pending)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bytes] = loop.create_future()
        self._drawing[key] = future
        try:
            png = await loop.run_in_executor(self._executor, render_png, key[0], lang, key[1])
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved here, so a draw no one else awaited logs nothing
            raise
        finally:
            del self._drawing[key]
        self.draws += 1
        future.set_result(png)
        self._done[key] = png
        while len(self._done) > self._entries:
            self._done.popitem(last=False)
        return png

    async def file(self, ref: FigureRef, lang: Lang, filename: str) -> discord.File:
        """The figure as an attachment named `filename`, its alt text as the description."""
        png = await self.png(ref, lang)
        return discord.File(io.BytesIO(png), filename=filename, description=ref.alt.get(lang))


async def figure_files(
    cache: FigureCache,
    embeds: Iterable[discord.Embed],
    questions: Sequence[Question],
    lang: Lang,
) -> list[discord.File]:
    """The files the embeds' images point at, among the figures of `questions`.

    A figure that cannot be drawn is logged and left out: the message goes without its
    picture rather than not at all."""
    wanted = [
        e.image.url.removeprefix(ATTACHMENT)
        for e in embeds
        if e.image.url and e.image.url.startswith(ATTACHMENT)
    ]
    refs: dict[str, FigureRef] = {}
    for q in questions:
        if q.figure is not None:
            refs[question_name(q)] = q.figure
        if q.explanation_figure is not None:
            refs[explanation_name(q)] = q.explanation_figure
    files: list[discord.File] = []
    for name in dict.fromkeys(wanted):
        ref = refs.get(name)
        if ref is None:
            continue
        try:
            files.append(await cache.file(ref, lang, name))
        except Exception as exc:  # a picture never costs the message (FigureError mostly)
            log.warning("figure %s could not be drawn for %s: %r", ref.name, name, exc)
    return files


async def attach(
    cache: FigureCache,
    kwargs: dict[str, Any],
    questions: Sequence[Question],
    lang: Lang,
    *,
    edit: bool = False,
) -> dict[str, Any]:
    """`kwargs` of a send (or an edit) with the files its embeds point at.

    A send gets `files` only when there are some; an edit always gets `attachments`, so
    a test or review round that moves to a question without a figure drops the last one.
    """
    embeds = (
        [kwargs["embed"]] if kwargs.get("embed") is not None else list(kwargs.get("embeds") or ())
    )
    files = await figure_files(cache, embeds, questions, lang)
    if edit:
        kwargs["attachments"] = files
    elif files:
        kwargs["files"] = files
    return kwargs
