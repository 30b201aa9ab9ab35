"""`/tpquiz live` (Turkish `/tpquiz canlı`, issue 26): quiz night, glue only.

The command joins the `tpquiz` group cogs/quiz.py owns. It validates the host's
settings (bot/quiz/live.py), asks the service for a session (or the channel's running
one, answered with a link), posts the lobby and starts the session's task. The buttons
are bot/ui/buttons/live.py's, the messages bot/ui/live_announcer.py's; the host's report
bot/ui/live_report.py's. At start, once connected, the open sessions this process owns
resume from the database (`LiveService.resume_all`); at unload their tasks stop.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.bank.topic_names import topic_name
from bot.quiz.live import GROUP_WEAKEST, MIXED, LiveSettings, validate_settings
from bot.quiz.live_state import LiveSession
from bot.quiz.model import TOPICS
from bot.ui.buttons.live import LiveAnswerButton, LiveHostButton, lobby_view
from bot.ui.command_groups import join_group, leave_group
from bot.ui.limits import display_name
from bot.ui.live_announcer import running_text
from bot.ui.live_report import send_report
from bot.ui.options import check_options
from bot.ui.render_live import lang_of, lobby_embed
from bot.ui.responses import Caller, preamble, reply, report_command_error

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]

_TOPICS = [
    app_commands.Choice(name=app_commands.locale_str("Mixed", tr="Karışık"), value=MIXED),
    app_commands.Choice(
        name=app_commands.locale_str("This server's weakest", tr="Bu sunucunun en zayıfları"),
        value=GROUP_WEAKEST,
    ),
] + [
    app_commands.Choice(
        name=app_commands.locale_str(topic_name(topic, "en"), tr=topic_name(topic, "tr")),
        value=topic,
    )
    for topic in TOPICS
]
_SCORING = [
    app_commands.Choice(name=app_commands.locale_str("accuracy", tr="doğruluk"), value="accuracy"),
    app_commands.Choice(name=app_commands.locale_str("speed", tr="hız"), value="speed"),
]


async def _open(
    bot: TPQuizBot, interaction: Interaction, caller: Caller, settings: LiveSettings
) -> tuple[LiveSession, bool]:
    channel_id = interaction.channel_id
    assert channel_id is not None  # a server interaction always has its channel
    language = await bot.service.post_language(caller.guild_id, str(interaction.guild_locale))
    return await bot.live.create(
        guild_id=caller.guild_id, channel_id=channel_id, host_id=caller.user_id,
        language=language, settings=settings,
    )  # fmt: skip


@app_commands.command(
    name=app_commands.locale_str("live"),
    description=app_commands.locale_str("Play a timed quiz together in this channel"),
)
@app_commands.describe(
    topic=app_commands.locale_str("mixed (default), group-weakest, or a topic"),
    questions=app_commands.locale_str("Number of questions, 3-20 (default 10)"),
    seconds=app_commands.locale_str("Seconds per question, 10-120 (default: by question)"),
    scoring=app_commands.locale_str("accuracy (default) or speed"),
)
@app_commands.rename(
    topic=app_commands.locale_str("topic"),
    questions=app_commands.locale_str("questions"),
    seconds=app_commands.locale_str("seconds"),
    scoring=app_commands.locale_str("scoring"),
)
@app_commands.choices(topic=_TOPICS, scoring=_SCORING)
@app_commands.guild_only()
async def live_command(
    interaction: Interaction,
    topic: app_commands.Choice[str] | None = None,
    questions: app_commands.Range[int, 3, 20] | None = None,
    seconds: app_commands.Range[int, 10, 120] | None = None,
    scoring: app_commands.Choice[str] | None = None,
) -> None:
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    check_options(interaction)
    bot = interaction.client

    async def work(caller: Caller) -> tuple[LiveSession, bool]:
        settings = validate_settings(
            topic=topic.value if topic else None, questions=questions, seconds=seconds,
            scoring=scoring.value if scoring else None, topics=bot.service.pool.topics(),
        )  # fmt: skip
        return await _open(bot, interaction, caller, settings)

    done = await preamble(interaction, work, ephemeral=False)
    if done is None:
        return
    session, created = done.value
    if not created:
        await reply(interaction, content=running_text(session, done.lang), ephemeral=True)
        return
    host = display_name(interaction.user.display_name)
    lang = lang_of(session)
    message_id = await reply(
        interaction, embed=lobby_embed(session, host), view=lobby_view(session.id, lang)
    )
    if message_id is not None:
        await bot.live.store.set_lobby_message(session.id, message_id)
    bot.live_announcer.hosts[session.id] = interaction
    bot.live.launch(session)


live_command.error(report_command_error)


async def _resume(bot: TPQuizBot) -> None:
    await bot.wait_until_ready()
    try:
        resumed = await bot.live.resume_all()
    except Exception:
        log.exception("live sessions not resumed")
        return
    if resumed:
        log.info("resumed %s live session(s)", resumed)


_resuming: dict[int, asyncio.Task[None]] = {}


async def setup(bot: TPQuizBot) -> None:
    bot.add_dynamic_items(LiveAnswerButton, LiveHostButton)
    await join_group(bot, "tpquiz", [live_command])
    bot.live_announcer.report = send_report
    _resuming[id(bot)] = asyncio.get_running_loop().create_task(_resume(bot))


async def teardown(bot: TPQuizBot) -> None:
    task = _resuming.pop(id(bot), None)
    if task is not None:
        task.cancel()
    await bot.live.stop()
    bot.remove_dynamic_items(LiveAnswerButton, LiveHostButton)
    leave_group(bot, "tpquiz", ["live"])
