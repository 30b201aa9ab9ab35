"""`/tpquiz-admin`: a server's settings, for members who can manage the server.

A separate top-level command (not a `/tpquiz` subcommand) so that Discord can hide all of
it from other members: its default member permission is Manage Server. Server owners can
change who sees it in Integrations, so every call is checked again here against the
caller's permissions in the channel (`interaction.permissions.manage_guild`), and refused
with an ephemeral message otherwise.

Handlers are glue: they read the interaction, call `bot.services.daily.DailyService` (through the
bot's daily poster for `daily now`, which has to send) and answer ephemerally in the
caller's language.
"""

from __future__ import annotations

import logging
from datetime import date, datetime
from typing import TYPE_CHECKING, cast

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.i18n import t
from bot.quiz.model import Lang
from bot.quiz.schedule import format_time, timezone_suggestions
from bot.services.daily import DailyOverview, DailyService
from bot.services.quiz import QuizError
from bot.ui.options import check_options, refusal_for
from bot.ui.poster import DailyPoster, error_fields
from bot.ui.render import QUESTION_COLOUR, day_label
from bot.ui.responses import AnyInteraction, reply, report_error, user_lang, within_deadline

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["TPQuizBot"]

#: What the bot needs in the daily channel, in the order a missing one is reported.
REQUIRED_PERMISSIONS = ("view_channel", "send_messages", "embed_links")

_LANGUAGE_CHOICES = [
    app_commands.Choice(name=locale_str("Turkish"), value="tr"),
    app_commands.Choice(name=locale_str("English"), value="en"),
]


class NotAdmin(app_commands.CheckFailure):
    """The caller lacks Manage Server (Discord showed them the command anyway)."""


def _stamp(moment: datetime, style: str) -> str:
    return f"<t:{int(moment.timestamp())}:{style}>"


def delivery_error(code: int | None, status: int | None, text: str | None, lang: Lang) -> str:
    """A stored delivery error in words: what an admin has to fix."""
    if code == 10003:
        return t("error_unknown_channel", lang)
    if code == 50013:
        return t("error_missing_permissions", lang)
    if code == 50001:
        return t("error_missing_access", lang)
    return t("error_other", lang, status=status if status is not None else "-", text=text or "")


def missing_permission(channel: discord.abc.GuildChannel, me: discord.Member) -> str | None:
    """The first permission the bot lacks to post questions in `channel`, or None."""
    perms = channel.permissions_for(me)
    for name in REQUIRED_PERMISSIONS:
        if not getattr(perms, name):
            return name
    return None


def settings_embed(overview: DailyOverview, lang: Lang) -> discord.Embed:
    """Everything the server has set, the next post's time, and the last delivery error."""
    settings = overview.settings
    none = t("settings_none", lang)
    embed = discord.Embed(title=t("settings_title", lang), colour=QUESTION_COLOUR)
    if overview.enabled and settings is not None:
        daily = t(
            "settings_daily_on",
            lang,
            channel=f"<#{settings.channel_id}>",
            time=format_time(overview.post_time),
            timezone=overview.timezone,
        )
    else:
        daily = t("settings_daily_off", lang)
    embed.add_field(name=t("settings_daily", lang), value=daily, inline=False)
    embed.add_field(name=t("settings_timezone", lang), value=overview.timezone)
    local = overview.next_local
    if overview.next_at is not None and local is not None:
        when = (
            f"{day_label(local.date(), lang)} {local:%H:%M} ({overview.timezone})\n"
            f"{_stamp(overview.next_at, 'F')} · {_stamp(overview.next_at, 'R')}"
        )
    else:
        when = none
    embed.add_field(name=t("settings_next", lang), value=when, inline=False)
    last = settings.last_date if settings else None
    embed.add_field(
        name=t("settings_last_posted", lang),
        value=day_label(date.fromisoformat(last), lang) if last else none,
    )
    language = t(f"lang_{overview.language}", lang)
    if not overview.language_chosen:
        language = t("settings_language_default", lang, language=language)
    embed.add_field(name=t("settings_language", lang), value=language)
    role = settings.role_id if settings else None
    embed.add_field(name=t("settings_role", lang), value=f"<@&{role}>" if role else none)
    if settings is not None and settings.error_at is not None:
        error = t(
            "settings_error_line",
            lang,
            when=f"<t:{settings.error_at // 1000}:f>",
            channel=f"<#{settings.error_channel}>",
            error=delivery_error(
                settings.error_code, settings.error_status, settings.error_text, lang
            ),
        )
    else:
        error = none
    embed.add_field(name=t("settings_last_error", lang), value=error[:1024], inline=False)
    return embed


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class AdminCog(
    commands.GroupCog,
    group_name=locale_str("tpquiz-admin"),
    group_description=locale_str("tpquiz settings for server admins"),
):
    daily = app_commands.Group(
        name=locale_str("daily"), description=locale_str("Daily question posts")
    )

    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot
        super().__init__()

    @property
    def poster(self) -> DailyPoster:
        """The bot's daily poster: the pacing `daily now` shares with the daily tick."""
        return self.bot.poster

    @property
    def service(self) -> DailyService:
        return self.bot.daily

    async def _refresh_open_post(self, guild_id: int) -> None:
        """Re-render the open daily post after its closing time moved (through the
        coalesced post edits, which render the stored post as it is now)."""
        post = await self.service.open_post(guild_id)
        if post is not None and post.message_id is not None:
            self.bot.count_edits.touch(post.id)

    async def interaction_check(self, interaction: AnyInteraction, /) -> bool:
        """Checked on every subcommand, before its options are converted: in a server, by
        someone who can manage it, with only the option values Discord offers."""
        if interaction.guild_id is None:
            raise app_commands.NoPrivateMessage()
        if not interaction.permissions.manage_guild:
            log.info(
                "refused /tpquiz-admin for user %s in guild %s (no Manage Server)",
                interaction.user.id,
                interaction.guild_id,
            )
            raise NotAdmin()
        check_options(interaction)
        return True

    # -- daily -----------------------------------------------------------------------

    @daily.command(
        name=locale_str("channel"),
        description=locale_str("Post a question every day in a channel"),
    )
    @app_commands.describe(
        channel=locale_str("Channel for the daily question"),
        time=locale_str("Local time to post, HH:MM (default 09:00)"),
        timezone=locale_str(
            "IANA time zone, e.g. Europe/Istanbul (default: the saved one, else UTC)"
        ),
    )
    @app_commands.rename(
        channel=locale_str("channel"), time=locale_str("time"), timezone=locale_str("timezone")
    )
    async def daily_channel(
        self,
        interaction: Interaction,
        channel: discord.TextChannel,
        time: app_commands.Range[str, 1, 8] | None = None,
        timezone: app_commands.Range[str, 1, 64] | None = None,
    ) -> None:
        lang = user_lang(interaction)
        guild = interaction.guild
        assert guild is not None
        if guild.me is not None:
            missing = missing_permission(channel, guild.me)
            if missing is not None:
                await reply(
                    interaction,
                    content=t(
                        "daily_missing_permission",
                        lang,
                        channel=channel.mention,
                        permission=t(f"perm_{missing}", lang),
                    ),
                    ephemeral=True,
                )
                return
        overview = await within_deadline(
            interaction,
            self.service.configure(
                guild.id,
                channel_id=channel.id,
                time_text=time,
                timezone=timezone,
                guild_locale=str(guild.preferred_locale),
            ),
            ephemeral=True,
        )
        await self._refresh_open_post(guild.id)
        next_at = overview.next_at
        text = t(
            "daily_on",
            lang,
            time=format_time(overview.post_time),
            timezone=overview.timezone,
            channel=channel.mention,
            next=f"{_stamp(next_at, 'F')} ({_stamp(next_at, 'R')})" if next_at else "-",
        )
        await reply(interaction, content=text, ephemeral=True)

    @daily_channel.autocomplete("timezone")
    async def _timezone_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if not isinstance(current, str) or len(current) > 64:  # what the option allows
            return []
        return [app_commands.Choice(name=z, value=z) for z in timezone_suggestions(current)]

    @daily.command(name=locale_str("off"), description=locale_str("Stop the daily questions"))
    async def daily_off(self, interaction: Interaction) -> None:
        assert interaction.guild_id is not None
        lang = user_lang(interaction)
        changed = await within_deadline(
            interaction, self.service.turn_off(interaction.guild_id), ephemeral=True
        )
        await self._refresh_open_post(interaction.guild_id)
        key = "daily_off" if changed else "daily_already_off"
        await reply(interaction, content=t(key, lang), ephemeral=True)

    @daily.command(
        name=locale_str("now"), description=locale_str("Post today's daily question now")
    )
    async def daily_now(self, interaction: Interaction) -> None:
        assert interaction.guild_id is not None
        lang = user_lang(interaction)
        poster = self.poster
        guild_id = interaction.guild_id

        async def post() -> tuple[int, Exception | None]:
            claim = await poster.claim_now(guild_id)
            delivery = await poster.deliver(claim, self.bot.clock())
            return claim.post.channel_id, delivery.error

        channel_id, error = await within_deadline(interaction, post(), ephemeral=True)
        if error is None:
            text = t("daily_posted_now", lang, channel=f"<#{channel_id}>")
        else:
            code, status, detail = error_fields(error)
            text = t(
                "daily_post_failed",
                lang,
                channel=f"<#{channel_id}>",
                error=delivery_error(code, status, detail, lang),
            )
        await reply(interaction, content=text, ephemeral=True)

    # -- settings, language, role ------------------------------------------------------

    @app_commands.command(
        name=locale_str("settings"), description=locale_str("Everything this server has set")
    )
    async def settings(self, interaction: Interaction) -> None:
        assert interaction.guild_id is not None
        overview = await within_deadline(
            interaction,
            self.service.overview(interaction.guild_id, str(interaction.guild_locale)),
            ephemeral=True,
        )
        await reply(
            interaction, embed=settings_embed(overview, user_lang(interaction)), ephemeral=True
        )

    @app_commands.command(
        name=locale_str("language"), description=locale_str("Language of public posts")
    )
    @app_commands.describe(language=locale_str("Language of public posts"))
    @app_commands.rename(language=locale_str("language"))
    @app_commands.choices(language=_LANGUAGE_CHOICES)
    async def language(self, interaction: Interaction, language: app_commands.Choice[str]) -> None:
        assert interaction.guild_id is not None
        chosen = cast(Lang, language.value)
        await self.service.set_language(interaction.guild_id, chosen)
        lang = user_lang(interaction)
        await reply(
            interaction,
            content=t("language_set", lang, language=t(f"lang_{chosen}", lang)),
            ephemeral=True,
        )

    @app_commands.command(
        name=locale_str("role"),
        description=locale_str("Role to mention with each daily question (empty: none)"),
    )
    @app_commands.describe(
        role=locale_str("Role to mention with each daily question (empty: none)")
    )
    @app_commands.rename(role=locale_str("role"))
    async def role(self, interaction: Interaction, role: discord.Role | None = None) -> None:
        assert interaction.guild_id is not None
        await self.service.set_role(interaction.guild_id, role.id if role else None)
        lang = user_lang(interaction)
        text = t("role_set", lang, role=role.mention) if role else t("role_cleared", lang)
        await reply(interaction, content=text, ephemeral=True)

    async def cog_app_command_error(
        self, interaction: AnyInteraction, error: app_commands.AppCommandError
    ) -> None:
        """Every refusal and failure becomes an ephemeral message in the caller's language."""
        original = getattr(error, "original", error)
        refused = refusal_for(interaction, error, user_lang(interaction))
        if isinstance(error, NotAdmin):
            refused = QuizError("admin_only")
        await report_error(interaction, refused or original)


async def setup(bot: TPQuizBot) -> None:
    await bot.add_cog(AdminCog(bot))
