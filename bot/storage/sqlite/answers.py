"""Recording answers: every click in a transaction shared with the clicks beside it.

`AnswerStore.record` is what the services call for a click on a post, a daily post, a
test or a review question. The click itself (what it reads, what it writes) is
`bot/storage/sqlite/clicks.py`, deciding through `bot.quiz.click`; the batching is
`bot/storage/sqlite/group_commit.py`. The member is answered only after the batch holding
their answer committed, so an acknowledged answer is never lost.
"""

from __future__ import annotations

from bot.quiz.model import Question
from bot.quiz.scoring import AnswerResult
from bot.storage.click_read import Click
from bot.storage.sqlite.clicks import record_click
from bot.storage.sqlite.db import Database
from bot.storage.sqlite.group_commit import GroupCommit


class AnswerStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.clicks: GroupCommit[AnswerResult | None] = GroupCommit(db)

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
        """Record a member's answer to a post or a test question, once.

        Returns the outcome; when the member had already answered this post (or this
        test question), nothing is written and the first answer's outcome comes back
        with `duplicate=True`. None when the post had closed (or the run had finished)
        by the time the click reached the database: nothing is written and the click
        scores nothing.
        Raises WriteFailed when the batch holding it did not commit.
        """
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
        return await self.clicks.submit(lambda conn: record_click(conn, click))

    def give_up_queued(self) -> int:
        """The group commit's queue, given up (`GroupCommit.close`)."""
        return self.clicks.close()
