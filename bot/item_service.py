"""A server's item statistics for `/tpquiz-admin questions` and `question <id>` (issue #13).

Computed on demand from the server's first answers (one indexed read on the database
thread, then `bot.quiz.itemstats`), over the bot's pool (bank questions and template
stand-ins). Only this server's answers count: the admin sees their members' figures.
"""

from __future__ import annotations

import sqlite3

from bot.quiz.itemstats import FirstAnswer, ItemStats, bank_stats, item_of
from bot.quiz.model import Question
from bot.service import QuizService
from bot.storage import reports as report_store
from bot.storage.itemstats import first_answers


class ItemStatsService:
    def __init__(self, service: QuizService) -> None:
        self.service = service
        self.db = service.storage.db

    def question(self, question_id: str) -> Question | None:
        """The pool's question (a template's stand-in for a computed one), or None."""
        return self.service.pool.get(question_id)

    async def server_stats(self, guild_id: int) -> list[ItemStats]:
        """Every question's statistics in this server, flagged first."""

        def read(conn: sqlite3.Connection) -> tuple[list[FirstAnswer], dict[str, int]]:
            return first_answers(conn, guild_id), report_store.open_counts(conn, guild_id)

        answers, reports = await self.db.run_read(read)
        computed = {tpl.id for tpl in self.service.templates}
        items = [item_of(q, computed=q.id in computed) for q in self.service.pool]
        return bank_stats(items, answers, reports)

    async def flagged(self, guild_id: int) -> list[ItemStats]:
        return [s for s in await self.server_stats(guild_id) if s.flagged]

    async def one(self, guild_id: int, question_id: str) -> ItemStats | None:
        """One question's statistics here (None when it is not in the pool)."""
        if self.question(question_id) is None:
            return None
        for s in await self.server_stats(guild_id):
            if s.question_id == question_id:
                return s
        return None

    def ids_matching(self, current: str, limit: int = 25) -> list[str]:
        """Question ids for the autocomplete: those starting with `current` first."""
        needle = current.lower()
        ids = [q.id for q in self.service.pool]
        starts = [i for i in ids if i.lower().startswith(needle)]
        inside = [i for i in ids if needle in i.lower() and i not in starts]
        return (starts + inside)[:limit]
