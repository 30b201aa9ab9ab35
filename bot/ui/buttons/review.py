"""The buttons of a review round, and "Review now", with what a click on them does.

A round's answer buttons (`tpq:r:<run>:<pos>:<choice>`) and "Review now"
(`tpq:rs:<guild>`, shown by `/tpquiz stats` and on a reminder DM) carry the whole state
of a click in their custom_id, so rounds survive a restart. `/tpquiz stats` and the
reminders show "Review now", so these live here (see `bot.ui.buttons`); cogs/review.py
registers them. The work is in `bot.services.review`, the embeds in `bot.ui.render_review`.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.i18n import t
from bot.quiz.model import LETTERS, Lang
from bot.services.review import ReviewQuestion
from bot.ui.buttons.report import report_view
from bot.ui.custom_ids import number, run_click
from bot.ui.figures import attach
from bot.ui.render_review import review_nothing_embed, review_question_embed, review_step_embeds
from bot.ui.responses import AnyInteraction, preamble, refuse_click, reply, update
from bot.ui.types import Interaction, quiz_bot

log = logging.getLogger(__name__)


class ReviewButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:r:(?P<run>[^:]+):(?P<pos>[^:]+):(?P<choice>[^:]+)",
):
    """An answer button in a review round (numbers read strictly, as in TestButton)."""

    refusal: str | None = None

    def __init__(self, run_id: int, position: int, choice_index: int, letter: str = "?") -> None:
        super().__init__(
            discord.ui.Button(
                label=letter,
                style=discord.ButtonStyle.primary,
                custom_id=f"tpq:r:{run_id}:{position}:{choice_index}",
            )
        )
        self.run_id = run_id
        self.position = position
        self.choice_index = choice_index

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReviewButton:
        numbers, refusal = run_click(match, "unknown_review")
        button = cls(*numbers)
        button.refusal = refusal
        return button

    async def callback(self, interaction: AnyInteraction) -> None:
        if self.refusal is not None:
            await refuse_click(interaction, self.refusal)
            return
        await answer_review(interaction, self.run_id, self.position, self.choice_index)


class ReviewStartButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:rs:(?P<guild>[^:]+)",
):
    """ "Review now" (on /tpquiz stats and on a reminder): starts or continues the
    member's round in the server named in the custom_id."""

    refusal: str | None = None

    def __init__(self, guild_id: int, label: str = "Review now") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.success,
                emoji="🔁",
                custom_id=f"tpq:rs:{guild_id}",
            )
        )
        self.guild_id = guild_id

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReviewStartButton:
        guild = number(match["guild"])
        button = cls(guild or 0)
        # In a server, only that server's rounds; one server never sees another's.
        if guild is None or (interaction.guild_id not in (None, guild)):
            button.refusal = "unknown_review"
        return button

    async def callback(self, interaction: AnyInteraction) -> None:
        if self.refusal is not None:
            await refuse_click(interaction, self.refusal)
            return
        await open_review(interaction, self.guild_id)


def review_view(current: ReviewQuestion) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for pos, choice_index in enumerate(current.order):
        view.add_item(ReviewButton(current.run.id, current.position, choice_index, LETTERS[pos]))
    return view


def start_view(guild_id: int, lang: Lang) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ReviewStartButton(guild_id, t("review_start_button", lang)))
    return view


async def open_review(interaction: Interaction, guild_id: int) -> None:
    """Start the member's round, or continue their open one, as an ephemeral message."""
    bot = quiz_bot(interaction)
    done = await preamble(
        interaction,
        lambda caller: bot.reviews.open(
            guild_id=guild_id, user_id=caller.user_id, from_dm=interaction.guild_id is None
        ),
        ephemeral=True,
    )
    if done is None:
        return
    opening, lang = done.value, done.lang
    if opening.current is None:
        assert opening.outlook is not None
        await reply(interaction, embed=review_nothing_embed(opening.outlook, lang), ephemeral=True)
        return
    embed = review_question_embed(opening.current, lang, resumed=opening.resumed)
    sent: dict[str, Any] = {"embed": embed, "view": review_view(opening.current), "ephemeral": True}
    await reply(interaction, **await attach(bot.figures, sent, [opening.current.question], lang))


async def answer_review(
    interaction: Interaction, run_id: int, position: int, choice_index: int
) -> None:
    bot = quiz_bot(interaction)
    done = await preamble(
        interaction,
        # guild_id None: a round started from a reminder's DM, answered there.
        lambda caller: bot.reviews.answer(
            run_id=run_id,
            guild_id=interaction.guild_id,
            user_id=caller.user_id,
            name=caller.name,
            position=position,
            choice_index=choice_index,
        ),
        ephemeral=True,
        update=True,
    )
    if done is None:
        return
    step, lang = done.value, done.lang
    if not step.result.duplicate:
        bot.metrics.answer_recorded(correct=step.result.correct, duplicate=False)
    # The round's end carries "Report a problem", as the test's end does (issue #13).
    view = review_view(step.next) if step.next is not None else report_view("r", run_id, lang)
    try:
        shown = [step.answered.question, *([step.next.question] if step.next else [])]
        changes: dict[str, Any] = {"embeds": review_step_embeds(step, lang), "view": view}
        await update(interaction, **await attach(bot.figures, changes, shown, lang, edit=True))
    except discord.HTTPException as exc:
        # The answer is committed; only the message was lost (one line, as for answers).
        log.warning("could not show the review step of run %s: %s", run_id, exc)
