"""Members' suggestions (issue 27): the modals' submissions, the review post, the notices.

The modals are handled from their raw submission (`bot.ui.modals.submitted_values`), by
custom_id, not by a `Modal` object discord.py keeps in memory, so a modal left open
across a restart still works:

* `tpq:sgm:<guild>:<id|new>`: the member's modal. The text is checked at once; with a
  problem it is kept in the database (a draft, or the suggestion asked for changes) and
  the reply lists each problem by field with an Edit button that reopens the modal
  prefilled, so nothing typed is lost. Without, it is open: the server's review channel
  (if set) gets a post with the review buttons, and the member is told.
* `tpq:sgx:<id>`: a moderator's edit, which accepts the edited version.
* `tpq:sgr:<c|r>:<id>`: a moderator's reason for asking for changes or rejecting.

`deliver_notices` tells a member, once, of decisions on their suggestions at their next
`/tpquiz` command (the cog calls it when one completes).
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.i18n import t
from bot.quiz.model import Lang
from bot.quiz.suggestions import MAX_OPEN, Draft, Outcome, Suggestion
from bot.services.quiz import QuizError
from bot.ui.buttons.suggestion import (
    NO_MENTIONS,
    announce,
    check_reviewer,
    edited_problems,
    member_view,
    review_view,
)
from bot.ui.custom_ids import number
from bot.ui.limits import display_name
from bot.ui.modals import submitted_values
from bot.ui.render_suggestions import (
    FIELDS,
    REASON_FIELD,
    notice_text,
    problems_text,
    suggest_modal,
    suggestion_embed,
    typed_text,
)
from bot.ui.responses import Caller, preamble, reply, report_error, user_lang
from bot.ui.types import Interaction, quiz_bot

__all__ = ["MODAL_ID", "deliver_notices", "on_modal", "open_new_modal"]

log = logging.getLogger(__name__)

MODAL_ID = re.compile(
    r"tpq:sg(?:m:(?P<guild>[^:]+):(?P<mine>[^:]+)|x:(?P<edit>[^:]+)|r:(?P<why>[cr]):(?P<id>[^:]+))"
)


def _draft(interaction: Interaction) -> Draft:
    values = submitted_values(interaction.data)
    text = {name: (values.get(name) or [""])[0] for name in FIELDS}
    return Draft(**text)


async def open_new_modal(interaction: Interaction) -> None:
    """`/tpquiz suggest`: the modal, prefilled with the member's kept draft if any."""
    lang = user_lang(interaction)
    try:
        guild_id = interaction.guild_id
        if guild_id is None:
            raise QuizError("guild_only")
        kept = await quiz_bot(interaction).suggestions.draft_of(guild_id, interaction.user.id)
        ref = "new" if kept is None else str(kept.id)
        modal = suggest_modal(
            f"tpq:sgm:{guild_id}:{ref}",
            t("suggest_title", lang),
            lang,
            None if kept is None else kept.draft,
        )
        await interaction.response.send_modal(modal)
    except Exception as exc:
        await report_error(interaction, exc)


async def on_modal(interaction: Interaction) -> bool:
    """Handle a suggestion modal's submission; False when it is not one of them."""
    data: dict[str, Any] = dict(interaction.data) if interaction.data else {}
    match = MODAL_ID.fullmatch(str(data.get("custom_id", "")))
    if match is None:
        return False
    if match["guild"] is not None:
        mine = None if match["mine"] == "new" else number(match["mine"])
        await member_submit(interaction, number(match["guild"]), mine, match["mine"] == "new")
    elif match["edit"] is not None:
        await review_edit_submit(interaction, number(match["edit"]))
    else:
        await reason_submit(interaction, match["why"], number(match["id"]))
    return True


async def member_submit(
    interaction: Interaction, guild_id: int | None, suggestion_id: int | None, new: bool
) -> None:
    bot = quiz_bot(interaction)
    draft = _draft(interaction)

    async def work(caller: Caller) -> Any:
        if guild_id is None or interaction.guild_id not in (None, guild_id):
            raise QuizError("suggestion_unknown")
        if not new and suggestion_id is None:
            raise QuizError("suggestion_unknown")
        if interaction.guild_id is None:  # from a DM: the name they had in the server
            name = (await bot.suggestions.get(guild_id, suggestion_id)).author_name
        else:
            name = caller.name
        try:
            done = await bot.suggestions.submit(
                guild_id,
                caller.user_id,
                name=display_name(name),
                lang=caller.lang,
                draft=draft,
                suggestion_id=suggestion_id,
            )
        except QuizError as exc:
            if exc.key != "suggestion_not_editable":
                raise
            return None, 0  # decided (or sent) meanwhile: their text is shown back
        opened = done.saved.suggestion
        if opened is not None and opened.state == "open" and done.saved.refused is None:
            # Posted before the member's reply (within the deadline: a slow post defers
            # the reply), so the post is stored once the member is told.
            await post_for_review(interaction, opened, done.check.warnings)
        count = await bot.suggestions.open_count(guild_id, caller.user_id)
        return done, count

    done = await preamble(interaction, work, ephemeral=True)
    if done is None or guild_id is None:
        return
    (submitted, count), lang = done.value, done.lang
    if submitted is None:
        content = t("suggestion_not_editable", lang) + "\n" + typed_text(draft, lang)
        await reply(interaction, content=content, ephemeral=True, allowed_mentions=NO_MENTIONS)
        return
    saved, check = submitted.saved, submitted.check
    suggestion = saved.suggestion
    assert suggestion is not None
    view = member_view(guild_id, suggestion.id, lang)
    if saved.refused == "limit":
        await reply(
            interaction, content=t("suggest_limit", lang, limit=MAX_OPEN), view=view, ephemeral=True
        )
        return
    if not check.ok:
        head = t("suggest_problems", lang, n=len(check.problems))
        content = problems_text(check, lang, head)
        await reply(
            interaction, content=content, view=view, ephemeral=True, allowed_mentions=NO_MENTIONS
        )
        return
    log.info(
        "suggestion %s in guild %s by user %s is open", suggestion.id, guild_id, suggestion.user_id
    )
    content = t("suggest_sent", lang, id=suggestion.id, open=count, limit=MAX_OPEN)
    if check.warnings:
        content = problems_text(check, lang, content)
    await reply(interaction, content=content, ephemeral=True, allowed_mentions=NO_MENTIONS)


async def post_for_review(interaction: Interaction, suggestion: Suggestion, warnings: Any) -> None:
    """Post an open suggestion in the server's review channel, if it set one."""
    bot = quiz_bot(interaction)
    channel_id, _ = await bot.suggestions.settings(suggestion.guild_id)
    if channel_id is None:
        return
    lang: Lang = await bot.service.post_language(suggestion.guild_id, str(interaction.guild_locale))
    try:
        channel = interaction.client.get_partial_messageable(
            channel_id, guild_id=suggestion.guild_id
        )
        message = await channel.send(
            embed=suggestion_embed(suggestion, lang, warnings=warnings),
            view=review_view(suggestion.id, lang),
            allowed_mentions=NO_MENTIONS,
        )
    except discord.HTTPException as exc:
        log.warning(
            "could not post suggestion %s in review channel %s: %s",
            suggestion.id,
            channel_id,
            exc,
        )
        return
    await bot.suggestions.store.set_post(suggestion.guild_id, suggestion.id, channel_id, message.id)


async def review_edit_submit(interaction: Interaction, suggestion_id: int | None) -> None:
    bot = quiz_bot(interaction)
    edited = _draft(interaction)

    async def work(caller: Caller) -> Any:
        guild_id = await check_reviewer(interaction)
        return await bot.suggestions.accept(guild_id, suggestion_id, caller.user_id, edited)

    done = await preamble(interaction, work, ephemeral=True)
    if done is None:
        return
    review, lang = done.value, done.lang
    if review.suggestion is None:
        await edited_problems(interaction, review.check, edited, lang)
        return
    log.info("suggestion %s accepted (edited) by user %s", suggestion_id, interaction.user.id)
    await announce(interaction, review.suggestion, lang, clicked=False)


async def reason_submit(interaction: Interaction, action: str, suggestion_id: int | None) -> None:
    bot = quiz_bot(interaction)
    reason = (submitted_values(interaction.data).get(REASON_FIELD) or [""])[0]
    outcome: Outcome = "changes" if action == "c" else "rejected"

    async def work(caller: Caller) -> Suggestion:
        guild_id = await check_reviewer(interaction)
        return await bot.suggestions.decline(
            guild_id, suggestion_id, caller.user_id, outcome, reason
        )

    done = await preamble(interaction, work, ephemeral=True)
    if done is None:
        return
    log.info("suggestion %s: %s by user %s", suggestion_id, outcome, interaction.user.id)
    await announce(interaction, done.value, done.lang, clicked=False)


async def deliver_notices(interaction: Interaction) -> None:
    """After a member's `/tpquiz` command: each decision on their suggestions not told
    yet, once (marked told first), as an ephemeral followup. Never raises."""
    guild_id = interaction.guild_id
    if guild_id is None or interaction.response.type is discord.InteractionResponseType.modal:
        return
    try:
        found = await quiz_bot(interaction).suggestions.notices(guild_id, interaction.user.id)
        lang = user_lang(interaction)
        name = interaction.guild.name if interaction.guild else "?"
        for suggestion in found:
            extra: dict[str, Any] = {}
            if suggestion.state == "changes":
                extra["view"] = member_view(guild_id, suggestion.id, lang)
            await interaction.followup.send(
                content=notice_text(suggestion, name, lang),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
                **extra,
            )
    except Exception:
        log.warning("could not tell user %s of decisions", interaction.user.id, exc_info=True)
