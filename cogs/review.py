"""`/tpquiz review` (Turkish `tekrar`) and the buttons of a review round: glue only.

The command joins the `tpquiz` group that cogs/quiz.py owns (Discord allows one group of
that name, and cogs/quiz.py is already long). Each button is a `DynamicItem` whose
custom_id carries the whole state of a click (round, position and choice; or the server
a "Review now" button starts a round in), so rounds survive a restart. The work is in
`bot.review`, the embeds in `bot.render_review`.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands

from bot.command_groups import join_group, leave_group
from bot.custom_ids import number, run_click
from bot.i18n import t
from bot.options import check_options, refusal_for
from bot.quiz.model import LETTERS, Lang
from bot.render_review import review_nothing_embed, review_question_embed, review_step_embeds
from bot.responses import preamble, refuse_click, reply, report_error, update, user_lang
from bot.review import ReviewQuestion
from cogs.reports import report_view

if TYPE_CHECKING:
    from bot.client import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]


def _bot(interaction: Interaction) -> TPQuizBot:
    return cast("TPQuizBot", interaction.client)


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
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReviewButton:
        numbers, refusal = run_click(match, "unknown_review")
        button = cls(*numbers)
        button.refusal = refusal
        return button

    async def callback(self, interaction: Interaction) -> None:
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
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReviewStartButton:
        guild = number(match["guild"])
        button = cls(guild or 0)
        # In a server, only that server's rounds; one server never sees another's.
        if guild is None or (interaction.guild_id not in (None, guild)):
            button.refusal = "unknown_review"
        return button

    async def callback(self, interaction: Interaction) -> None:
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
    bot = _bot(interaction)
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
    await reply(interaction, embed=embed, view=review_view(opening.current), ephemeral=True)


async def answer_review(
    interaction: Interaction, run_id: int, position: int, choice_index: int
) -> None:
    bot = _bot(interaction)
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
        await update(interaction, embeds=review_step_embeds(step, lang), view=view)
    except discord.HTTPException:
        # The answer is committed; only the message was lost.
        log.warning("could not show the review step of run %s", run_id, exc_info=True)


_SWITCH = [
    app_commands.Choice(name=app_commands.locale_str("on"), value="on"),
    app_commands.Choice(name=app_commands.locale_str("off"), value="off"),
]


@app_commands.command(
    name=app_commands.locale_str("review"),
    description=app_commands.locale_str(
        "Review your missed questions when they are due (spaced repetition)"
    ),
)
@app_commands.describe(
    remind=app_commands.locale_str("Review reminders by DM: on or off"),
    at=app_commands.locale_str(
        "Reminder time, HH:MM in the server's time zone (default: the daily post time)"
    ),
)
@app_commands.rename(remind=app_commands.locale_str("remind"), at=app_commands.locale_str("time"))
@app_commands.choices(remind=_SWITCH)
@app_commands.guild_only()
async def review_command(
    interaction: Interaction,
    remind: app_commands.Choice[str] | None = None,
    at: app_commands.Range[str, 1, 8] | None = None,
) -> None:
    """Without options: the review round. With `remind` or `time`: the reminder setting
    (Discord allows no deeper nesting than /tpquiz review, so they are its options)."""
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    check_options(interaction)
    if remind is None and at is None:
        await open_review(interaction, interaction.guild_id)
        return
    from cogs.reminders import set_reminder  # the reminders cog owns that glue

    await set_reminder(interaction, on=remind is None or remind.value == "on", time_text=at)


@review_command.error
async def _review_error(interaction: Interaction, error: app_commands.AppCommandError) -> None:
    refused = refusal_for(interaction, error, user_lang(interaction))
    await report_error(interaction, refused or getattr(error, "original", None) or error)


async def setup(bot: TPQuizBot) -> None:
    bot.add_dynamic_items(ReviewButton, ReviewStartButton)
    await join_group(bot, "tpquiz", [review_command])


async def teardown(bot: TPQuizBot) -> None:
    bot.remove_dynamic_items(ReviewButton, ReviewStartButton)
    leave_group(bot, "tpquiz", ["review"])
