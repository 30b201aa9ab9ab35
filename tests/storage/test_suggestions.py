"""Members' suggestions (issue 27, bot/storage/stores/suggestions.py) on both backends:
submit and the limit of open ones (also when submissions come at once), a decision made
once, an accepted one stored as a credited server question, forgetting a member (their
suggestions deleted, their name taken off the question) and a server, the export, and
one server never seeing another's."""

from __future__ import annotations

import asyncio
import json

from bot.bank.suggestion_check import check_draft
from bot.quiz.suggestions import MAX_OPEN, Draft, question_id_of, to_question
from tests.quiz.test_suggestion_rules import GOOD
from tests.storage.conftest import Backend

G, OTHER = 7_000_000_000_000_000_027, 7_000_000_000_000_000_028
ALICE, BOB, MOD = 11, 12, 99

DRAFT = GOOD


async def _submit(backend: Backend, user: int = ALICE, guild: int = G, ok: bool = True):
    return await backend.suggestions.submit(
        guild, user, name="Alice *A*", lang="en", draft=DRAFT, ok=ok, now_ms=1_000
    )


async def test_a_submission_is_stored_as_typed_and_queued(backend: Backend) -> None:
    saved = await _submit(backend)
    assert saved.refused is None and saved.suggestion is not None
    s = saved.suggestion
    assert (s.guild_id, s.user_id, s.state, s.language, s.draft) == (G, ALICE, "open", "en", DRAFT)
    assert await backend.suggestions.get(G, s.id) == s
    assert await backend.suggestions.queue(G, offset=0, limit=10) == [s]
    assert await backend.suggestions.queue_size(G) == 1


async def test_a_draft_is_kept_once_and_not_queued(backend: Backend) -> None:
    first = (await _submit(backend, ok=False)).suggestion
    second = (await _submit(backend, ok=False)).suggestion
    assert first is not None and second is not None and second.state == "draft"
    assert await backend.suggestions.get(G, first.id) is None  # replaced
    assert await backend.suggestions.queue_size(G) == 0
    edited = Draft(**{**DRAFT.fields(), "source": "Edited source"})
    saved = await backend.suggestions.resubmit(
        G, second.id, ALICE, name="Alice", lang="en", draft=edited, ok=True, now_ms=2_000
    )
    assert saved.suggestion is not None and saved.suggestion.state == "open"
    assert saved.suggestion.draft.source == "Edited source"
    refused = await backend.suggestions.resubmit(
        G, second.id, BOB, name="Bob", lang="en", draft=edited, ok=True, now_ms=3_000
    )
    assert refused.refused == "gone"


async def test_at_most_five_open_per_member(backend: Backend) -> None:
    for _ in range(MAX_OPEN):
        assert (await _submit(backend)).suggestion is not None
    assert (await _submit(backend)).refused == "limit"
    assert (await _submit(backend, user=BOB)).suggestion is not None
    assert (await _submit(backend, guild=OTHER)).suggestion is not None
    # A draft is not counted, and cannot be opened over the limit.
    draft = (await _submit(backend, ok=False)).suggestion
    assert draft is not None
    over = await backend.suggestions.resubmit(
        G, draft.id, ALICE, name="A", lang="en", draft=DRAFT, ok=True, now_ms=5
    )
    assert over.refused == "limit"


async def test_submissions_at_once_keep_the_limit(backend: Backend) -> None:
    for _ in range(MAX_OPEN - 1):
        await _submit(backend)
    results = await asyncio.gather(*(_submit(backend) for _ in range(2)))
    assert sorted(r.refused or "stored" for r in results) == ["limit", "stored"]
    results = await asyncio.gather(*(_submit(backend, user=BOB) for _ in range(8)))
    assert sum(r.suggestion is not None for r in results) == MAX_OPEN
    count = await backend.scalar(
        "SELECT COUNT(*) FROM suggestions WHERE guild_id = ? AND state = 'open'", (G,)
    )
    assert count == 2 * MAX_OPEN


async def test_a_decision_happens_once(backend: Backend) -> None:
    s = (await _submit(backend)).suggestion
    assert s is not None
    results = await asyncio.gather(
        backend.suggestions.decide(G, s.id, "accepted", reviewer_id=MOD, now_ms=5),
        backend.suggestions.decide(G, s.id, "rejected", reviewer_id=MOD + 1, now_ms=5, reason="x"),
    )
    assert sorted(results) == [False, True]
    decided = await backend.suggestions.get(G, s.id)
    assert decided is not None and decided.state in ("accepted", "rejected")
    assert not await backend.suggestions.decide(OTHER, s.id, "accepted", reviewer_id=1, now_ms=6)


async def test_asked_for_changes_is_resubmitted_as_the_same_suggestion(backend: Backend) -> None:
    s = (await _submit(backend)).suggestion
    assert s is not None
    assert await backend.suggestions.decide(
        G, s.id, "changes", reviewer_id=MOD, now_ms=5, reason="cite a page"
    )
    [told] = await backend.suggestions.claim_notices(G, ALICE, now_ms=6)
    assert (told.id, told.state, told.reason) == (s.id, "changes", "cite a page")
    assert await backend.suggestions.claim_notices(G, ALICE, now_ms=7) == []  # once
    saved = await backend.suggestions.resubmit(
        G, s.id, ALICE, name="Alice", lang="en", draft=DRAFT, ok=True, now_ms=8
    )
    assert saved.suggestion is not None and saved.suggestion.id == s.id
    assert saved.suggestion.state == "open"


async def test_accepted_becomes_a_credited_question_and_forget_me_removes_the_name(
    backend: Backend,
) -> None:
    s = (await _submit(backend)).suggestion
    assert s is not None
    qid = question_id_of(s.id)
    check = check_draft(s.draft, qid, "en")
    assert check.question is not None
    assert await backend.suggestions.decide(
        G, s.id, "accepted", reviewer_id=MOD, now_ms=5, question_id=qid
    )
    await backend.guild_bank.put(G, [check.question], now_ms=5, credits={qid: (ALICE, "Alice *A*")})
    own = await backend.guild_bank.get(G, qid)
    assert own is not None and own.credited and own.credit_name == "Alice *A*"
    assert own.question.source == "Our reading group, session 3"
    assert own.shown.source == r"Our reading group, session 3 · suggested by Alice \*A\*"
    # A new version (a moderator's re-upload) keeps the credit.
    await backend.guild_bank.put(G, [check.question], now_ms=6)
    again = await backend.guild_bank.get(G, qid)
    assert again is not None and again.version == 2 and again.credit_name == "Alice *A*"

    export = await backend.privacy.export_member(G, ALICE)
    [row] = export["suggestions"]
    assert (row["id"], row["state"], row["question_id"]) == (s.id, "accepted", qid)
    assert "suggestions" in export["_about"]
    json.dumps(export)

    deleted = await backend.privacy.forget_member(G, ALICE)
    assert deleted["suggestions"] == 1
    assert await backend.suggestions.mine(G, ALICE) == []
    kept = await backend.guild_bank.get(G, qid)
    assert kept is not None and kept.credited and kept.credit_name is None
    assert kept.shown.source == "Our reading group, session 3 · suggested by a member"
    names = await backend.rows(
        "SELECT credit_user_id, credit_name FROM guild_questions WHERE guild_id = ?", (G,)
    )
    assert set(names) == {(0, None)}


async def test_forget_me_deletes_open_suggestions_only_in_that_server(backend: Backend) -> None:
    await _submit(backend)
    await _submit(backend, ok=False)
    await _submit(backend, guild=OTHER)
    await _submit(backend, user=BOB)
    deleted = await backend.privacy.forget_member(G, ALICE)
    assert deleted["suggestions"] == 2
    assert await backend.suggestions.mine(G, ALICE) == []
    assert len(await backend.suggestions.mine(OTHER, ALICE)) == 1
    assert len(await backend.suggestions.mine(G, BOB)) == 1
    assert G not in await backend.privacy.member_guilds(ALICE)


async def test_a_servers_deletion_removes_its_suggestions_and_settings(backend: Backend) -> None:
    for guild in (G, OTHER):
        await _submit(backend, guild=guild)
        await backend.suggestions.set_settings(guild, channel_id=5, reviewer_role_id=6)
    deleted = await backend.privacy.forget_guild(G)
    assert deleted["suggestions"] == 1 and deleted["suggestion_settings"] == 1
    assert await backend.suggestions.queue_size(G) == 0
    assert await backend.suggestions.settings(G) == (None, None)
    assert await backend.suggestions.queue_size(OTHER) == 1
    assert await backend.suggestions.settings(OTHER) == (5, 6)


async def test_another_server_sees_none(backend: Backend) -> None:
    s = (await _submit(backend)).suggestion
    assert s is not None
    await backend.suggestions.set_settings(G, channel_id=5, reviewer_role_id=None)
    assert await backend.suggestions.get(OTHER, s.id) is None
    assert await backend.suggestions.queue(OTHER, offset=0, limit=10) == []
    assert await backend.suggestions.mine(OTHER, ALICE) == []
    assert await backend.suggestions.settings(OTHER) == (None, None)
    saved = await backend.suggestions.resubmit(
        OTHER, s.id, ALICE, name="A", lang="en", draft=DRAFT, ok=True, now_ms=2
    )
    assert saved.refused == "gone"
    await backend.suggestions.decide(G, s.id, "rejected", reviewer_id=MOD, now_ms=3, reason="no")
    assert await backend.suggestions.claim_notices(OTHER, ALICE, now_ms=4) == []


def test_the_yaml_question_carries_every_field() -> None:
    item = to_question(DRAFT, "suggestion-1", "tr")
    assert item["text"] == {"tr": DRAFT.text}
    assert [c.get("correct", False) for c in item["choices"]] == [True, False, False]  # type: ignore[attr-defined]


async def test_uncredit_takes_the_name_off_only_that_members_questions_in_that_server(
    backend: Backend,
) -> None:
    check = check_draft(DRAFT, "ours-1", "en")
    assert check.question is not None
    for guild in (G, OTHER):
        await backend.guild_bank.put(
            guild, [check.question], now_ms=5, credits={"ours-1": (ALICE, "Alice")}
        )
    other = check_draft(DRAFT, "ours-2", "en").question
    assert other is not None
    await backend.guild_bank.put(G, [other], now_ms=6, credits={"ours-2": (BOB, "Bob")})
    assert await backend.guild_bank.uncredit(G, ALICE) == 1
    mine = await backend.guild_bank.get(G, "ours-1")
    assert mine is not None and mine.credited and mine.credit_name is None
    bobs = await backend.guild_bank.get(G, "ours-2")
    assert bobs is not None and bobs.credit_name == "Bob"
    elsewhere = await backend.guild_bank.get(OTHER, "ours-1")
    assert elsewhere is not None and elsewhere.credit_name == "Alice"
