"""Filing, listing and resolving members' problem reports (issue #13): the rules between
the Discord glue (cogs/reports.py, cogs/reports_admin.py) and storage.

A report names the question through what the member clicked on: a post (its question)
or a personal test run and a position in it (a run belongs to one member; another
member's run is refused as the answer buttons refuse it). The limits are decided by
`bot.quiz.reports` inside the transaction that stores the report.
"""

from __future__ import annotations

from bot.quiz.model import Lang
from bot.quiz.reports import REASONS, Refusal
from bot.services.quiz import QuizError, QuizService
from bot.storage.records import Report


class ReportService:
    def __init__(self, service: QuizService) -> None:
        self.service = service
        #: The report store of either backend (bot/storage/contract.py ReportsContract).
        self.store = service.storage.reports

    async def question_ids_of_run(
        self, kind: str, run_id: int, guild_id: int, user_id: int
    ) -> list[str]:
        """The questions of a member's own test ("t") or review round ("r"), in order
        (QuizError if it is not theirs, not in this server, or not of that kind)."""
        if kind == "t":
            return list((await self.service.load_test(run_id, guild_id, user_id)).question_ids)
        run = await self.service.storage.test_runs.get(run_id)
        if run is None or run.guild_id != guild_id or run.kind != "review":
            raise QuizError("unknown_review")
        if run.user_id != user_id:
            raise QuizError("not_your_review")
        return list(run.question_ids)

    async def question_of_post(self, post_id: int, guild_id: int) -> str:
        """The question id of a post of this server (QuizError unknown_post otherwise).

        The id, not the question: a report on a question since removed from the bank is
        still worth storing (its maintainers may want to know why it went)."""
        post = await self.service.storage.posts.get(post_id)
        if post is None or post.guild_id != guild_id:
            raise QuizError("unknown_post")
        return post.question_id

    async def file(
        self,
        *,
        guild_id: int,
        user_id: int,
        question_id: str,
        language: Lang,
        reason: str,
        body: str | None,
    ) -> Report | Refusal:
        """Store a report, or return why not (a message key); QuizError on a reason the
        modal does not offer (a forged submission)."""
        if reason not in REASONS:
            raise QuizError("report_bad_reason")
        now = self.service.now_ms()
        return await self.store.add(
            guild_id=guild_id,
            user_id=user_id,
            question_id=question_id,
            language=language,
            reason=reason,
            body=body,
            now_ms=now,
        )

    async def open_reports(
        self, guild_id: int, *, limit: int, offset: int = 0
    ) -> tuple[list[Report], int]:
        """A page of the server's open reports (newest first) and how many are open."""
        found = await self.store.find(guild_id, open_only=True, limit=limit, offset=offset)
        return found, await self.store.count_open(guild_id)

    async def reports_of_question(self, guild_id: int, question_id: str) -> list[Report]:
        return await self.store.find(guild_id, question_id=question_id, limit=10)

    async def resolve(self, guild_id: int, report_id: int, by: int) -> Report | None:
        """Resolve one of the server's open reports; None if there is no such open one."""
        now = self.service.now_ms()
        return await self.store.resolve_open(report_id, guild_id=guild_id, now_ms=now, by=by)
