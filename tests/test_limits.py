"""Discord's length limits: user text bounded where it arrives, replies fitted before sending."""

from __future__ import annotations

import discord

from bot.ui.limits import CONTENT, EMBED_TOTAL, clip, display_name, echo, fit


def test_clip_keeps_short_text_and_cuts_long_text_with_an_ellipsis() -> None:
    assert clip("abc", 3) == "abc"
    assert clip("abcd", 3) == "ab…"


def test_echo_is_one_line_without_markdown_or_mentions_and_bounded() -> None:
    assert echo("a\x00b\nc\u202ed") == "a b c d"
    assert echo("**bold** @everyone") == "\\*\\*bold\\*\\* @\u200beveryone"
    assert echo("x" * 500) == "x" * 99 + "…"
    assert echo(7) == "7" and echo(None) == "None"


def test_display_names_are_one_line_and_at_most_32_characters() -> None:
    assert display_name("N" * 5000) == "N" * 31 + "…"
    assert display_name("ali\nveli") == "ali veli"
    assert display_name("\u200b") == "?"


def test_fit_cuts_content_and_every_embed_part_to_discords_limits() -> None:
    embed = discord.Embed(title="t" * 300, description="d" * 5000)
    embed.add_field(name="n" * 300, value="v" * 2000)
    embed.set_footer(text="f" * 3000)
    sent = fit({"content": "c" * 6000, "embed": embed})
    assert len(sent["content"]) == CONTENT
    assert (len(embed.title or ""), len(embed.fields[0].name or "")) == (256, 256)
    assert len(embed.fields[0].value or "") == 1024
    assert len(embed.footer.text or "") == 2048
    assert len(embed) == EMBED_TOTAL  # the description gave way to the total
    assert (embed.description or "").endswith("…")
