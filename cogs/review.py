"""`/tpquiz review` (Turkish `tekrar`) and its reminder setting: glue only.

The command joins the `tpquiz` group that cogs/quiz.py owns (Discord allows one group of
that name, and cogs/quiz.py is already long). The round's buttons and "Review now" are in
`bot.ui.buttons.review` (`/tpquiz stats` and the reminder DMs show "Review now" too); this
extension registers them. The work is in `bot.services.review` and `bot.services.reminders`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.i18n import t
from bot.ui.buttons.review import ReviewButton, ReviewStartButton, open_review
from bot.ui.command_groups import join_group, leave_group
from bot.ui.options import check_options
from bot.ui.responses import preamble, reply, report_command_error

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]


async def set_reminder(interaction: Interaction, *, on: bool, time_text: str | None) -> None:
    """`/tpquiz review remind:on|off [time]`: save the setting and say what it is now."""
    bot = interaction.client
    done = await preamble(
        interaction,
        lambda caller: bot.reminders.set(
            guild_id=caller.guild_id,
            user_id=caller.user_id,
            on=on,
            time_text=time_text,
            language=caller.lang,
        ),
        ephemeral=True,
    )
    if done is None:
        return
    setting, lang = done.value, done.lang
    text = (
        t("reminder_on", lang, time=setting.at, timezone=setting.timezone)
        if setting.enabled
        else t("reminder_off", lang)
    )
    await reply(interaction, content=text, ephemeral=True)


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
    await set_reminder(interaction, on=remind is None or remind.value == "on", time_text=at)


review_command.error(report_command_error)


async def setup(bot: TPQuizBot) -> None:
    bot.add_dynamic_items(ReviewButton, ReviewStartButton)
    await join_group(bot, "tpquiz", [review_command])


async def teardown(bot: TPQuizBot) -> None:
    bot.remove_dynamic_items(ReviewButton, ReviewStartButton)
    leave_group(bot, "tpquiz", ["review"])
