"""Discord's length limits, and the user text the bot shows back, made to fit them.

Discord refuses a whole message (400, and the member sees "interaction failed") when one
part is too long: content over 2,000 characters, an embed description over 4,096, and so
on. Text a member or admin typed (a time zone, a forged option value, a nickname) can be
any length, so it is bounded where it arrives (`echo`, `display_name`) and every reply is
fitted once more just before it is sent (`fit`), as a net under the rules above.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import discord

CONTENT = 2000
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
AUTHOR = 256
EMBED_TOTAL = 6000
#: Discord's limit for a username, global name or server nickname.
NAME = 32
#: How much of a value the bot did not expect it shows back in a reply.
ECHO = 100

ELLIPSIS = "…"
#: Control, format (bidi overrides, zero-width) and line/paragraph separator characters.
_INVISIBLE = {"Cc", "Cf", "Zl", "Zp"}


def clip(text: str, limit: int) -> str:
    """`text`, cut to `limit` characters with an ellipsis when it is longer."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS


def _visible(text: str) -> str:
    return "".join(" " if unicodedata.category(c) in _INVISIBLE else c for c in text)


def echo(value: object, limit: int = ECHO) -> str:
    """A value someone sent, safe to quote in a reply: one line, no markdown, bounded."""
    text = _visible(value if isinstance(value, str) else repr(value))
    quoted = discord.utils.escape_mentions(discord.utils.escape_markdown(clip(text, limit)))
    return clip(quoted, 2 * limit)


def display_name(name: str) -> str:
    """A member's name as the bot stores and shows it: one line, at most `NAME` long."""
    return clip(_visible(name).strip() or "?", NAME)


class Fitted(discord.Embed):
    """An embed already cut to these limits, with room for its footer, where it was
    built (`bot.ui.answer_replies`): `fit` skips it, sparing every click the check."""

    __slots__ = ()


def fit_embed(embed: discord.Embed) -> discord.Embed:
    """Cut each part of `embed` to Discord's limit, then the description to the total."""
    if embed.title:
        embed.title = clip(embed.title, EMBED_TITLE)
    if embed.description:
        embed.description = clip(embed.description, EMBED_DESCRIPTION)
    for index, fld in enumerate(embed.fields):
        name, value = clip(fld.name or "", FIELD_NAME), clip(fld.value or "", FIELD_VALUE)
        if (name, value) != (fld.name, fld.value):
            embed.set_field_at(index, name=name, value=value, inline=fld.inline)
    if embed.footer.text and len(embed.footer.text) > FOOTER:
        embed.set_footer(text=clip(embed.footer.text, FOOTER), icon_url=embed.footer.icon_url)
    if embed.author.name and len(embed.author.name) > AUTHOR:
        embed.set_author(
            name=clip(embed.author.name, AUTHOR),
            url=embed.author.url,
            icon_url=embed.author.icon_url,
        )
    excess = len(embed) - EMBED_TOTAL
    if excess > 0 and embed.description:
        embed.description = clip(embed.description, max(len(embed.description) - excess, 1))
    return embed


def fit(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of a send or edit, with content and embeds fitted."""
    content = kwargs.get("content")
    if isinstance(content, str):
        kwargs["content"] = clip(content, CONTENT)
    single = kwargs.get("embed")
    if isinstance(single, discord.Embed) and not isinstance(single, Fitted):
        fit_embed(single)
    for embed in kwargs.get("embeds") or ():
        if not isinstance(embed, Fitted):
            fit_embed(embed)
    return kwargs
