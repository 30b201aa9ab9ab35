"""The lettered answer buttons of question and daily posts, and what a click does.

`/tpquiz question` (cogs/quiz.py) and the daily posts (`bot.ui.poster`) show the same
buttons, so they live here (see `bot.ui.buttons`). The custom_id `tpq:a:<post>:<choice>`
carries all a click needs, so the buttons keep working after a restart. A click is
answered ephemerally with the member's result, and the post's "N answered" line is
updated through the bot's coalesced edits.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import discord

from bot.quiz.model import LETTERS
from bot.quiz.scoring import AnswerResult
from bot.ui import render
from bot.ui.answer_replies import AnswerReplies
from bot.ui.buttons.diagram import answer_reply_view
from bot.ui.buttons.report import report_view
from bot.ui.custom_ids import number
from bot.ui.responses import AnyInteraction, preamble, refuse_click, reply
from bot.ui.types import Interaction, QuizBot, quiz_bot

log = logging.getLogger(__name__)

#: The parts of answer replies that are the same for every click on a post (issue 30).
REPLIES = AnswerReplies()


class AnswerButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:a:(?P<post>[^:]+):(?P<choice>[^:]+)",
):
    """A lettered answer button on a question or daily post.

    The template takes any text between the colons so that a forged number still gets
    an answer (`refusal`), not silence; `from_custom_id` reads the numbers strictly.
    """

    refusal: str | None = None

    def __init__(self, post_id: int, choice_index: int, letter: str = "?") -> None:
        super().__init__(
            discord.ui.Button(
                label=letter,
                style=discord.ButtonStyle.secondary,
                custom_id=f"tpq:a:{post_id}:{choice_index}",
            )
        )
        self.post_id = post_id
        self.choice_index = choice_index

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AnswerButton:
        post, choice = number(match["post"]), number(match["choice"], 9)
        button = cls(post or 0, choice or 0)
        if post is None:
            button.refusal = "unknown_post"
        elif choice is None:
            button.refusal = "bad_choice"
        return button

    async def callback(self, interaction: AnyInteraction) -> None:
        if self.refusal is not None:
            await refuse_click(interaction, self.refusal)
            return
        await answer_post(interaction, self.post_id, self.choice_index)


def answer_view(post_id: int, order: tuple[int, ...]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for pos, choice_index in enumerate(order):
        view.add_item(AnswerButton(post_id, choice_index, LETTERS[pos]))
    return view


def closed_view(post_id: int, order: tuple[int, ...], right: int) -> discord.ui.View:
    """The post's buttons, disabled, with the right letter in green."""
    view = discord.ui.View(timeout=None)
    for pos, choice_index in enumerate(order):
        item = AnswerButton(post_id, choice_index, LETTERS[pos])
        item.item.disabled = True
        if choice_index == right:
            item.item.style = discord.ButtonStyle.success
        view.add_item(item)
    return view


async def answer_post(interaction: Interaction, post_id: int, choice_index: int) -> None:
    """Record the click, then tell the member their result (or that the post closed)."""
    bot = quiz_bot(interaction)
    done = await preamble(
        interaction,
        lambda caller: bot.service.answer_post(
            post_id=post_id,
            guild_id=caller.guild_id,
            user_id=caller.user_id,
            name=caller.name,
            choice_index=choice_index,
        ),
        ephemeral=True,
    )
    if done is None:
        return
    outcome, lang = done.value, done.lang
    post, question, result = outcome.post, outcome.question, outcome.result
    if result is None:
        embed = render.closed_embed(question, post.order, lang)
    else:
        embed = REPLIES.embed(
            post.id,
            question,
            post.order,
            result,
            lang,
            render.points_line(result.score, result.rank, result.points_awarded, lang),
            lambda: render.answer_embed(question, post.order, result, lang),
        )
    # With an explanation figure, a "Diagram" button: no upload until it is wanted.
    if question.explanation_figure is not None:
        view = answer_reply_view(post_id, lang)
    else:
        view = report_view("p", post_id, lang)
    # The member's wait is measured as the reply goes out. What the reply does not need
    # (the metrics, scheduling the count edit) runs once the handler first yields inside
    # the reply, not before it: `call_soon` runs it ahead of any I/O the loop handles
    # next, so the count edit is still scheduled before Discord can see the reply.
    age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
    asyncio.get_running_loop().call_soon(_after_reply, bot, post.id, result, age)
    try:
        await reply(interaction, embed=embed, view=view, ephemeral=True)
    except discord.HTTPException as exc:
        # The answer is committed; only the message was lost. One line, no traceback:
        # Discord refusing a reply (an expired interaction, under overload) is no bug.
        log.warning("could not send the answer reply for post %s: %s", post_id, exc)


def _after_reply(bot: QuizBot, post_id: int, result: AnswerResult | None, age: float) -> None:
    """The click's bookkeeping, off the reply's path: metrics, the post's count edit."""
    bot.metrics.observe_interaction(age, kind="answer")
    if result is not None:
        bot.metrics.answer_recorded(correct=result.correct, duplicate=result.duplicate)
        if not result.duplicate:
            bot.count_edits.touch(post_id)
