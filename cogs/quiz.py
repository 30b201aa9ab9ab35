"""`/tpquiz` commands and the buttons on their messages: glue only.

This cog owns the `tpquiz` group; `/tpquiz review` (cogs/review.py) and `/tpquiz stats`
(cogs/stats.py) join it from their own modules.

Each handler reads the interaction, calls `bot.services.quiz` (through `bot.ui.responses.preamble`:
server check, language, deadline, error reply), and renders the result. The buttons are
`DynamicItem`s whose custom_id carries all the state a click needs (test run, position
and choice; a leaderboard page), so they keep working after a restart. A post's answer
buttons are in `bot.ui.buttons.answer`, as the daily posts show them too; this cog
registers them.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.bank.topic_names import topic_name
from bot.i18n import t
from bot.quiz.model import LETTERS, TOPICS, Lang, Question
from bot.quiz.periods import PERIODS, Period
from bot.ui import render
from bot.ui.buttons.answer import AnswerButton, answer_view
from bot.ui.buttons.diagram import DiagramButton
from bot.ui.buttons.report import report_view
from bot.ui.custom_ids import number, run_click
from bot.ui.figures import attach
from bot.ui.options import check_options
from bot.ui.responses import (
    AnyInteraction,
    Caller,
    preamble,
    refuse_click,
    reply,
    report_command_error,
    update,
)

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot
    from bot.storage.records import Post

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]


# -- buttons ---------------------------------------------------------------------------


class TestButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:t:(?P<run>[^:]+):(?P<pos>[^:]+):(?P<choice>[^:]+)",
):
    """An answer button in a member's personal test (numbers read as in AnswerButton)."""

    refusal: str | None = None

    def __init__(self, run_id: int, position: int, choice_index: int, letter: str = "?") -> None:
        super().__init__(
            discord.ui.Button(
                label=letter,
                style=discord.ButtonStyle.primary,
                custom_id=f"tpq:t:{run_id}:{position}:{choice_index}",
            )
        )
        self.run_id = run_id
        self.position = position
        self.choice_index = choice_index

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TestButton:
        numbers, refusal = run_click(match, "unknown_test")
        button = cls(*numbers)
        button.refusal = refusal
        return button

    async def callback(self, interaction: AnyInteraction) -> None:
        if self.refusal is not None:
            await refuse_click(interaction, self.refusal)
            return
        await answer_test(interaction, self.run_id, self.position, self.choice_index)


class LeaderboardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:lb:(?P<period>[^:]+):(?P<page>[^:]+):(?P<dir>prev|next)",
):
    """Previous/Next on a leaderboard; the page to show is in the custom_id (a period or
    page the bot does not write shows the first page of all time)."""

    def __init__(
        self, period: Period, page: int, direction: str, label: str = "", disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or direction,
                style=discord.ButtonStyle.secondary,
                custom_id=f"tpq:lb:{period}:{page}:{direction}",
                disabled=disabled,
            )
        )
        self.period: Period = period
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LeaderboardButton:
        period = match["period"] if match["period"] in PERIODS else "all"
        page = number(match["page"], 999_999) or 0
        return cls(cast(Period, period), page, match["dir"])

    async def callback(self, interaction: AnyInteraction) -> None:
        # Paging someone else's board: an ephemeral copy of your own, with your rank line,
        # so the caller's message is not changed under them (issue #12).
        own = _invoker(interaction) in (None, interaction.user.id)
        await show_leaderboard(interaction, self.period, self.page, edit=own, ephemeral=not own)


def _invoker(interaction: Interaction) -> int | None:
    """Who the message the button is on was shown to: the member whose command or
    click created it (None when Discord did not say)."""
    message = interaction.message
    metadata = message.interaction_metadata if message is not None else None
    return metadata.user.id if metadata is not None else None


def test_view(run_id: int, position: int, order: tuple[int, ...]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for pos, choice_index in enumerate(order):
        view.add_item(TestButton(run_id, position, choice_index, LETTERS[pos]))
    return view


def leaderboard_view(period: Period, page: int, pages: int, lang: Lang) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(
        LeaderboardButton(period, max(page - 1, 0), "prev", t("previous", lang), disabled=page <= 0)
    )
    view.add_item(
        LeaderboardButton(
            period, min(page + 1, pages - 1), "next", t("next", lang), disabled=page >= pages - 1
        )
    )
    return view


# -- handlers --------------------------------------------------------------------------


async def answer_test(
    interaction: Interaction, run_id: int, position: int, choice_index: int
) -> None:
    bot = interaction.client
    done = await preamble(
        interaction,
        lambda caller: bot.service.answer_test(
            run_id=run_id,
            guild_id=caller.guild_id,
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
    try:
        if step.summary is not None:
            # The promise of the original quiz: every answer and explanation, with figures.
            shown = [a.question for a in step.summary]
            first, *rest = render.test_summary_messages(step.summary, lang)
            # Every picture is drawn before the first message goes, so the messages follow
            # one another as closely as they did without pictures.
            changes = {"embeds": first, "view": report_view("t", run_id, lang)}
            await attach(bot.figures, changes, shown, lang, edit=True)
            more = [
                await attach(bot.figures, {"embeds": embeds, "ephemeral": True}, shown, lang)
                for embeds in rest
            ]
            await update(interaction, **changes)
            for sent in more:
                await interaction.followup.send(**sent)
            return
        assert step.next_position is not None
        nxt = step.next_position
        question = bot.bank[step.run.question_ids[nxt]]
        order = step.run.orders[nxt]
        embed = render.test_question_embed(
            question,
            order,
            lang,
            position=nxt,
            total=len(step.run.question_ids),
            last_correct=step.result.correct,
        )
        changes = {"embed": embed, "view": test_view(run_id, nxt, order)}
        await update(interaction, **await attach(bot.figures, changes, [question], lang, edit=True))
    except discord.HTTPException as exc:
        log.warning("could not show the next test step of run %s: %s", run_id, exc)


async def show_leaderboard(
    interaction: Interaction, period: Period, page: int, *, edit: bool, ephemeral: bool = False
) -> None:
    bot = interaction.client
    done = await preamble(
        interaction,
        lambda caller: bot.service.leaderboard(
            guild_id=caller.guild_id, user_id=caller.user_id, period=period, page=page
        ),
        ephemeral=ephemeral,
        update=edit,
    )
    if done is None:
        return
    board, lang = done.value, done.lang
    embed = render.leaderboard_embed(board, lang)
    view = leaderboard_view(period, board.page, board.pages, lang)
    try:
        if edit:
            await update(interaction, embed=embed, view=view)
        else:
            await reply(interaction, embed=embed, view=view, ephemeral=ephemeral)
    except discord.HTTPException as exc:  # nothing was changed; only the message was lost
        log.warning(
            "could not show the leaderboard for interaction %s: %s %s (code %s)",
            interaction.id,
            exc.status,
            exc.text,
            exc.code,
        )


async def _new_post(
    bot: TPQuizBot, interaction: Interaction, caller: Caller, topic: str | None
) -> tuple[Lang, Post, Question]:
    """The server's post language, then a new post in the channel interacted in."""
    guild_id, channel_id = caller.guild_id, interaction.channel_id
    assert channel_id is not None  # a server interaction always has its channel
    language = await bot.service.post_language(guild_id, str(interaction.guild_locale))
    post, question = await bot.service.new_post(
        guild_id=guild_id, channel_id=channel_id, language=language, topic=topic
    )
    return language, post, question


# -- the cog ---------------------------------------------------------------------------

# The value is the slug; the member picks by name, Turkish clients by the Turkish one
# (`CommandTranslator` sends `tr` as the choice's name_localizations).
_TOPIC_CHOICES = [
    app_commands.Choice(
        name=app_commands.locale_str(topic_name(topic, "en"), tr=topic_name(topic, "tr")),
        value=topic,
    )
    for topic in TOPICS
]
_PERIOD_CHOICES = [
    app_commands.Choice(name=app_commands.locale_str(p), value=p) for p in ("week", "month", "all")
]


@app_commands.guild_only()
class QuizCog(
    commands.GroupCog,
    group_name="tpquiz",
    group_description=app_commands.locale_str("Tensor parallelism quiz"),
):
    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot
        super().__init__()

    async def interaction_check(self, interaction: AnyInteraction, /) -> bool:
        """Before any option is converted: a server only, and only values Discord offers."""
        if interaction.guild_id is None:
            raise app_commands.NoPrivateMessage()
        check_options(interaction)
        return True

    @app_commands.command(
        name=app_commands.locale_str("question"),
        description=app_commands.locale_str(
            "Post a tensor parallelism question with answer buttons"
        ),
    )
    @app_commands.describe(topic=app_commands.locale_str("Only questions of this topic"))
    @app_commands.rename(topic=app_commands.locale_str("topic"))
    @app_commands.choices(topic=_TOPIC_CHOICES)
    async def question(
        self, interaction: Interaction, topic: app_commands.Choice[str] | None = None
    ) -> None:
        service = self.bot.service
        done = await preamble(
            interaction,
            lambda caller: _new_post(self.bot, interaction, caller, topic.value if topic else None),
            ephemeral=False,
        )
        if done is None:
            return
        language, post, question = done.value
        embed = render.question_embed(question, post.order, language)
        sent = {"embed": embed, "view": answer_view(post.id, post.order)}
        try:
            await attach(self.bot.figures, sent, [question], language)
            message_id = await reply(interaction, **sent)
        except discord.HTTPException:
            await service.discard_post(post.id)
            raise
        if message_id is not None:
            await service.attach_message(post.id, message_id)

    @app_commands.command(
        name=app_commands.locale_str("test"),
        description=app_commands.locale_str(
            "Take the whole starting quiz privately, with answers at the end"
        ),
    )
    async def test(self, interaction: Interaction) -> None:
        done = await preamble(
            interaction,
            lambda caller: self.bot.service.start_test(
                guild_id=caller.guild_id, user_id=caller.user_id
            ),
            ephemeral=True,
        )
        if done is None:
            return
        (run, question), lang = done.value, done.lang
        embed = render.test_question_embed(
            question, run.orders[0], lang, position=0, total=len(run.question_ids)
        )
        sent = {"embed": embed, "view": test_view(run.id, 0, run.orders[0]), "ephemeral": True}
        await reply(interaction, **await attach(self.bot.figures, sent, [question], lang))

    @app_commands.command(
        name=app_commands.locale_str("leaderboard"),
        description=app_commands.locale_str("This server's top members"),
    )
    @app_commands.describe(period=app_commands.locale_str("Which period to rank"))
    @app_commands.rename(period=app_commands.locale_str("period"))
    @app_commands.choices(period=_PERIOD_CHOICES)
    async def leaderboard(
        self, interaction: Interaction, period: app_commands.Choice[str] | None = None
    ) -> None:
        chosen = cast(Period, period.value if period else "all")
        await show_leaderboard(interaction, chosen, 0, edit=False)

    async def cog_app_command_error(
        self, interaction: AnyInteraction, error: app_commands.AppCommandError
    ) -> None:
        await report_command_error(interaction, error)


async def setup(bot: TPQuizBot) -> None:
    bot.add_dynamic_items(AnswerButton, TestButton, LeaderboardButton, DiagramButton)
    await bot.add_cog(QuizCog(bot))
