"""`/tpquiz stats` (Turkish `istatistik`): the numbers, the review outlook and a picture.

Joins the `tpquiz` group of cogs/quiz.py, like cogs/review.py. The picture is drawn by
`bot.ui.charts` in an executor, so the event loop keeps answering clicks meanwhile; the
embed stays complete for members who do not load images. A "Review now" button starts
the member's `/tpquiz review` round.
"""

from __future__ import annotations

import asyncio
import io
import logging
from functools import partial
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.bank.topic_names import topic_name
from bot.i18n import t
from bot.quiz.model import TOPICS, Lang
from bot.services.quiz import StatsReport
from bot.ui import render
from bot.ui.buttons.review import ReviewStartButton, start_view
from bot.ui.charts import ChartLabels, stats_png
from bot.ui.command_groups import join_group, leave_group
from bot.ui.limits import display_name
from bot.ui.options import check_options
from bot.ui.render_review import memory_fields
from bot.ui.responses import preamble, reply, report_command_error, user_lang

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]
PICTURE = "stats.png"


def chart_labels(name: str, lang: Lang) -> ChartLabels:
    return ChartLabels(
        title=t("chart_title", lang, name=name),
        topics_title=t("stats_topics", lang),
        accuracy=t("chart_accuracy", lang),
        weeks_title=t("chart_weeks", lang),
        answers=t("chart_answers", lang),
        right=t("chart_right", lang),
        weakest=t("chart_weakest", lang),
        no_answers=t("chart_no_answers", lang),
        topic_names={slug: topic_name(slug, lang) for slug in TOPICS},
    )


async def _picture(
    bot: TPQuizBot, guild_id: int, user_id: int, report: StatsReport, name: str, lang: Lang
) -> bytes:
    weeks = await bot.service.answers_per_week(guild_id, user_id)
    draw = partial(
        stats_png,
        per_topic=report.stats.per_topic,
        weakest=report.weakest,
        weeks=weeks,
        labels=chart_labels(name, lang),
    )
    return await asyncio.get_running_loop().run_in_executor(None, draw)


async def show_stats(interaction: Interaction, target: discord.abc.User) -> None:
    bot = interaction.client
    assert interaction.guild_id is not None
    guild_id, lang = interaction.guild_id, user_lang(interaction)
    name = display_name(target.display_name)

    async def gather() -> tuple[StatsReport | None, Any, bytes | None]:
        report = await bot.service.stats(guild_id=guild_id, user_id=target.id)
        if report is None:
            return None, None, None
        memory = await bot.reviews.memory(guild_id=guild_id, user_id=target.id)
        try:
            png = await _picture(bot, guild_id, target.id, report, name, lang)
        except Exception:  # the numbers still go out without their picture
            log.exception("could not draw the stats picture for user %s", target.id)
            png = None
        return report, memory, png

    done = await preamble(interaction, lambda caller: gather(), ephemeral=True)
    if done is None:
        return
    report, memory, png = done.value
    embed = render.stats_embed(name, report, lang)
    extra: dict[str, Any] = {}
    if report is not None:
        memory_fields(embed, memory, lang)
        extra["view"] = start_view(guild_id, lang)
    if png is not None:
        embed.set_image(url=f"attachment://{PICTURE}")
        extra["file"] = discord.File(io.BytesIO(png), filename=PICTURE)
    await reply(interaction, embed=embed, ephemeral=True, **extra)


@app_commands.command(
    name=app_commands.locale_str("stats"),
    description=app_commands.locale_str("Points, accuracy, streaks and weakest topics"),
)
@app_commands.describe(member=app_commands.locale_str("Whose statistics (default: you)"))
@app_commands.rename(member=app_commands.locale_str("member"))
@app_commands.guild_only()
async def stats_command(interaction: Interaction, member: discord.Member | None = None) -> None:
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    check_options(interaction)
    await show_stats(interaction, member or interaction.user)


stats_command.error(report_command_error)


async def setup(bot: TPQuizBot) -> None:
    # "Review now" on the stats message (cogs.review registers it too; one class).
    bot.add_dynamic_items(ReviewStartButton)
    await join_group(bot, "tpquiz", [stats_command])


async def teardown(bot: TPQuizBot) -> None:
    leave_group(bot, "tpquiz", ["stats"])
