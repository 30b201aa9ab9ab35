"""`bot.ui.responses.preamble`, the start every handler shares: the server check, the
member's language, the work within Discord's deadline, and the error reply.

The e2e tests drive it through real handlers; these pin what each step does on its own,
on a fake interaction: a DM stops before the work starts, a failure is one ephemeral
reply in the member's language, slow work is deferred and still finishes.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from bot.i18n import t
from bot.services.quiz import QuizError
from bot.ui.limits import display_name
from bot.ui.responses import Caller, Done, preamble


class _Response:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.deferred: list[dict[str, Any]] = []
        self.on_defer = asyncio.Event()

    def is_done(self) -> bool:
        return bool(self.sent or self.deferred)

    async def send_message(self, **kwargs: Any) -> None:
        self.sent.append(kwargs)

    async def defer(self, **kwargs: Any) -> None:
        self.deferred.append(kwargs)
        self.on_defer.set()


def _interaction(*, guild_id: int | None = 5, locale: str = "en-US") -> Any:
    user = SimpleNamespace(id=42, display_name="  Ada\nLovelace ")
    return SimpleNamespace(id=77, locale=locale, guild_id=guild_id, user=user, response=_Response())


async def test_the_work_gets_the_caller_and_its_result_comes_back_with_the_language() -> None:
    interaction = _interaction(locale="tr")
    seen: list[tuple[int, int, str]] = []

    async def work(caller: Caller) -> str:
        seen.append((caller.guild_id, caller.user_id, caller.lang))
        return "done"

    assert await preamble(interaction, work, ephemeral=True) == Done("done", "tr")
    assert seen == [(5, 42, "tr")]
    assert interaction.response.sent == [] and interaction.response.deferred == []


async def test_a_dm_gets_the_guild_only_reply_and_the_work_never_starts() -> None:
    interaction = _interaction(guild_id=None)
    started: list[str] = []

    async def service_call(guild_id: int) -> None:
        started.append("service")

    result = await preamble(interaction, lambda c: service_call(c.guild_id), ephemeral=True)
    assert result is None
    assert started == []
    assert interaction.response.sent == [{"content": t("guild_only", "en"), "ephemeral": True}]


async def test_a_failing_work_is_reported_once_in_the_members_language() -> None:
    interaction = _interaction(locale="tr")

    async def work(caller: Caller) -> None:
        raise QuizError("unknown_post")

    assert await preamble(interaction, work, ephemeral=True) is None
    assert interaction.response.sent == [{"content": t("unknown_post", "tr"), "ephemeral": True}]


async def test_slow_work_is_deferred_as_asked_and_still_finishes() -> None:
    release = asyncio.Event()

    async def work(caller: Caller) -> int:
        await release.wait()
        return 3

    for update, wanted in ((False, {"ephemeral": True, "thinking": True}), (True, {})):
        interaction = _interaction()
        # defer_after=0: the work is not done at the first look, so it is deferred at once.
        running = asyncio.ensure_future(
            preamble(interaction, work, ephemeral=True, update=update, defer_after=0)
        )
        await interaction.response.on_defer.wait()
        assert not running.done()
        release.set()
        assert await running == Done(3, "en")
        assert interaction.response.deferred == [wanted]
        release.clear()


def test_the_callers_name_is_the_one_the_bot_stores() -> None:
    caller = Caller(_interaction(), "en")
    assert caller.name == display_name("  Ada\nLovelace ") != "  Ada\nLovelace "
