"""Recording answers on PostgreSQL: the twin of bot/storage/sqlite/answers.py (AnswersContract).

`PgAnswerStore.record` takes the same arguments and gives the same results as the SQLite
store: the outcome, the first answer's outcome with `duplicate=True`, None when the post
had closed (or the run finished), `PostGone` when it is gone, `WriteFailed` when nothing
could be saved. The clicks in flight together share a transaction
(bot/storage/pg/group_commit.py, bot/storage/pg/click_batch.py); a lone click, its locks
and its retry: bot/storage/pg/clicks.py.
"""

from __future__ import annotations

from bot.quiz.model import Question
from bot.quiz.scoring import AnswerResult
from bot.storage.click_read import Click
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.group_commit import PgGroupCommit


class PgAnswerStore:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db
        self.clicks = PgGroupCommit(db)

    def give_up_queued(self) -> int:
        """The group commit's queue, given up (`PgGroupCommit.close`)."""
        return self.clicks.close()

    async def record(
        self,
        *,
        guild_id: int,
        user_id: int,
        name: str,
        question: Question,
        choice_index: int,
        now_ms: int,
        post_id: int | None = None,
        test_run_id: int | None = None,
    ) -> AnswerResult | None:
        """Record a member's answer to a post or a test question, once (see AnswerStore)."""
        if (post_id is None) == (test_run_id is None):
            raise ValueError("an answer belongs to exactly one of a post or a test run")
        click = Click(
            guild_id=guild_id,
            user_id=user_id,
            name=name,
            question=question,
            choice_index=choice_index,
            now_ms=now_ms,
            post_id=post_id,
            test_run_id=test_run_id,
        )
        return await self.clicks.submit(click)
