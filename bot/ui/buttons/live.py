"""Quiz night's buttons (issue 26): a question's lettered answers and the lobby's and the
host's controls, with their whole state in the custom_id so they survive a restart.

`tpq:lv:<session>:<position>:<choice>` locks a choice in (the choice index in the
question's file order, as every answer button of tpquiz carries it);
`tpq:lh:<session>:<action>` is Join, or a host's Start, Cancel, Reveal now, Pause,
Resume, Skip or End, which only the host or a member with Manage Server may press.
A custom_id the bot did not write is refused in one sentence (bot/ui/custom_ids.py).
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.i18n import t
from bot.quiz.model import LETTERS, Lang
from bot.services.quiz import QuizError
from bot.ui.custom_ids import number
from bot.ui.render import letter_of
from bot.ui.responses import AnyInteraction, Caller, preamble, refuse_click, reply
from bot.ui.types import quiz_bot

log = logging.getLogger(__name__)

HOST_ACTIONS = ("start", "cancel", "reveal", "pause", "resume", "skip", "end")
ACTIONS = ("join", *HOST_ACTIONS)


class LiveAnswerButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:lv:(?P<session>[^:]+):(?P<pos>[^:]+):(?P<choice>[^:]+)",
):
    refusal: str | None = None

    def __init__(
        self, session_id: int, position: int, choice_index: int, letter: str = "?",
        disabled: bool = False,
    ) -> None:  # fmt: skip
        super().__init__(
            discord.ui.Button(
                label=letter,
                style=discord.ButtonStyle.primary,
                custom_id=f"tpq:lv:{session_id}:{position}:{choice_index}",
                disabled=disabled,
            )
        )
        self.session_id, self.position, self.choice_index = session_id, position, choice_index

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LiveAnswerButton:
        session = number(match["session"])
        pos, choice = number(match["pos"], 99), number(match["choice"], 9)
        button = cls(session or 0, pos or 0, choice or 0)
        if session is None:
            button.refusal = "live_unknown"
        elif pos is None or choice is None:
            button.refusal = "bad_choice"
        return button

    async def callback(self, interaction: AnyInteraction) -> None:
        if self.refusal is not None:
            await refuse_click(interaction, self.refusal)
            return
        await lock_in(interaction, self.session_id, self.position, self.choice_index)


class LiveHostButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:lh:(?P<session>[^:]+):(?P<action>[a-z]+)",
):
    refusal: str | None = None

    def __init__(
        self, session_id: int, action: str, label: str = "?", disabled: bool = False
    ) -> None:
        style = discord.ButtonStyle.success if action in ("join", "start") else (
            discord.ButtonStyle.danger if action in ("cancel", "end") else discord.ButtonStyle.secondary
        )  # fmt: skip
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                custom_id=f"tpq:lh:{session_id}:{action}",
                disabled=disabled,
            )  # fmt: skip
        )
        self.session_id, self.action = session_id, action

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LiveHostButton:
        session, action = number(match["session"]), match["action"]
        button = cls(session or 0, action)
        if session is None or action not in ACTIONS:
            button.refusal = "live_unknown"
        return button

    async def callback(self, interaction: AnyInteraction) -> None:
        if self.refusal is not None:
            await refuse_click(interaction, self.refusal)
            return
        if self.action == "join":
            await join(interaction, self.session_id)
        else:
            await host(interaction, self.session_id, self.action)


def lobby_view(session_id: int, lang: Lang, *, disabled: bool = False) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in ("join", "start", "cancel"):
        view.add_item(LiveHostButton(session_id, action, t(f"live_{action}", lang), disabled))
    return view


def question_view(
    session_id: int, position: int, order: tuple[int, ...], lang: Lang, *, disabled: bool = False
) -> discord.ui.View:
    """Lettered answers on the first row; the host's controls on the second (none once
    revealed)."""
    view = discord.ui.View(timeout=None)
    for pos, idx in enumerate(order):
        item = LiveAnswerButton(session_id, position, idx, LETTERS[pos], disabled)
        item.row = 0
        view.add_item(item)
    if not disabled:
        for action in ("reveal", "pause", "resume", "skip", "end"):
            control = LiveHostButton(session_id, action, t(f"live_{action}", lang))
            control.row = 1
            view.add_item(control)
    return view


async def lock_in(interaction: AnyInteraction, session_id: int, position: int, choice: int) -> None:
    """Lock the member's choice in and say so privately at once; the reveal edits this
    reply into their verdict (bot/ui/live_announcer.py)."""
    bot = quiz_bot(interaction)

    async def work(caller: Caller) -> Any:
        return await bot.live.lock_in(
            session_id, caller.guild_id, position, caller.user_id, caller.name, choice,
            nudge=False,
        )  # fmt: skip

    done = await preamble(interaction, work, ephemeral=True)
    if done is None:
        return
    outcome, live, _question = done.value
    lang = done.lang
    if outcome == "locked":
        order = live.order
        await reply(
            interaction,
            content=t("live_locked", lang, letter=letter_of(order, choice)),
            ephemeral=True,
        )
        bot.live_announcer.remember(session_id, position, interaction.user.id, interaction, lang)
        bot.live.nudge(session_id)  # every player may have answered now
    else:
        await reply(interaction, content=t(f"live_{outcome}", lang), ephemeral=True)


async def join(interaction: AnyInteraction, session_id: int) -> None:
    bot = quiz_bot(interaction)
    done = await preamble(
        interaction,
        lambda caller: bot.live.join(session_id, caller.guild_id, caller.user_id, caller.name),
        ephemeral=True,
    )
    if done is not None:
        key = "live_joined" if done.value else "live_already_joined"
        await reply(interaction, content=t(key, done.lang), ephemeral=True)
        bot.live.nudge(session_id)


async def host(interaction: AnyInteraction, session_id: int, action: str) -> None:
    """A host's control: refused, politely, to anyone but the host or a member with
    Manage Server."""
    bot = quiz_bot(interaction)

    async def work(caller: Caller) -> None:
        session = await bot.live.session_of(session_id, caller.guild_id)
        perms = interaction.permissions
        if caller.user_id != session.host_id and not perms.manage_guild:
            raise QuizError("live_not_host")
        await bot.live.host_action(session_id, caller.guild_id, action)

    done = await preamble(interaction, work, ephemeral=True)
    if done is not None:
        await reply(interaction, content=t("live_done", done.lang), ephemeral=True)
