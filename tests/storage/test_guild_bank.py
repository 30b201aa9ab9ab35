"""A server's own questions (issue 27) on a real SQLite file and a real PostgreSQL server:
the round trip of the bank's model, versions, retiring, the server limit, settings, the
deletion of a server, and that another server sees none of it."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from bot.quiz.model import Text
from bot.quiz.own_questions import BankSettings, PutResult, runtime_id
from tests.factories import make_question
from tests.storage.conftest import Backend

G, OTHER = 10, 20


async def test_a_question_comes_back_as_it_was_stored(backend: Backend) -> None:
    question = make_question("our-01", correct=2, n_choices=5)
    result = await backend.guild_bank.put(G, [(question, ("tr", "en"))], now_ms=1_000)
    assert result == PutResult(added=("our-01",))
    [own] = await backend.guild_bank.current(G)
    assert (own.question_id, own.version, own.languages) == ("our-01", 1, ("tr", "en"))
    assert own.created_at == 1_000 and not own.retired
    assert own.question == replace(question, id=runtime_id("our-01", 1))
    assert await backend.guild_bank.get(G, "our-01") == own
    assert await backend.guild_bank.count(G) == 1


async def test_a_one_language_question_reads_in_both_with_its_words(backend: Backend) -> None:
    question = make_question("en-only")
    await backend.guild_bank.put(G, [(question, ("en",))], now_ms=1)
    own = await backend.guild_bank.get(G, "en-only")
    assert own is not None and own.languages == ("en",)
    assert own.question.tags == {"only-en"}  # what renders the note for Turkish members
    assert own.question.text == Text(tr=question.text.en, en=question.text.en)
    assert own.question.choices[1].feedback == Text(tr="why not 1", en="why not 1")


async def test_an_upload_of_a_known_id_makes_a_new_version_and_keeps_the_old(
    backend: Backend,
) -> None:
    first = make_question("our-01")
    await backend.guild_bank.put(G, [(first, ("tr", "en"))], now_ms=1)
    second = replace(first, source="Narayanan et al. 2021, 3.2")
    result = await backend.guild_bank.put(
        G, [(second, ("tr", "en")), (make_question("our-02"), ("en",))], now_ms=2
    )
    assert result == PutResult(added=("our-02",), replaced=("our-01",))
    current = await backend.guild_bank.get(G, "our-01")
    assert current is not None and current.version == 2
    assert current.question.source == "Narayanan et al. 2021, 3.2"
    assert current.question.id == "our-01@2"
    old = await backend.guild_bank.get(G, "our-01", version=1)
    assert old is not None and old.question.source == first.source
    assert [q.question_id for q in await backend.guild_bank.current(G)] == ["our-01", "our-02"]
    assert await backend.guild_bank.count(G) == 2
    # Every version, for the item statistics that keep each version's figures apart.
    versions = await backend.guild_bank.versions(G)
    assert [q.question.id for q in versions] == ["our-01@1", "our-01@2", "our-02@1"]
    assert versions[0] == old
    assert await backend.guild_bank.versions(OTHER) == []


async def test_a_retired_question_is_not_in_use_and_comes_back_on_upload(
    backend: Backend,
) -> None:
    question = make_question("our-01")
    await backend.guild_bank.put(G, [(question, ("tr", "en"))], now_ms=1)
    assert await backend.guild_bank.retire(G, "our-01", now_ms=5)
    assert not await backend.guild_bank.retire(G, "our-01", now_ms=6)
    assert not await backend.guild_bank.retire(G, "nothing", now_ms=6)
    assert await backend.guild_bank.current(G) == []
    [retired] = await backend.guild_bank.current(G, retired=True)
    assert retired.retired_at == 5
    assert await backend.guild_bank.count(G) == 0
    await backend.guild_bank.put(G, [(question, ("tr", "en"))], now_ms=7)
    [back] = await backend.guild_bank.current(G)
    assert (back.version, back.retired_at) == (2, None)


async def test_the_server_limit_refuses_the_whole_upload(backend: Backend) -> None:
    three = [(make_question(f"q-{i}"), ("en",)) for i in range(3)]
    assert (await backend.guild_bank.put(G, three, now_ms=1, limit=3)).added
    more = [(make_question("q-0"), ("en",)), (make_question("q-9"), ("en",))]
    assert await backend.guild_bank.put(G, more, now_ms=2, limit=3) == PutResult(refused_total=4)
    assert await backend.guild_bank.count(G) == 3
    v = await backend.guild_bank.get(G, "q-0")
    assert v is not None and v.version == 1
    await backend.guild_bank.retire(G, "q-1", now_ms=3)
    assert (await backend.guild_bank.put(G, more, now_ms=4, limit=3)).added == ("q-9",)


async def test_another_server_sees_none_of_them(backend: Backend) -> None:
    await backend.guild_bank.put(G, [(make_question("our-01"), ("tr", "en"))], now_ms=1)
    await backend.guild_bank.set_settings(G, BankSettings(draw="own", daily_share=80))
    assert await backend.guild_bank.current(OTHER, retired=True) == []
    assert await backend.guild_bank.get(OTHER, "our-01") is None
    assert await backend.guild_bank.get(OTHER, "our-01", version=1) is None
    assert not await backend.guild_bank.retire(OTHER, "our-01", now_ms=2)
    assert await backend.guild_bank.count(OTHER) == 0
    assert await backend.guild_bank.settings(OTHER) == BankSettings()
    # The same id in another server is that server's own question, version 1.
    assert (
        await backend.guild_bank.put(OTHER, [(make_question("our-01"), ("en",))], now_ms=3)
    ).added
    other = await backend.guild_bank.get(OTHER, "our-01")
    assert other is not None and (other.version, other.languages) == (1, ("en",))


async def test_settings_default_and_are_replaced(backend: Backend) -> None:
    assert await backend.guild_bank.settings(G) == BankSettings("both", 50)
    await backend.guild_bank.set_settings(G, BankSettings("own", 100))
    await backend.guild_bank.set_settings(G, BankSettings("bundled", 0))
    assert await backend.guild_bank.settings(G) == BankSettings("bundled", 0)


async def test_a_servers_deletion_removes_its_questions_and_settings(backend: Backend) -> None:
    for guild in (G, OTHER):
        await backend.guild_bank.put(guild, [(make_question("our-01"), ("en",))], now_ms=1)
        await backend.guild_bank.put(guild, [(make_question("our-01"), ("en",))], now_ms=2)
        await backend.guild_bank.set_settings(guild, BankSettings("own", 70))
    deleted = await backend.privacy.forget_guild(G)
    assert deleted["guild_questions"] == 2 and deleted["guild_bank_settings"] == 1
    assert await backend.guild_bank.current(G, retired=True) == []
    assert await backend.guild_bank.get(G, "our-01", version=1) is None
    assert await backend.guild_bank.settings(G) == BankSettings()
    assert await backend.guild_bank.count(OTHER) == 1
    assert await backend.guild_bank.settings(OTHER) == BankSettings("own", 70)


async def test_uploads_at_once_to_one_server_each_make_their_own_version(
    backend: Backend,
) -> None:
    question = make_question("our-01")
    await asyncio.gather(
        *(backend.guild_bank.put(G, [(question, ("en",))], now_ms=i) for i in range(5))
    )
    current = await backend.guild_bank.get(G, "our-01")
    assert current is not None and current.version == 5
    rows = await backend.rows(
        "SELECT version, current FROM guild_questions WHERE guild_id = ? ORDER BY version", (G,)
    )
    assert rows == [(1, 0), (2, 0), (3, 0), (4, 0), (5, 1)]
