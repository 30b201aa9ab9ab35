"""Members' problem reports on questions: the reasons and the limits (issue #13).

A report is a member saying "this question is wrong": a reason from a short list and a
few words. Two limits keep the list readable for the admins who go through it: one report
per member per question (in a server), and at most `DAILY_LIMIT` reports per member in any
24 hours. The decision is a pure function of what storage read; storage applies it in the
same transaction (`bot.storage.stores.reports.ReportStore.add`).
"""

from __future__ import annotations

from typing import Literal

Reason = Literal["wrong_answer", "unclear", "typo", "outdated", "other"]
#: In the order the modal offers them.
REASONS: tuple[Reason, ...] = ("wrong_answer", "unclear", "typo", "outdated", "other")

MAX_BODY = 500
DAILY_LIMIT = 5
DAY_MS = 86_400_000

Refusal = Literal["report_already", "report_daily_limit"]


def report_refusal(*, already_reported: bool, in_last_day: int) -> Refusal | None:
    """Why a member may not file this report now (a message key), or None.

    `already_reported`: the member already reported this question in this server (open or
    resolved); `in_last_day`: their reports in this server in the last 24 hours.
    """
    if already_reported:
        return "report_already"
    if in_last_day >= DAILY_LIMIT:
        return "report_daily_limit"
    return None


def clean_body(text: str | None) -> str:
    """The member's words as stored: stripped and cut to MAX_BODY characters (Discord's
    modal enforces the length too, but a forged submission need not)."""
    return (text or "").strip()[:MAX_BODY]
