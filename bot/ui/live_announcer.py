"""What quiz night shows on Discord at each step (issue 26): `DiscordAnnouncer`, the
`Announcer` bot/services/live.py calls.

The public messages (lobby, each question, its reveal, the top 5, the podium) go to the
session's channel through a partial messageable (no cache needed after a restart). The
private verdicts edit each player's ephemeral "locked in" reply through its interaction
(an interaction's webhook accepts edits for 15 minutes), as Discord intends for
ephemeral replies; the replies are remembered in memory only (an interaction's token
is not stored), so after a restart the reveal is public but the verdicts of choices
locked in before it are not edited. A channel the bot can no longer reach ends the
session, said once in the log; the summaries at the end are followups on each player's
last reply, and the host's report (bot/ui/live_report.py) a followup on the command.

Figures (issue 29, bot/ui/figures.py): a question's figure goes with its message (and
stays through the countdown's edits, which keep the attachment); the reveal shows the
explanation's figure in its place (or keeps the question's when there is none), drawn in
the server's language through the bot's one `FigureCache`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.i18n import t
from bot.quiz.live_state import LiveQuestion, LiveSession
from bot.quiz.model import Lang, Question
from bot.services.live import Final, LiveService, Reveal
from bot.ui.buttons.live import lobby_view, question_view
from bot.ui.figures import FigureCache, attach, show_explanation_figure, show_question_figure
from bot.ui.poster import Pacer
from bot.ui.render_live import (
    lang_of,
    live_question_embed,
    podium_embed,
    reveal_embed,
    summary_text,
    top_embed,
    verdict_embed,
)

log = logging.getLogger(__name__)

Key = tuple[int, int, int]
#: The host's report, sent when a session ends: (final, the command's interaction).
ReportHook = Callable[[Final, discord.Interaction[Any]], Awaitable[None]]


class DiscordAnnouncer:
    def __init__(
        self,
        client: discord.Client,
        live: LiveService,
        pacer: Pacer | None = None,
        figures: FigureCache | None = None,
    ) -> None:
        self.client = client
        self.live = live
        #: The bot's figure cache; None draws no figures (a bench, say).
        self.figures = figures
        #: The daily posts' pacer (bot/ui/poster.py): the channel sends and edits of every
        #: session share Discord's global budget with the daily posts and reminders.
        #: Interaction edits (the verdicts) are not counted against it by Discord.
        self.pacer = pacer
        #: (session, position, user) -> the player's latest "locked in" reply.
        self.replies: dict[Key, tuple[discord.Interaction[Any], Lang]] = {}
        #: (session, user) -> the player's latest reply of the session, for the summary.
        self.last: dict[tuple[int, int], tuple[discord.Interaction[Any], Lang]] = {}
        #: session -> the host's `/tpquiz live` interaction, for the report.
        self.hosts: dict[int, discord.Interaction[Any]] = {}
        self.report: ReportHook | None = None

    def remember(
        self, session_id: int, position: int, user_id: int,
        interaction: discord.Interaction[Any], lang: Lang,
    ) -> None:  # fmt: skip
        self.replies[(session_id, position, user_id)] = (interaction, lang)
        self.last[(session_id, user_id)] = (interaction, lang)

    async def _paced(self) -> None:
        if self.pacer is not None:
            await self.pacer.wait()

    def _channel(self, session: LiveSession) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(session.channel_id, guild_id=session.guild_id)

    async def _gone(self, session: LiveSession, exc: discord.HTTPException) -> None:
        """The channel or message is gone, or the bot may no longer use it: end cleanly."""
        log.warning(
            "live session %s in channel %s ends: cannot post there (%s %s)",
            session.id, session.channel_id, exc.status, exc.text,
        )  # fmt: skip
        await self.live.store.end(session.id, now_ms=self.live.quiz.now_ms(), reason="channel_gone")
        self.live.nudge(session.id)

    async def question(self, session: LiveSession, live: LiveQuestion, question: Question) -> None:
        lang = lang_of(session)
        channel = self._channel(session)
        if live.position == 0 and session.lobby_message_id is not None:
            try:  # the lobby's buttons go; a lobby deleted meanwhile changes nothing
                await self._paced()
                await channel.get_partial_message(session.lobby_message_id).edit(
                    view=lobby_view(session.id, lang, disabled=True)
                )
            except discord.HTTPException as exc:
                log.info("live session %s: lobby not edited: %s", session.id, exc.status)
        send: dict[str, Any] = {
            "embed": show_question_figure(live_question_embed(session, live, question), question),
            "view": question_view(session.id, live.position, live.order, lang),
        }
        if self.figures is not None:
            await attach(self.figures, send, [question], lang)
        try:
            await self._paced()
            message = await channel.send(**send)
        except discord.HTTPException as exc:
            await self._gone(session, exc)
            return
        await self.live.quiz.attach_message(live.post_id, message.id)

    async def timer(self, session: LiveSession, live: LiveQuestion, question: Question) -> None:
        """Paused: the countdown gives way to "paused"; resumed: the new deadline's."""
        if live.message_id is None:
            return
        try:
            await self._paced()
            await (
                self._channel(session)
                .get_partial_message(live.message_id)
                .edit(
                    embed=show_question_figure(
                        live_question_embed(session, live, question), question
                    )
                )
            )
        except discord.HTTPException as exc:
            log.info("live session %s: countdown not edited: %s", session.id, exc.status)

    async def reveal(self, reveal: Reveal) -> None:
        session, live = reveal.session, reveal.live
        lang = lang_of(session)
        channel = self._channel(session)
        try:
            if live.message_id is not None:
                edit = await self._reveal_edit(reveal, lang)
                await self._paced()
                await channel.get_partial_message(live.message_id).edit(**edit)
            await self._paced()
            await channel.send(embed=top_embed(session, reveal.standings))
        except discord.HTTPException as exc:
            await self._gone(session, exc)
        edits = []
        for verdict in reveal.verdicts:
            found = self.replies.pop((session.id, live.position, verdict.user_id), None)
            if found is not None:
                interaction, member_lang = found
                edits.append(self._verdict(interaction, reveal, verdict, member_lang))
        await asyncio.gather(*edits)

    async def _reveal_edit(self, reveal: Reveal, lang: Lang) -> dict[str, Any]:
        """The reveal's edit of the question message: the explanation's figure in place of
        the question's (the question's stays when there is no explanation figure)."""
        session, live, question = reveal.session, reveal.live, reveal.question
        embed = reveal_embed(reveal)
        if question.explanation_figure is not None:
            show_explanation_figure(embed, question)
        else:
            show_question_figure(embed, question)
        edit: dict[str, Any] = {
            "embed": embed,
            "view": question_view(session.id, live.position, live.order, lang, disabled=True),
        }
        if self.figures is not None:
            await attach(self.figures, edit, [question], lang, edit=True)
        return edit

    async def _verdict(
        self, interaction: discord.Interaction[Any], reveal: Reveal, verdict: Any, lang: Lang
    ) -> None:
        try:
            await interaction.edit_original_response(
                content=None, embed=verdict_embed(reveal, verdict, lang)
            )
        except discord.HTTPException as exc:
            log.info("live verdict for user %s not edited: %s", verdict.user_id, exc.status)

    async def finished(self, final: Final) -> None:
        session = final.session
        channel = self._channel(session)
        try:
            if session.position < 0 and session.lobby_message_id is not None:
                # Cancelled in the lobby: its buttons go.
                await self._paced()
                await channel.get_partial_message(session.lobby_message_id).edit(
                    view=lobby_view(session.id, lang_of(session), disabled=True)
                )
            elif session.position >= 0:
                # Ended during a question: its buttons go (it is not scored).
                live = (await self.live.store.questions(session.id))[session.position]
                if live.revealed_at is None and live.message_id is not None:
                    await self._paced()
                    await channel.get_partial_message(live.message_id).edit(
                        view=question_view(
                            session.id, live.position, live.order, lang_of(session),
                            disabled=True,
                        )
                    )  # fmt: skip
            await self._paced()
            await channel.send(embed=podium_embed(final))
        except discord.HTTPException as exc:
            log.warning("live session %s: podium not posted: %s", session.id, exc.status)
        latest = {
            user: self.last.pop((sid, user)) for sid, user in list(self.last) if sid == session.id
        }
        for key in [k for k in self.replies if k[0] == session.id]:
            del self.replies[key]
        sends = [
            self._summary(interaction, summary_text(final, user, lang))
            for user, (interaction, lang) in latest.items()
        ]
        await asyncio.gather(*sends)
        host = self.hosts.pop(session.id, None)
        if host is not None and self.report is not None and final.questions:
            try:
                await self.report(final, host)
            except discord.HTTPException as exc:
                log.info("live session %s: report not sent: %s", session.id, exc.status)

    async def _summary(self, interaction: discord.Interaction[Any], text: str) -> None:
        try:
            await interaction.followup.send(content=text, ephemeral=True)
        except discord.HTTPException as exc:
            log.info("live summary not sent: %s", exc.status)


def running_text(session: LiveSession, lang: Lang) -> str:
    """'A live quiz is already running in this channel: <link>'."""
    message = session.lobby_message_id or 0
    link = f"https://discord.com/channels/{session.guild_id}/{session.channel_id}/{message}"
    return t("live_running", lang, link=link)
