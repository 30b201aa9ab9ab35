"""Answering interactions: inside Discord's 3-second window, in the member's language.

Work that touches the database usually takes milliseconds, but another process may hold
the write lock (a backup, say). `within_deadline` runs the work and, if it is not done
`DEFER_AFTER` seconds after the interaction was created (its id says when: a click may
have waited before its handler ran), defers the interaction so Discord keeps waiting; the
reply then goes out as a followup or an edit. The work itself is not cancelled, so a slow
commit still lands and the member still hears about it, unless Discord's window closed
first (`bot.ui.deadline`): then nothing that has not been written yet is written, since
no member would ever see its result.

`preamble` is what every handler does before it renders anything: the server check, the
member's language, the work within the deadline, and the error reply if any of it fails.
It is one function so that a handler cannot forget a step (a DM click that reached the
database, an error that left the member with "interaction failed").
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import discord
from discord import app_commands

from bot.i18n import t
from bot.quiz.model import Lang, lang_for_locale
from bot.services.quiz import AnswerNotSaved, QuizError
from bot.storage.errors import WriteFailed
from bot.ui import deadline
from bot.ui.limits import display_name, fit
from bot.ui.options import logged, refusal_for

T = TypeVar("T")
log = logging.getLogger(__name__)

#: Discord's error code for an interaction it no longer knows (its window closed).
UNKNOWN_INTERACTION = 10062

#: The interaction type of the discord.py methods a cog or a button overrides (`callback`,
#: `from_custom_id`, `interaction_check`, `cog_app_command_error`): discord.py declares
#: them generic over the client, so a narrower client there is not a valid override.
#: Each such method hands the interaction on to code typed with a narrower one (a cog's
#: `discord.Interaction[TPQuizBot]`, the UI's `bot.ui.types.Interaction`).
AnyInteraction = discord.Interaction[Any]

#: Seconds after the interaction's creation to defer at; Discord fails it at 3 s.
DEFER_AFTER = deadline.DEFER_AFTER


async def within_deadline(
    interaction: discord.Interaction[Any],
    work: Awaitable[T],
    *,
    ephemeral: bool,
    update: bool = False,
    defer_after: float = DEFER_AFTER,
) -> T:
    """`await work`, deferring the interaction `defer_after` s after its creation if the
    work is not done by then; `InteractionExpired` if Discord's window closed first.

    The window is counted from the interaction's creation, read off its id
    (`bot.ui.deadline`), not from now: under overload a click may have waited before its
    handler ran. One already past Discord's 3 s does not run its work at all (nothing is
    recorded: its member saw "interaction failed", not a result). One whose window closes
    while its work waits (the group commit's queue, the PostgreSQL pool), because the
    defer came too late or Discord refused it as unknown, stops waiting: the work is
    cancelled, and a click still queued is not written (a batch already committing
    cannot be stopped; docs/performance.md says which way this goes).

    Why a timer and not a task plus `asyncio.wait`: every click comes through here, and
    the work is nearly always done in milliseconds; a timer handle is the cheapest way to
    be told of the rare slow one (a task and a wait cost about 25 µs a click, measured in
    bench.answer_path's profile). The defer, when it fires, is its own task; it is awaited
    before returning, so the reply that follows sees the interaction as deferred.
    """
    now = time.time()
    if deadline.expired(interaction.id, now):
        if inspect.iscoroutine(work):
            work.close()  # never started: nothing of it ran
        raise deadline.InteractionExpired(now - deadline.created_at(interaction.id))
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    deferring: list[asyncio.Task[Any]] = []
    waiting = True
    gave_up: float | None = None

    def give_up() -> None:
        nonlocal gave_up
        if waiting and gave_up is None and task is not None:
            gave_up = time.time() - deadline.created_at(interaction.id)
            task.cancel()

    def refused(deferred: asyncio.Task[Any]) -> None:
        if deferred.cancelled():
            return
        failed = deferred.exception()
        if isinstance(failed, discord.NotFound) and failed.code == UNKNOWN_INTERACTION:
            give_up()

    def defer() -> None:
        if interaction.response.is_done():
            return
        if deadline.expired(interaction.id, time.time()):
            give_up()  # the loop ran this timer too late: no defer can be accepted now
            return
        if update:
            deferred = loop.create_task(interaction.response.defer())
        else:
            deferred = loop.create_task(
                interaction.response.defer(ephemeral=ephemeral, thinking=True)
            )
        deferred.add_done_callback(refused)
        deferring.append(deferred)

    timer = loop.call_later(deadline.defer_delay(interaction.id, now, defer_after), defer)
    try:
        return await work
    except asyncio.CancelledError:
        if gave_up is not None and task is not None and task.uncancel() == 0:
            raise deadline.InteractionExpired(gave_up) from None
        raise
    finally:
        waiting = False
        timer.cancel()
        if deferring:
            # The reply must not race the defer; a failed defer is the reply's problem
            # (it then answers as a first response, or reports the error).
            for failed in await asyncio.gather(*deferring, return_exceptions=True):
                if isinstance(failed, BaseException):
                    log.warning("could not defer interaction %s: %r", interaction.id, failed)


async def reply(interaction: discord.Interaction[Any], **kwargs: Any) -> int | None:
    """Send a new message as the response, or as a followup when already deferred.

    Returns the id of the message sent, where Discord says it. Content and embeds are cut
    to Discord's limits first (`bot.ui.limits`): an over-long part would lose the whole reply.
    `view=None` (a listing with nothing to click) means no view: discord.py wants the
    argument left out when sending (None is "remove the buttons" only to an edit), and
    a followup refused it with a TypeError, so a deferred reply was never sent.
    """
    fit(kwargs)
    if "view" in kwargs and kwargs["view"] is None:
        del kwargs["view"]
    if interaction.response.is_done():
        kwargs.setdefault("wait", True)
        message = await interaction.followup.send(**kwargs)
        return message.id if message else None
    response = await interaction.response.send_message(**kwargs)
    return response.message_id if response else None


async def update(interaction: discord.Interaction[Any], **kwargs: Any) -> None:
    """Edit the message a component sits on, as the response or after a deferral."""
    fit(kwargs)
    if interaction.response.is_done():
        await interaction.edit_original_response(**kwargs)
    else:
        await interaction.response.edit_message(**kwargs)


def user_lang(interaction: discord.Interaction[Any]) -> Lang:
    """The language of the member who interacted (their Discord client's locale)."""
    return lang_for_locale(str(interaction.locale))


async def report_error(interaction: discord.Interaction[Any], exc: BaseException) -> None:
    """Tell the member what went wrong, ephemerally, in their language; never raise.

    A `QuizError` names its message. A write that did not commit (`WriteFailed`: disk
    full, database locked, its file lost) is one warning line, and the member is told
    plainly that it was not saved: for an answer, to click again later. Anything else
    is logged with its traceback and the member gets a generic message.
    """
    if isinstance(exc, deadline.InteractionExpired):
        # Discord refuses any reply now; the work did not run, or was given up unwritten.
        log.warning("interaction %s expired before it was answered: %s", interaction.id, exc)
        metrics = getattr(getattr(interaction, "client", None), "metrics", None)
        if metrics is not None:
            metrics.interaction_expired()
        return
    lang = user_lang(interaction)
    if isinstance(exc, AnswerNotSaved):
        log.warning("interaction %s: answer not saved: %s", interaction.id, exc.reason)
        text = t(exc.key, lang)
    elif isinstance(exc, QuizError):
        text = t(exc.key, lang, **exc.params)
    elif isinstance(exc, WriteFailed):
        log.warning("interaction %s: nothing saved: %s", interaction.id, exc.reason)
        text = t("write_failed", lang)
    else:
        log.error("interaction %s failed", interaction.id, exc_info=exc)
        text = t("internal_error", lang)
    try:
        await reply(interaction, content=text, ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not report an error for interaction %s: %s", interaction.id, exc)


async def report_command_error(
    interaction: discord.Interaction[Any], error: app_commands.AppCommandError
) -> None:
    """A command's error handler: an option refused on arrival (`refusal_for`), else what
    the command raised, told to the member as `report_error` does."""
    refused = refusal_for(interaction, error, user_lang(interaction))
    await report_error(interaction, refused or getattr(error, "original", None) or error)


async def refuse_click(interaction: discord.Interaction[Any], key: str) -> None:
    """Answer a click whose custom_id the bot did not write (see bot.ui.custom_ids)."""
    custom_id = interaction.data.get("custom_id") if interaction.data else None
    log.warning(
        "refused a click from user %s in guild %s: custom_id %s (%s)",
        interaction.user.id,
        interaction.guild_id,
        logged(custom_id),
        key,
    )
    await report_error(interaction, QuizError(key))


@dataclass(frozen=True, slots=True)
class Caller:
    """Who interacted, where and in which language: what a handler's work reads."""

    interaction: discord.Interaction[Any]
    lang: Lang

    @property
    def guild_id(self) -> int:
        """The server interacted in; `QuizError("guild_only")` in a DM (reported as any
        failure of the work is), so a handler that needs a server just reads it."""
        guild_id = self.interaction.guild_id
        if guild_id is None:
            raise QuizError("guild_only")
        return guild_id

    @property
    def user_id(self) -> int:
        return self.interaction.user.id

    @property
    def name(self) -> str:
        """The member's display name, cut and cleaned for the leaderboard."""
        return display_name(self.interaction.user.display_name)


@dataclass(frozen=True, slots=True)
class Done(Generic[T]):
    """The work's result, and the language to render it in."""

    value: T
    lang: Lang


async def preamble(
    interaction: discord.Interaction[Any],
    work: Callable[[Caller], Awaitable[T]],
    *,
    ephemeral: bool,
    update: bool = False,
    defer_after: float = DEFER_AFTER,
) -> Done[T] | None:
    """Run a handler's work for `interaction`: None once a failure has been reported.

    The work gets the `Caller` (reading `caller.guild_id` is the server check) and runs
    `within_deadline` (deferred as `ephemeral` / `update` say). Any exception, from the
    check or the work, goes to `report_error`, and the handler only has to return.
    """
    caller = Caller(interaction, user_lang(interaction))
    try:
        value = await within_deadline(
            interaction, work(caller), ephemeral=ephemeral, update=update, defer_after=defer_after
        )
    except Exception as exc:
        await report_error(interaction, exc)
        return None
    return Done(value, caller.lang)
