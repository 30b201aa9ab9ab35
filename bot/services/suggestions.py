"""Members suggest questions, moderators review them (issue 27). No Discord here: the
cog (cogs/suggestions/) reads the modal and the clicks and renders; this joins the
checks (bot/bank/suggestion_check.py, the upload's own) to the `suggestions` store and,
for an accepted suggestion, to the server's questions.

An accepted suggestion becomes a server question by the path an upload takes
(`GuildBankContract.put`, then the server's pool forgotten and its item statistics
marked stale), credited to its author in a column beside the question, not in its body.
The checks (near-duplicates against the bundled bank and the server's questions) take
CPU time, so they run in a thread, as an upload's do.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.bank.suggestion_check import DraftCheck, check_draft
from bot.quiz.model import Lang
from bot.quiz.own_questions import MAX_SERVER_QUESTIONS
from bot.quiz.suggestions import (
    ACTIVE,
    MAX_REASON,
    Draft,
    Outcome,
    Saved,
    Suggestion,
    can_decide,
    question_id_of,
)
from bot.services.quiz import QuizError, QuizService

__all__ = ["Review", "Submitted", "SuggestionService"]


@dataclass(frozen=True)
class Submitted:
    """A submission's checks and what was stored (a draft when the checks failed)."""

    check: DraftCheck
    saved: Saved


@dataclass(frozen=True)
class Review:
    """A moderator's decision: the suggestion as decided, or the problems of their
    edited text (nothing decided)."""

    suggestion: Suggestion | None
    check: DraftCheck | None = None


class SuggestionService:
    def __init__(self, service: QuizService) -> None:
        self.service = service
        self.store = service.storage.suggestions

    async def check(
        self, guild_id: int, draft: Draft, lang: Lang, question_id: str = "suggestion-0"
    ) -> DraftCheck:
        own = await self.service.storage.guild_bank.current(guild_id, retired=True)
        return await asyncio.to_thread(
            check_draft, draft, question_id, lang, bundled=self.service.bank, own=own
        )

    async def submit(
        self,
        guild_id: int,
        user_id: int,
        *,
        name: str,
        lang: Lang,
        draft: Draft,
        suggestion_id: int | None = None,
        keep_only: bool = False,
    ) -> Submitted:
        """A new suggestion (`suggestion_id` None), or the author's edit of their draft or
        of one asked for changes. With problems, or over the limit of open ones, it is
        kept as typed (a draft, or still asked for changes), so the modal reopens with
        it (`keep_only`: keep it so without checking)."""
        check = DraftCheck(None, (), ()) if keep_only else await self.check(guild_id, draft, lang)
        ok = check.ok and not keep_only
        if suggestion_id is None:
            saved = await self.store.submit(
                guild_id,
                user_id,
                name=name,
                lang=lang,
                draft=draft,
                ok=ok,
                now_ms=self.service.now_ms(),
            )
        else:
            saved = await self.store.resubmit(
                guild_id,
                suggestion_id,
                user_id,
                name=name,
                lang=lang,
                draft=draft,
                ok=ok,
                now_ms=self.service.now_ms(),
            )
        if saved.refused == "gone":
            raise QuizError("suggestion_not_editable")
        if saved.refused == "limit":  # over the limit: kept as a draft all the same
            kept = await self.submit(
                guild_id,
                user_id,
                name=name,
                lang=lang,
                draft=draft,
                suggestion_id=suggestion_id,
                keep_only=True,
            )
            return Submitted(check, Saved(kept.saved.suggestion, "limit"))
        return Submitted(check, saved)

    async def draft_of(self, guild_id: int, user_id: int) -> Suggestion | None:
        """The member's kept draft in the server (`/tpquiz suggest` reopens it)."""
        mine = await self.store.mine(guild_id, user_id)
        return next((s for s in reversed(mine) if s.state == "draft"), None)

    async def open_count(self, guild_id: int, user_id: int) -> int:
        mine = await self.store.mine(guild_id, user_id)
        return sum(1 for s in mine if s.state in ACTIVE)

    async def review_posts(self, guild_id: int, user_id: int) -> list[tuple[int, int]]:
        """(channel, message) of the review posts of the member's suggestions, which
        show their words and name: forget-me deletes them too."""
        return [s.post for s in await self.store.mine(guild_id, user_id) if s.post is not None]

    async def get(self, guild_id: int, suggestion_id: int | None) -> Suggestion:
        found = None if suggestion_id is None else await self.store.get(guild_id, suggestion_id)
        if found is None:
            raise QuizError("suggestion_unknown")
        return found

    async def editable(self, guild_id: int, suggestion_id: int | None, user_id: int) -> Suggestion:
        """The author's own suggestion that they may still edit."""
        found = await self.get(guild_id, suggestion_id)
        if found.user_id != user_id:
            raise QuizError("suggestion_not_yours")
        if found.state not in ("draft", "changes"):
            raise QuizError("suggestion_not_editable")
        return found

    async def open_one(self, guild_id: int, suggestion_id: int | None) -> Suggestion:
        """An open suggestion, for a moderator about to decide it."""
        found = await self.get(guild_id, suggestion_id)
        if not can_decide(found.state):
            raise QuizError("suggestion_decided", state=found.state)
        return found

    async def page(self, guild_id: int, page: int) -> tuple[Suggestion | None, int, int]:
        """The open suggestion of page `page` (0-based, one a page, clamped), the page
        shown and the pages."""
        total = await self.store.queue_size(guild_id)
        pages = max(1, total)
        page = min(max(page, 0), pages - 1)
        found = await self.store.queue(guild_id, offset=page, limit=1)
        return (found[0] if found else None), page, pages

    async def accept(
        self,
        guild_id: int,
        suggestion_id: int | None,
        reviewer_id: int,
        edited: Draft | None = None,
    ) -> Review:
        """Accept (as written, or as the moderator `edited` it): the suggestion becomes
        the server's question `suggestion-<id>`, credited to its author. Once only: a
        second click is told it was decided."""
        found = await self.open_one(guild_id, suggestion_id)
        qid = question_id_of(found.id)
        draft = edited or found.draft
        check = await self.check(guild_id, draft, found.language, qid)
        if check.question is None:
            return Review(None, check)
        now = self.service.now_ms()
        won = await self.store.decide(
            guild_id,
            found.id,
            "accepted",
            reviewer_id=reviewer_id,
            now_ms=now,
            question_id=qid,
            edited=edited,
        )
        if not won:
            raise QuizError("suggestion_decided", state="accepted")
        try:
            stored = await self.service.storage.guild_bank.put(
                guild_id,
                [check.question],
                now_ms=now,
                limit=MAX_SERVER_QUESTIONS,
                credits={qid: (found.user_id, found.author_name)},
            )
        except Exception:  # not stored: open again, so it can be accepted later
            await self.store.reopen(guild_id, found.id)
            raise
        if stored.refused_total is not None:
            await self.store.reopen(guild_id, found.id)
            raise QuizError("bank_full", total=stored.refused_total, limit=MAX_SERVER_QUESTIONS)
        # A forget-me of the author between the decision and the store deleted the
        # suggestion but found no question to take the name off: take it off now.
        accepted = await self.store.get(guild_id, found.id)
        if accepted is None:
            await self.service.storage.guild_bank.uncredit(guild_id, found.user_id)
        self.service.own.forget(guild_id)
        await self.service.storage.items.mark_stale(guild_id)
        if accepted is None:
            raise QuizError("suggestion_unknown")
        return Review(await self.get(guild_id, found.id), check)

    async def decline(
        self,
        guild_id: int,
        suggestion_id: int | None,
        reviewer_id: int,
        outcome: Outcome,
        reason: str,
    ) -> Suggestion:
        """Ask for changes or reject, with the moderator's reason."""
        found = await self.open_one(guild_id, suggestion_id)
        reason = reason.strip()
        if not reason:
            raise QuizError("suggestion_reason_needed")
        won = await self.store.decide(
            guild_id,
            found.id,
            outcome,
            reviewer_id=reviewer_id,
            now_ms=self.service.now_ms(),
            reason=reason[:MAX_REASON],
        )
        if not won:
            raise QuizError("suggestion_decided", state=outcome)
        return await self.get(guild_id, found.id)

    async def notices(self, guild_id: int, user_id: int) -> list[Suggestion]:
        """The member's decisions not told yet, now marked told."""
        return await self.store.claim_notices(guild_id, user_id, now_ms=self.service.now_ms())

    async def settings(self, guild_id: int) -> tuple[int | None, int | None]:
        return await self.store.settings(guild_id)

    async def set_settings(
        self, guild_id: int, *, channel_id: int | None, reviewer_role_id: int | None
    ) -> None:
        await self.store.set_settings(
            guild_id, channel_id=channel_id, reviewer_role_id=reviewer_role_id
        )

    async def may_review(self, guild_id: int, *, manage_guild: bool, role_ids: set[int]) -> bool:
        """Manage Server, or the server's reviewer role."""
        if manage_guild:
            return True
        _, role = await self.store.settings(guild_id)
        return role is not None and role in role_ids
