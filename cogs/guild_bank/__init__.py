"""`/tpquiz-admin bank ...`: a server's own questions (issue 27), for Manage Server.

Glue only: the `bank` subgroup joins `cogs.admin`'s `tpquiz-admin` group the way
bot/ui/command_groups.py describes; since the admin cog's `interaction_check` does not
cover it, each command checks Manage Server and its options itself
(`check_admin_command`, server-side: Discord's default permissions are only a hint).

The uploaded file is read only from the interaction's resolved attachment (the
`file` option): its `size` is checked against the limit before anything is downloaded,
and the download has a timeout. The checks and the storing are bot/services/guild_bank.py's;
the replies bot/ui/render_guild_bank.py's, sent with no allowed mentions.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.bank.own_upload import FORMATS, Format
from bot.i18n import t
from bot.quiz.model import Lang
from bot.quiz.own_questions import MAX_UPLOAD_BYTES
from bot.services.guild_bank import GuildBankService
from bot.services.quiz import QuizError
from bot.ui.command_groups import check_admin_command, join_group, leave_group
from bot.ui.render_guild_bank import list_embed, question_embed, settings_text, upload_reply
from bot.ui.responses import Caller, preamble, reply, report_command_error

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]

NO_MENTIONS = discord.AllowedMentions.none()
#: Seconds the attachment's download may take.
DOWNLOAD_TIMEOUT = 20.0
#: The longest id the options accept (ids are at most 40 characters).
ID_LENGTH = 100
WHAT = "the server's own questions"

bank = app_commands.Group(
    name=locale_str("bank"), description=locale_str("This server's own questions")
)

_FORMAT_CHOICES = [app_commands.Choice(name=f, value=f) for f in FORMATS]
_LANG_CHOICES = [
    app_commands.Choice(name=locale_str("Turkish"), value="tr"),
    app_commands.Choice(name=locale_str("English"), value="en"),
]
_DRAW_CHOICES = [
    app_commands.Choice(name=locale_str(d), value=d) for d in ("both", "own", "bundled")
]


def _service(interaction: Interaction) -> GuildBankService:
    return interaction.client.guild_bank


async def _first_answers(interaction: Interaction, guild_id: int) -> dict[str, int]:
    """First answers per question in the server (its item statistics), for probation."""
    stats = await interaction.client.items.server_stats(guild_id)
    return {s.question_id: s.answers for s in stats.stats}


async def _download(attachment: discord.Attachment) -> bytes:
    """The attachment's bytes: its size checked first, the download under a timeout."""
    if attachment.size > MAX_UPLOAD_BYTES:
        raise QuizError(
            "bank_too_big", size=-(-attachment.size // 1024), limit=MAX_UPLOAD_BYTES // 1024
        )
    try:
        async with asyncio.timeout(DOWNLOAD_TIMEOUT):
            data = await attachment.read()
    except TimeoutError:
        raise QuizError("bank_download_failed", why=f"{DOWNLOAD_TIMEOUT:.0f} s") from None
    except discord.HTTPException as exc:
        raise QuizError("bank_download_failed", why=f"HTTP {exc.status}") from None
    if len(data) > MAX_UPLOAD_BYTES:  # the size Discord gave was not the file's
        raise QuizError("bank_too_big", size=-(-len(data) // 1024), limit=MAX_UPLOAD_BYTES // 1024)
    return data


@bank.command(
    name=locale_str("upload"),
    description=locale_str("Add or replace questions from a file (YAML, GIFT or Aiken)"),
)
@app_commands.describe(
    file=locale_str("The question file, at most 1 MiB"),
    format=locale_str("The file's format (default: from its name)"),
    lang=locale_str("Language of a GIFT or Aiken file (default: yours)"),
    check_only=locale_str("Only check the file; store nothing"),
)
@app_commands.rename(
    file=locale_str("file"),
    format=locale_str("format"),
    lang=locale_str("lang"),
    check_only=locale_str("check-only"),
)
@app_commands.choices(format=_FORMAT_CHOICES, lang=_LANG_CHOICES)
async def upload_command(
    interaction: Interaction,
    file: discord.Attachment,
    format: app_commands.Choice[str] | None = None,
    lang: app_commands.Choice[str] | None = None,
    check_only: bool = False,
) -> None:
    check_admin_command(interaction, WHAT)
    # The download and the checks take a while: deferred at once, answered by a followup.
    await interaction.response.defer(ephemeral=True, thinking=True)
    fmt: Format | None = next((f for f in FORMATS if format and f == format.value), None)

    async def work(caller: Caller) -> tuple[str, discord.File | None]:
        data = await _download(file)
        language: Lang = "tr" if (lang.value if lang else caller.lang) == "tr" else "en"
        service = _service(interaction)
        done = await service.upload(
            caller.guild_id, data, file.filename, fmt=fmt, lang=language, check_only=check_only
        )
        total = await service.store.count(caller.guild_id)
        log.info(
            "bank upload in guild %s: %s problems, stored %s",
            caller.guild_id,
            len(done.check.problems),
            done.stored is not None and done.stored.refused_total is None,
        )
        return upload_reply(done, file.filename, total, caller.lang)

    done = await preamble(interaction, work, ephemeral=True)
    if done is None:
        return
    content, attached = done.value
    extra = {} if attached is None else {"file": attached}
    await reply(interaction, content=content, ephemeral=True, allowed_mentions=NO_MENTIONS, **extra)


@bank.command(
    name=locale_str("list"), description=locale_str("This server's questions, a page at a time")
)
@app_commands.describe(page=locale_str("Page number"))
@app_commands.rename(page=locale_str("page"))
async def list_command(
    interaction: Interaction, page: app_commands.Range[int, 1, 10_000] = 1
) -> None:
    check_admin_command(interaction, WHAT)

    async def work(caller: Caller) -> discord.Embed:
        service = _service(interaction)
        questions, shown, pages = await service.page(caller.guild_id, page - 1)
        total = len(await service.store.current(caller.guild_id, retired=True))
        used = await service.store.count(caller.guild_id)
        withheld = await service.withheld(caller.guild_id)
        answers = await _first_answers(interaction, caller.guild_id)
        return list_embed(questions, shown, pages, total, used, caller.lang, withheld, answers)

    done = await preamble(interaction, work, ephemeral=True)
    if done is not None:
        await reply(interaction, embed=done.value, ephemeral=True, allowed_mentions=NO_MENTIONS)


@bank.command(name=locale_str("show"), description=locale_str("One of this server's questions"))
@app_commands.describe(question_id=locale_str("The question's id"))
@app_commands.rename(question_id=locale_str("id"))
async def show_command(
    interaction: Interaction, question_id: app_commands.Range[str, 1, ID_LENGTH]
) -> None:
    check_admin_command(interaction, WHAT)

    async def work(caller: Caller) -> discord.Embed:
        service = _service(interaction)
        own = await service.show(caller.guild_id, question_id)
        withheld = await service.withheld(caller.guild_id)
        answers = await _first_answers(interaction, caller.guild_id)
        return question_embed(own, caller.lang, withheld, answers)

    done = await preamble(interaction, work, ephemeral=True)
    if done is not None:
        await reply(interaction, embed=done.value, ephemeral=True, allowed_mentions=NO_MENTIONS)


@bank.command(
    name=locale_str("retire"), description=locale_str("Stop picking a question (its answers stay)")
)
@app_commands.describe(question_id=locale_str("The question's id"))
@app_commands.rename(question_id=locale_str("id"))
async def retire_command(
    interaction: Interaction, question_id: app_commands.Range[str, 1, ID_LENGTH]
) -> None:
    check_admin_command(interaction, WHAT)

    async def work(caller: Caller) -> str:
        own = await _service(interaction).retire(caller.guild_id, question_id)
        log.info("bank retire in guild %s: %s", caller.guild_id, own.question_id)

        return t("bank_retired_done", caller.lang, question_id=own.question_id)

    done = await preamble(interaction, work, ephemeral=True)
    if done is not None:
        await reply(interaction, content=done.value, ephemeral=True, allowed_mentions=NO_MENTIONS)


@bank.command(
    name=locale_str("export"),
    description=locale_str("This server's questions as a file that uploads back"),
)
async def export_command(interaction: Interaction) -> None:
    check_admin_command(interaction, WHAT)
    await interaction.response.defer(ephemeral=True, thinking=True)

    async def work(caller: Caller) -> tuple[str, discord.File]:

        text, count = await _service(interaction).export(caller.guild_id)
        attached = discord.File(
            io.BytesIO(text.encode("utf-8")), filename=f"tpquiz-{caller.guild_id}.yaml"
        )
        return t("bank_exported", caller.lang, n=count), attached

    done = await preamble(interaction, work, ephemeral=True)
    if done is not None:
        content, attached = done.value
        await reply(
            interaction,
            content=content,
            file=attached,
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )


@bank.command(
    name=locale_str("settings"),
    description=locale_str("What this server's questions are drawn from"),
)
@app_commands.describe(
    draw=locale_str("Bundled bank, this server's own, or both"),
    daily_share=locale_str("Percent of own questions in daily posts"),
)
@app_commands.rename(draw=locale_str("draw"), daily_share=locale_str("daily-share"))
@app_commands.choices(draw=_DRAW_CHOICES)
async def settings_command(
    interaction: Interaction,
    draw: app_commands.Choice[str] | None = None,
    daily_share: app_commands.Range[int, 0, 100] | None = None,
) -> None:
    check_admin_command(interaction, WHAT)

    async def work(caller: Caller) -> str:
        service = _service(interaction)
        if draw is None and daily_share is None:
            settings = await service.settings(caller.guild_id)
        else:
            settings = await service.set_settings(
                caller.guild_id, draw=draw.value if draw else None, daily_share=daily_share
            )
            log.info("bank settings of guild %s: %s", caller.guild_id, settings)
        return settings_text(settings, caller.lang)

    done = await preamble(interaction, work, ephemeral=True)
    if done is not None:
        await reply(interaction, content=done.value, ephemeral=True, allowed_mentions=NO_MENTIONS)


async def _own_ids(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The server's ids containing what was typed; none outside a server or without
    Manage Server (an autocomplete is no place to tell a member off)."""
    if (
        interaction.guild_id is None
        or not interaction.permissions.manage_guild
        or not isinstance(current, str)
        or len(current) > ID_LENGTH
    ):
        return []
    ids = await _service(interaction).ids_matching(interaction.guild_id, current)
    return [app_commands.Choice(name=i, value=i) for i in ids]


show_command.autocomplete("question_id")(_own_ids)
retire_command.autocomplete("question_id")(_own_ids)

upload_command.error(report_command_error)
list_command.error(report_command_error)
show_command.error(report_command_error)
retire_command.error(report_command_error)
export_command.error(report_command_error)
settings_command.error(report_command_error)


async def setup(bot: TPQuizBot) -> None:
    await join_group(bot, "tpquiz-admin", [bank])


async def teardown(bot: TPQuizBot) -> None:
    leave_group(bot, "tpquiz-admin", ["bank"])
