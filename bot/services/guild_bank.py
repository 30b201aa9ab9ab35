"""A server's own questions, as its moderators manage them (issue 27): upload, list, show,
retire, export and the bank settings. No Discord here: the cog (cogs/guild_bank/) reads
the attachment and renders; this joins the bank's checks (bot/bank/own_upload.py) to the
storage's `guild_bank` store.

The checks of an upload (up to 500 questions: parsing, clue checks, near-duplicates
against the bundled bank and the server's 2,000) take CPU time, so they run in a thread
and the event loop keeps answering other members meanwhile. With any problem, or when
the moderator asked only for a check, nothing is stored.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.bank.own_upload import Format, UploadCheck, check_upload, export_yaml
from bot.quiz.model import Lang
from bot.quiz.own_questions import (
    DRAWS,
    MAX_SERVER_QUESTIONS,
    BankSettings,
    Draw,
    OwnQuestion,
    PutResult,
)
from bot.services.quiz import QuizError, QuizService

__all__ = ["PAGE_SIZE", "GuildBankService", "Upload"]

#: Questions per page of `/tpquiz-admin bank list`.
PAGE_SIZE = 15
#: The most ids an autocomplete offers (Discord's limit is 25).
AUTOCOMPLETE = 25


@dataclass(frozen=True)
class Upload:
    """An upload's checks, and what was stored (None: nothing, on a problem or a check
    only)."""

    check: UploadCheck
    stored: PutResult | None


class GuildBankService:
    def __init__(self, service: QuizService) -> None:
        self.service = service
        self.store = service.storage.guild_bank

    async def upload(
        self,
        guild_id: int,
        data: bytes,
        filename: str,
        *,
        fmt: Format | None = None,
        lang: Lang = "en",
        check_only: bool = False,
    ) -> Upload:
        own = await self.store.current(guild_id, retired=True)
        check = await asyncio.to_thread(
            check_upload,
            data,
            filename,
            fmt=fmt,
            lang=lang,
            bundled=self.service.bank,
            own=own,
        )
        if not check.ok or check_only:
            return Upload(check, None)
        stored = await self.store.put(
            guild_id, check.questions, now_ms=self.service.now_ms(), limit=MAX_SERVER_QUESTIONS
        )
        if stored.refused_total is None:
            await self._changed(guild_id)
        return Upload(check, stored)

    async def _changed(self, guild_id: int) -> None:
        """The server's questions changed: its pool is read again at the next pick, and
        its item statistics summary (which covers its own questions) recomputed."""
        self.service.own.forget(guild_id)
        await self.service.storage.items.mark_stale(guild_id)

    async def withheld(self, guild_id: int) -> dict[str, str]:
        """The server's questions out of the picks until a moderator looks, and why."""
        if self.service.own.withheld is None:
            return {}
        stored = await self.store.current(guild_id, retired=True)
        return await self.service.own.withheld(guild_id, [o.question for o in stored])

    async def page(self, guild_id: int, page: int) -> tuple[list[OwnQuestion], int, int]:
        """The questions of page `page` (0-based, clamped), the page shown and the pages."""
        questions = await self.store.current(guild_id, retired=True)
        pages = max(1, -(-len(questions) // PAGE_SIZE))
        page = min(max(page, 0), pages - 1)
        return questions[page * PAGE_SIZE : (page + 1) * PAGE_SIZE], page, pages

    async def show(self, guild_id: int, question_id: str) -> OwnQuestion:
        found = await self.store.get(guild_id, question_id)
        if found is None:
            raise QuizError("bank_unknown", question_id=question_id)
        return found

    async def retire(self, guild_id: int, question_id: str) -> OwnQuestion:
        retired = await self.store.retire(guild_id, question_id, now_ms=self.service.now_ms())
        await self._changed(guild_id)
        if not retired:
            found = await self.store.get(guild_id, question_id)
            if found is None:
                raise QuizError("bank_unknown", question_id=question_id)
            raise QuizError("bank_already_retired", question_id=question_id)
        return await self.show(guild_id, question_id)

    async def export(self, guild_id: int) -> tuple[str, int]:
        """The server's questions in use, as a bank YAML file, and how many."""
        questions = await self.store.current(guild_id)
        if not questions:
            raise QuizError("bank_empty")
        return export_yaml(questions), len(questions)

    async def ids_matching(self, guild_id: int, current: str) -> list[str]:
        current = current.strip().lower()
        questions = await self.store.current(guild_id, retired=True)
        return [q.question_id for q in questions if current in q.question_id][:AUTOCOMPLETE]

    async def settings(self, guild_id: int) -> BankSettings:
        return await self.store.settings(guild_id)

    async def set_settings(
        self, guild_id: int, *, draw: str | None, daily_share: int | None
    ) -> BankSettings:
        now = await self.store.settings(guild_id)
        chosen: Draw = now.draw
        if draw is not None:
            if draw not in DRAWS:
                raise QuizError("bank_bad_draw", draw=draw)
            chosen = next(d for d in DRAWS if d == draw)
        share = now.daily_share if daily_share is None else daily_share
        if not 0 <= share <= 100:
            raise QuizError("bank_bad_share", share=share)
        settings = BankSettings(chosen, share)
        await self.store.set_settings(guild_id, settings)
        return settings
