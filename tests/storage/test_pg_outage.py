"""The answer paths while PostgreSQL is down (issue 31, defect 8), at the service level.

A click on a post not yet in the bot's memory, and a click in a personal test, first
read (the post, the test run); with the server stopped that read fails, and the click
must be `AnswerNotSaved`, what a failed write already is, not a driver error. The
reply it makes is checked end to end in tests/e2e/test_pg_outage.py.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from bot.services.quiz import AnswerNotSaved, QuizService
from bot.storage.pg.storage import PgStorage
from tests.factories import make_bank
from tests.pg_server import PgServer

GUILD = 5


async def test_clicks_that_must_read_first_are_not_saved_while_the_server_is_down(
    own_pg_server: PgServer,
) -> None:
    storage = await PgStorage.open(own_pg_server.url())
    service = QuizService(
        make_bank(),
        storage,  # type: ignore[arg-type]
        lambda: datetime(2026, 1, 5, tzinfo=UTC),
        random.Random(1),
    )
    try:
        post, _ = await service.new_post(guild_id=GUILD, channel_id=1, language="en")
        run, _ = await service.start_test(guild_id=GUILD, user_id=2)
        own_pg_server.halt()
        with pytest.raises(AnswerNotSaved) as on_post:
            await service.answer_post(
                post_id=post.id, guild_id=GUILD, user_id=1, name="a", choice_index=0
            )
        with pytest.raises(AnswerNotSaved) as in_test:
            await service.answer_test(
                run_id=run.id, guild_id=GUILD, user_id=2, name="b", position=0, choice_index=0
            )
        for raised in (on_post, in_test):
            assert raised.value.key == "answer_not_saved" and raised.value.reason
        own_pg_server.resume()
        done = await service.answer_post(
            post_id=post.id, guild_id=GUILD, user_id=1, name="a", choice_index=0
        )
        assert done.result is not None and not done.result.duplicate
    finally:
        await storage.close()
