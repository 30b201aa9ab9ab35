"""`QuizService` when the answer cannot be written (issue 10, item 6): the answer path
raises `AnswerNotSaved` (the member is told it was not saved) only when the answer itself
did not commit; a streak or a test's end that fails after it is a warning."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.services.quiz import AnswerNotSaved, QuizError, QuizService
from bot.storage.sqlite import Storage
from tests.factories import make_bank

GUILD = 5


@pytest.fixture
async def service(tmp_path: Path):
    storage = await Storage.open(tmp_path / "q.sqlite3")
    yield QuizService(
        make_bank(), storage, lambda: datetime(2026, 1, 5, tzinfo=UTC), random.Random(1)
    )
    await storage.close()


async def test_an_answer_that_does_not_commit_is_not_saved(
    service: QuizService, monkeypatch: pytest.MonkeyPatch
) -> None:
    post, _ = await service.new_post(guild_id=GUILD, channel_id=1, language="en")
    db, conn = service.storage.db, service.storage.db.conn
    pages = (await (await conn.execute("PRAGMA page_count")).fetchone())[0]
    # The click is written on the database's own connection; the limit is per connection.
    await db.call(lambda c: c.execute(f"PRAGMA max_page_count = {pages}"))  # SQLITE_FULL next
    with pytest.raises(AnswerNotSaved) as raised:
        for user in range(1, 500):  # until a page fills
            await service.answer_post(
                post_id=post.id, guild_id=GUILD, user_id=user, name="n" * 200, choice_index=0
            )
    assert raised.value.reason == "database or disk is full (SQLITE_FULL)"
    assert raised.value.key == "answer_not_saved"
    rows = await conn.execute_fetchall("SELECT 1 FROM answers WHERE user_id = ?", (user,))
    assert list(rows) == []  # nothing of the failed answer was written
    await db.call(lambda c: c.execute(f"PRAGMA max_page_count = {pages * 100}"))
    again = await service.answer_post(
        post_id=post.id, guild_id=GUILD, user_id=user, name="n", choice_index=0
    )
    assert again.result is not None and not again.result.duplicate  # it was not saved before


# -- the click path's memory of open posts (PostStore.for_click) ------------------


async def test_a_remembered_post_is_read_once_and_still_closes_in_the_transaction(
    service: QuizService,
) -> None:
    post, _ = await service.new_post(guild_id=GUILD, channel_id=1, language="en", kind="daily")
    reads: list[str] = []
    await service.storage.db.conn.set_trace_callback(reads.append)
    first = await service.answer_post(
        post_id=post.id, guild_id=GUILD, user_id=1, name="a", choice_index=0
    )
    second = await service.answer_post(
        post_id=post.id, guild_id=GUILD, user_id=2, name="b", choice_index=0
    )
    await service.storage.db.conn.set_trace_callback(None)
    assert first.result is not None and second.result is not None
    assert sum("FROM posts WHERE id" in sql for sql in reads) == 1  # the second from memory
    assert await service.storage.daily.close(post.id, 10) is not None
    late = await service.answer_post(
        post_id=post.id, guild_id=GUILD, user_id=3, name="c", choice_index=0
    )
    assert late.closed and late.result is None  # the remembered copy said open
    with sqlite3.connect(service.storage.db.path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM answers").fetchone() == (2,)


async def test_a_remembered_post_whose_server_data_was_deleted_is_unknown(
    service: QuizService,
) -> None:
    post, _ = await service.new_post(guild_id=GUILD, channel_id=1, language="en")
    await service.answer_post(post_id=post.id, guild_id=GUILD, user_id=1, name="a", choice_index=0)
    await service.storage.privacy.forget_guild(GUILD)
    with pytest.raises(QuizError) as raised:
        await service.answer_post(
            post_id=post.id, guild_id=GUILD, user_id=2, name="b", choice_index=0
        )
    assert raised.value.key == "unknown_post"
    with sqlite3.connect(service.storage.db.path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM answers").fetchone() == (0,)


async def test_a_topic_with_no_question_here_is_named_in_the_readers_language(
    service: QuizService,
) -> None:
    """Issue 32: the refusal names the topics, not their slugs, in whichever language the
    member who asked reads."""
    from bot.i18n import t

    with pytest.raises(QuizError) as raised:
        await service.new_post(guild_id=GUILD, channel_id=1, language="en", topic="overlap")
    assert raised.value.key == "unknown_topic"
    assert t(raised.value.key, "tr", **raised.value.params) == (
        "'İletişimi örtüştürme' diye bir konu yok."
        " Konular: Temel kavramlar, MLP'nin bölünmesi, Kolektif işlemler"
    )
    assert t(raised.value.key, "en", **raised.value.params) == (
        "There is no topic 'Communication overlap'."
        " Topics: Basics, Splitting the MLP, Collective operations"
    )
