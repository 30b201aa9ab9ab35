"""Slash-command options checked on arrival, before discord.py converts them.

Discord's client offers only the choices and lengths a command advertises, but nothing
guarantees that what arrives was typed in that client: a stale, scripted or forged
interaction can carry a `topic` that is not one of the choices, a 6,000-character time
zone, or a member id with no member behind it. discord.py checks none of the lengths, and
an unknown choice or member surfaces as a `TransformerError` (a traceback and the generic
reply). The cogs call `check_options` from their `interaction_check`, which discord.py
runs before converting anything, and turn the refusal into one ephemeral sentence that
names what is allowed (`refusal_for`). Refused values are logged with `%r`, cut short, so
a NUL or a newline never reaches the text log.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import AppCommandOptionType, app_commands

from bot.i18n import COMMAND_TRANSLATIONS_TR
from bot.quiz.model import Lang
from bot.services.quiz import QuizError
from bot.ui.limits import ECHO, echo

log = logging.getLogger(__name__)

_UNKNOWN = {
    AppCommandOptionType.user: "option_unknown_member",
    AppCommandOptionType.channel: "option_unknown_channel",
    AppCommandOptionType.role: "option_unknown_role",
    AppCommandOptionType.mentionable: "option_unknown_member",
}


class OptionRefused(app_commands.CheckFailure):
    """An option value the command does not accept; `key` names the message."""

    def __init__(self, key: str, option: str, **params: object) -> None:
        super().__init__(f"{key}: {option}")
        self.key = key
        self.option = option
        self.params = params


def logged(value: object) -> str:
    """A received value for the log: its repr, cut short (never the raw text)."""
    text = repr(value)
    return text if len(text) <= ECHO else f"{text[:ECHO]}... ({len(text)} characters)"


def _problem(param: app_commands.Parameter, value: Any) -> tuple[str, dict[str, object]] | None:
    """Why `value` is not acceptable for `param` (message key and its values), or None."""
    kind = param.type
    if param.choices:
        allowed = [c.value for c in param.choices]
        if not any(type(value) is type(a) and value == a for a in allowed):
            return "option_not_a_choice", {"allowed": ", ".join(f"`{a}`" for a in allowed)}
        return None
    if kind is AppCommandOptionType.string:
        if not isinstance(value, str):
            return "option_invalid", {}
        low = int(param.min_value) if param.min_value is not None else 0
        high = int(param.max_value) if param.max_value is not None else 6000
        if not low <= len(value) <= high:
            return "option_length", {"min": low, "max": high, "length": len(value)}
        return None
    if kind in (AppCommandOptionType.integer, AppCommandOptionType.number):
        numeric = (int,) if kind is AppCommandOptionType.integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, numeric):
            return "option_invalid", {}
        least, most = param.min_value, param.max_value
        if (least is not None and value < least) or (most is not None and value > most):
            return "option_range", {"min": least, "max": most}
        return None
    if kind is AppCommandOptionType.boolean:
        return None if isinstance(value, bool) else ("option_invalid", {})
    if kind in _UNKNOWN and type(value) is discord.Object:
        return _UNKNOWN[kind], {}  # an id with nothing resolved behind it
    return None


def check_options(interaction: discord.Interaction[Any]) -> None:
    """Raise `OptionRefused` for the first option of the command that breaks its rules."""
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return
    sent = vars(interaction.namespace)
    for param in command.parameters:
        name = param.display_name
        if name not in sent:
            continue
        problem = _problem(param, sent[name])
        if problem is None:
            continue
        key, params = problem
        log.warning(
            "refused /%s from user %s in guild %s: option %s=%s (%s)",
            command.qualified_name,
            interaction.user.id,
            interaction.guild_id,
            name,
            logged(sent[name]),
            key,
        )
        raise OptionRefused(key, name, value=echo(sent[name]), **params)


def option_label(name: str, lang: Lang) -> str:
    """An option's name as the member's client shows it."""
    return COMMAND_TRANSLATIONS_TR.get(name, name) if lang == "tr" else name


def refusal_for(
    interaction: discord.Interaction[Any], error: BaseException, lang: Lang
) -> QuizError | None:
    """The message for a refused or unconvertible command, or None for other errors."""
    if isinstance(error, app_commands.NoPrivateMessage):
        return QuizError("guild_only")
    if isinstance(error, app_commands.CommandSignatureMismatch):
        log.warning(
            "refused /%s from user %s in guild %s: its options do not match this version",
            error.command.qualified_name,
            interaction.user.id,
            interaction.guild_id,
        )
        return QuizError("unknown_command")
    if isinstance(error, OptionRefused):
        return QuizError(error.key, option=option_label(error.option, lang), **error.params)
    if isinstance(error, app_commands.TransformerError):
        # What check_options could not see: e.g. a user who is not a member of the server.
        name = next((k for k, v in vars(interaction.namespace).items() if v is error.value), "?")
        log.warning(
            "refused a command from user %s in guild %s: option %s=%s does not convert to %s",
            interaction.user.id,
            interaction.guild_id,
            name,
            logged(error.value),
            error.type.name,
        )
        return QuizError(
            _UNKNOWN.get(error.type, "option_invalid"), option=option_label(name, lang)
        )
    return None
