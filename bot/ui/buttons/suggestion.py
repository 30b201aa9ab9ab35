"""The buttons of members' suggestions (issue 27) and what a click on them does.

Three `DynamicItem`s, all their state in the custom_id, so they work after a restart:

* `tpq:sgd:<guild>:<id>` "Edit" for the author: reopens the suggestion modal prefilled
  with their kept text (a draft with problems, or one the moderators asked to change).
  The guild is in the id because the button also comes by DM.
* `tpq:sg:<a|e|c|r>:<id>` Accept / Edit / Ask for changes / Reject, on the review post
  and on `/tpquiz-admin suggestions`. Who may press them is checked here, at click time,
  against the server's settings (Manage Server, or its reviewer role): anyone who sees a
  button can click it, and a custom_id can be forged.
* `tpq:sgq:<page>:<prev|next>` pages through the queue.

Accept decides here; Edit and the two with a reason open a modal whose submission
bot/ui/suggestion_flow.py handles. `announce` tells everyone of a decision: the review
post (and the message clicked) shows it, and the author gets a DM (a closed DM is fine).
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.i18n import t
from bot.quiz.model import Lang
from bot.quiz.suggestions import Suggestion
from bot.services.quiz import QuizError
from bot.ui.custom_ids import number
from bot.ui.render_suggestions import (
    decision_status,
    notice_text,
    problems_text,
    reason_modal,
    suggest_modal,
    suggestion_embed,
    typed_text,
)
from bot.ui.responses import AnyInteraction, preamble, reply, report_error, update, user_lang
from bot.ui.types import Interaction, quiz_bot

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
_ACTIONS = {"a": "review_accept", "e": "review_edit", "c": "review_changes", "r": "review_reject"}
_STYLES = {
    "a": discord.ButtonStyle.success,
    "e": discord.ButtonStyle.primary,
    "c": discord.ButtonStyle.secondary,
    "r": discord.ButtonStyle.danger,
}


# -- who may review -------------------------------------------------------------------


async def check_reviewer(interaction: Interaction) -> int:
    """The server, for a member who may review its suggestions (else a QuizError):
    Manage Server, or the reviewer role the server set; read now, not when posted."""
    guild_id = interaction.guild_id
    if guild_id is None:
        raise QuizError("guild_only")
    roles = {role.id for role in getattr(interaction.user, "roles", [])}
    service = quiz_bot(interaction).suggestions
    if not await service.may_review(
        guild_id, manage_guild=interaction.permissions.manage_guild, role_ids=roles
    ):
        log.info("refused a review in guild %s to user %s", guild_id, interaction.user.id)
        raise QuizError("suggestion_not_reviewer")
    return guild_id


# -- the buttons ----------------------------------------------------------------------


class EditSuggestionButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:sgd:(?P<guild>[^:]+):(?P<id>[^:]+)",
):
    """The author's Edit: the modal again, prefilled from the database."""

    def __init__(self, guild_id: int | None, suggestion_id: int | None, label: str = "Edit"):
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.primary,
                custom_id=f"tpq:sgd:{guild_id}:{suggestion_id}",
            )
        )
        self.guild_id = guild_id
        self.suggestion_id = suggestion_id

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> EditSuggestionButton:
        return cls(number(match["guild"]), number(match["id"]))

    async def callback(self, interaction: AnyInteraction) -> None:
        await open_member_modal(interaction, self.guild_id, self.suggestion_id)


class ReviewButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:sg:(?P<action>[aecr]):(?P<id>[^:]+)",
):
    """Accept, Edit, Ask for changes or Reject one suggestion."""

    def __init__(self, action: str, suggestion_id: int | None, label: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=_STYLES[action],
                custom_id=f"tpq:sg:{action}:{suggestion_id}",
            )
        )
        self.action = action
        self.suggestion_id = suggestion_id

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReviewButton:
        return cls(match["action"], number(match["id"]))

    async def callback(self, interaction: AnyInteraction) -> None:
        if self.action == "a":
            await accept_click(interaction, self.suggestion_id)
        else:
            await review_modal(interaction, self.action, self.suggestion_id)


class QueueButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:sgq:(?P<page>[^:]+):(?P<dir>prev|next)",
):
    """Previous/Next through `/tpquiz-admin suggestions`; the page is in the id."""

    def __init__(self, page: int, direction: str, label: str = "", disabled: bool = False):
        super().__init__(
            discord.ui.Button(
                label=label or direction,
                style=discord.ButtonStyle.secondary,
                custom_id=f"tpq:sgq:{page}:{direction}",
                disabled=disabled,
            )
        )
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> QueueButton:
        return cls(number(match["page"], 999_999) or 0, match["dir"])

    async def callback(self, interaction: AnyInteraction) -> None:
        await show_queue(interaction, self.page, edit=True)


def member_view(guild_id: int, suggestion_id: int, lang: Lang) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(EditSuggestionButton(guild_id, suggestion_id, t("suggest_edit_button", lang)))
    return view


def review_view(
    suggestion_id: int, lang: Lang, page: tuple[int, int] | None = None
) -> discord.ui.View:
    """The four review buttons; with `page` (shown, pages) the queue's Previous/Next."""
    view = discord.ui.View(timeout=None)
    for action, key in _ACTIONS.items():
        view.add_item(ReviewButton(action, suggestion_id, t(key, lang)))
    if page is not None:
        shown, pages = page
        view.add_item(
            QueueButton(max(shown - 1, 0), "prev", t("previous", lang), disabled=shown <= 0)
        )
        view.add_item(
            QueueButton(
                min(shown + 1, pages - 1), "next", t("next", lang), disabled=shown >= pages - 1
            )
        )
    return view


# -- what the clicks do ---------------------------------------------------------------


async def open_member_modal(
    interaction: Interaction, guild_id: int | None, suggestion_id: int | None
) -> None:
    """The author's modal, prefilled (a modal cannot follow a deferral: one read first)."""
    lang = user_lang(interaction)
    try:
        if guild_id is None or interaction.guild_id not in (None, guild_id):
            raise QuizError("suggestion_unknown")
        service = quiz_bot(interaction).suggestions
        found = await service.editable(guild_id, suggestion_id, interaction.user.id)
        title = t("suggest_edit_title", lang, id=found.id)
        custom_id = f"tpq:sgm:{guild_id}:{found.id}"
        await interaction.response.send_modal(suggest_modal(custom_id, title, lang, found.draft))
    except Exception as exc:
        await report_error(interaction, exc)


async def review_modal(interaction: Interaction, action: str, suggestion_id: int | None) -> None:
    """Edit (prefilled) or a reason's modal, for a reviewer, on an open suggestion."""
    lang = user_lang(interaction)
    try:
        guild_id = await check_reviewer(interaction)
        found = await quiz_bot(interaction).suggestions.open_one(guild_id, suggestion_id)
        if action == "e":
            title = t("suggest_review_title", lang, id=found.id)
            modal = suggest_modal(f"tpq:sgx:{found.id}", title, lang, found.draft)
        else:
            key = "review_changes_title" if action == "c" else "review_reject_title"
            modal = reason_modal(f"tpq:sgr:{action}:{found.id}", t(key, lang, id=found.id), lang)
        await interaction.response.send_modal(modal)
    except Exception as exc:
        await report_error(interaction, exc)


async def accept_click(interaction: Interaction, suggestion_id: int | None) -> None:
    bot = quiz_bot(interaction)

    async def work(caller: Any) -> Any:
        guild_id = await check_reviewer(interaction)
        return await bot.suggestions.accept(guild_id, suggestion_id, interaction.user.id)

    done = await preamble(interaction, work, ephemeral=True)
    if done is None:
        return
    review, lang = done.value, done.lang
    if review.suggestion is None:  # the bank's checks changed since it was sent
        head = t("suggestion_accepted_problems", lang, n=len(review.check.problems))
        await reply(
            interaction,
            content=problems_text(review.check, lang, head),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )
        return
    log.info(
        "suggestion %s of guild %s accepted by user %s as %s",
        review.suggestion.id,
        review.suggestion.guild_id,
        interaction.user.id,
        review.suggestion.question_id,
    )
    await announce(interaction, review.suggestion, lang, clicked=True)


async def edited_problems(interaction: Interaction, check: Any, edited: Any, lang: Lang) -> None:
    """A moderator's edit with problems: the problems and their text, so none is lost."""
    head = t("suggestion_accepted_problems", lang, n=len(check.problems))
    await reply(
        interaction,
        content=problems_text(check, lang, head) + "\n" + typed_text(edited, lang),
        ephemeral=True,
        allowed_mentions=NO_MENTIONS,
    )


async def announce(
    interaction: Interaction, suggestion: Suggestion, lang: Lang, *, clicked: bool
) -> None:
    """A decision shown: the message clicked (when `clicked`) and the review post show it
    without buttons; the author gets a DM. Failures are logged: the decision stands."""
    reviewer = interaction.user.display_name
    status = decision_status(suggestion, reviewer, lang)
    embed = suggestion_embed(suggestion, lang, status=status)
    clicked_id = interaction.message.id if clicked and interaction.message else None
    if clicked:
        await update(interaction, embed=embed, view=None, allowed_mentions=NO_MENTIONS)
    else:
        await reply(interaction, content=status, ephemeral=True, allowed_mentions=NO_MENTIONS)
    client = interaction.client
    if suggestion.post is not None and suggestion.post[1] != clicked_id:
        channel_id, message_id = suggestion.post
        try:
            message = client.get_partial_messageable(channel_id).get_partial_message(message_id)
            await message.edit(embed=embed, view=None, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("could not edit review post %s: %s", message_id, exc)
    await direct_message(interaction, suggestion)


async def direct_message(interaction: Interaction, suggestion: Suggestion) -> None:
    """Tell the author by DM, in the language they wrote the suggestion in."""
    lang = suggestion.language
    guild = interaction.guild
    text = notice_text(suggestion, guild.name if guild else "?", lang)
    try:
        channel = await interaction.client.create_dm(discord.Object(suggestion.user_id))
        if suggestion.state == "changes":
            view = member_view(suggestion.guild_id, suggestion.id, lang)
            await channel.send(content=text, view=view, allowed_mentions=NO_MENTIONS)
        else:
            await channel.send(content=text, allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as exc:  # closed DMs (403 50007) are the member's choice
        log.info("no DM of suggestion %s to its author: %s", suggestion.id, exc.status)


async def show_queue(interaction: Interaction, page: int, *, edit: bool) -> None:
    """One open suggestion a page, with its review buttons (reviewers only)."""
    bot = quiz_bot(interaction)

    async def work(caller: Any) -> Any:
        guild_id = await check_reviewer(interaction)
        return await bot.suggestions.page(guild_id, page)

    done = await preamble(interaction, work, ephemeral=True, update=edit)
    if done is None:
        return
    (found, shown, pages), lang = done.value, done.lang
    if found is None:
        embed = discord.Embed(title=t("suggestions_title", lang))
        embed.description = t("suggestions_empty", lang)
        sent: dict[str, Any] = {"embed": embed, "view": None}
    else:
        embed = suggestion_embed(found, lang)
        embed.set_author(name=t("suggestions_page", lang, page=shown + 1, pages=pages))
        sent = {"embed": embed, "view": review_view(found.id, lang, (shown, pages))}
    if edit:
        await update(interaction, allowed_mentions=NO_MENTIONS, **sent)
    else:
        await reply(interaction, ephemeral=True, allowed_mentions=NO_MENTIONS, **sent)
