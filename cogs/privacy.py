"""`/tpquiz forget-me` and `/tpquiz my-data` (Turkish `beni-unut`, `verilerim`): glue only.

Both join the `tpquiz` group that cogs/quiz.py owns, as cogs/review.py does. Forgetting
asks first: an ephemeral message with Confirm and Cancel buttons, `DynamicItem`s whose
custom_id carries the server and the member, so a confirmation left open survives a
restart and only that member, in that server, can press it. Nothing is deleted until
Confirm is pressed. The work is in `bot.services.privacy` and bot/storage/sqlite/members.py.
"""

from __future__ import annotations

import io
import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.i18n import t
from bot.quiz.model import Lang
from bot.ui.command_groups import join_group, leave_group
from bot.ui.custom_ids import number
from bot.ui.options import check_options
from bot.ui.responses import (
    AnyInteraction,
    Caller,
    preamble,
    refuse_click,
    reply,
    report_command_error,
    update,
    user_lang,
)

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]


class ForgetButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:forget:(?P<action>yes|no):(?P<guild>[^:]+):(?P<user>[^:]+)",
):
    """Confirm or Cancel under a forget-me question; the member and server in the id."""

    def __init__(self, action: str, guild_id: int, user_id: int, label: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=discord.ButtonStyle.danger
                if action == "yes"
                else discord.ButtonStyle.secondary,
                custom_id=f"tpq:forget:{action}:{guild_id}:{user_id}",
            )
        )
        self.action = action
        self.guild_id = guild_id
        self.user_id = user_id

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ForgetButton:
        guild, user = number(match["guild"]), number(match["user"])
        # A number the bot did not write matches nobody: the click is refused below.
        return cls(match["action"], -1 if guild is None else guild, -1 if user is None else user)

    async def callback(self, interaction: AnyInteraction) -> None:
        await self.pressed(interaction)

    async def pressed(self, interaction: Interaction) -> None:
        if self.user_id != interaction.user.id or self.guild_id != interaction.guild_id:
            await refuse_click(interaction, "not_your_forget")
            return
        lang = user_lang(interaction)
        if self.action == "no":
            await update(interaction, content=t("forget_cancelled", lang), view=None)
            return
        client = interaction.client

        async def forget(caller: Caller) -> tuple[dict[str, int], list[tuple[int, int]]]:
            posts = await client.suggestions.review_posts(caller.guild_id, self.user_id)
            return await client.privacy.forget_member(caller.guild_id, self.user_id), posts

        done = await preamble(interaction, forget, ephemeral=True, update=True)
        if done is None:
            return
        deleted, posts = done.value
        # Questions accepted from the member's suggestions no longer name them: posts
        # read the server's questions again (bot/services/own_pool.py).
        client.service.own.forget(self.guild_id)
        text = t("forget_done", lang, rows=sum(deleted.values()))
        await update(interaction, content=text, view=None)
        for channel_id, message_id in posts:  # the review posts showed their words
            try:
                channel = client.get_partial_messageable(channel_id)
                await channel.get_partial_message(message_id).delete()
            except discord.HTTPException as exc:
                log.info("could not delete review post %s: %s", message_id, exc.status)


def forget_view(guild_id: int, user_id: int, lang: Lang) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetButton("yes", guild_id, user_id, t("forget_confirm", lang)))
    view.add_item(ForgetButton("no", guild_id, user_id, t("forget_cancel", lang)))
    return view


@app_commands.command(
    name=app_commands.locale_str("forget-me"),
    description=app_commands.locale_str("Delete everything tpquiz stores about you here"),
)
@app_commands.guild_only()
async def forget_me_command(interaction: Interaction) -> None:
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    check_options(interaction)
    lang = user_lang(interaction)
    await reply(
        interaction,
        content=t("forget_ask", lang),
        view=forget_view(interaction.guild_id, interaction.user.id, lang),
        ephemeral=True,
    )


@app_commands.command(
    name=app_commands.locale_str("my-data"),
    description=app_commands.locale_str("Get everything tpquiz stores about you here, as JSON"),
)
@app_commands.guild_only()
async def my_data_command(interaction: Interaction) -> None:
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    check_options(interaction)
    done = await preamble(
        interaction,
        lambda caller: interaction.client.privacy.export_json(caller.guild_id, caller.user_id),
        ephemeral=True,
    )
    if done is None:
        return
    name = f"tpquiz-my-data-{interaction.guild_id}.json"
    await reply(
        interaction,
        content=t("my_data", done.lang),
        file=discord.File(io.BytesIO(done.value), filename=name),
        ephemeral=True,
    )


forget_me_command.error(report_command_error)
my_data_command.error(report_command_error)

_COMMANDS: tuple[app_commands.Command[Any, ..., None], ...] = (
    forget_me_command,
    my_data_command,
)


async def setup(bot: TPQuizBot) -> None:
    bot.add_dynamic_items(ForgetButton)
    await join_group(bot, "tpquiz", _COMMANDS)


async def teardown(bot: TPQuizBot) -> None:
    bot.remove_dynamic_items(ForgetButton)
    leave_group(bot, "tpquiz", [command.name for command in _COMMANDS])
