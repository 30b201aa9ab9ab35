"""End to end: TPQUIZ_SYNC_GUILDS naming a server the bot is not in (issue #10, item 8).

The loopback answers a command sync to a guild it does not know with 403 Missing Access,
as Discord does. The bot skips that guild with one warning naming it, syncs the others
and runs; the skipped guild is tried again at the next start.
"""

from __future__ import annotations

import logging

import pytest

from tests.e2e.conftest import GUILD_ID, QuizHarness

NOT_IN = 1_300_000_000_000_009_001
GUILD_COMMANDS = "/applications/{application_id}/guilds/{guild_id}/commands"


async def test_a_sync_guild_the_bot_is_not_in_is_skipped_with_a_warning(
    quiz: QuizHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.runtime.bot")
    async with quiz.bot(sync_guilds=(NOT_IN, GUILD_ID)) as bot:
        assert bot.is_ready()
        assert {c["name"] for c in quiz.loopback.commands[GUILD_ID]} == {"tpquiz", "tpquiz-admin"}
        assert NOT_IN not in quiz.loopback.commands
    puts = quiz.loopback.find("PUT", GUILD_COMMANDS)
    assert [(int(p.params["guild_id"]), p.status) for p in puts] == [(NOT_IN, 403), (GUILD_ID, 200)]
    messages = [r.getMessage() for r in caplog.records if r.name == "bot.runtime.bot"]
    assert messages == [
        f"TPQUIZ_SYNC_GUILDS: skipped guild {NOT_IN}: Discord refused the command sync (403"
        " Missing Access, code 50001): is the bot in that server, invited with the"
        " applications.commands scope? Remove the id or invite the bot",
        f"synced 2 commands to {GUILD_ID}",
    ]
    assert not [r for r in caplog.records if r.exc_info]

    # The next start tries the skipped guild again, and leaves the synced one alone.
    async with quiz.bot(sync_guilds=(NOT_IN, GUILD_ID)):
        pass
    again = quiz.loopback.find("PUT", GUILD_COMMANDS)[len(puts) :]
    assert [(int(p.params["guild_id"]), p.status) for p in again] == [(NOT_IN, 403)]
