"""Fault drills: the real bot process (`python -m bot run`) against the loopback Discord.

A crash, a signal or another process holding the database lock only mean something
across a process boundary, so each drill starts the bot as production does (settings
from the environment, see `bench/botproc.py`) against the `loopback` fixture running in
the test process on 127.0.0.1. Nothing here sleeps to synchronise: a start is awaited
by the loopback seeing the bot's IDENTIFY and sending it everything (READY, GUILD_CREATE),
replies by waiting on recorded requests, an exit by the process's exit status.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bench.botproc import BotProcess, bot_env, bot_token
from tests.loopback.fixtures import loopback  # noqa: F401  (fixture)
from tests.loopback.server import (
    ALL_PERMISSIONS,
    CALLBACK_ROUTE,
    LoopbackDiscord,
    RecordedRequest,
)

GUILD_ID = 1_500_000_000_000_000_001
CHANNEL_ID = GUILD_ID + 1
DAILY_CHANNEL = GUILD_ID + 2
MEMBER_BASE = 1_500_000_000_000_100_000
ADMIN_ID = 1_500_000_000_000_000_900
#: Seconds a bot process may take to start and connect (imports, migrations, sync).
START_TIMEOUT = 20.0


@dataclass
class Drill:
    loopback: LoopbackDiscord
    workdir: Path
    db_path: Path
    bots: list[BotProcess] = field(default_factory=list)

    async def start_bot(self, **env: str) -> BotProcess:
        """Start `python -m bot run`; return once its gateway session has everything."""
        bot = BotProcess(
            bot_env(
                rest_base=self.loopback.rest_base,
                gateway_url=self.loopback.gateway_url,
                token=self.loopback.token,
                db_path=self.db_path,
                **env,
            ),
            self.workdir,
            log_name=f"bot{len(self.bots) + 1}.log",
        )
        self.bots.append(bot)
        await bot.start()
        assert bot.proc is not None
        connected = asyncio.create_task(
            self.loopback.wait_connected(START_TIMEOUT, identifies=len(self.bots))
        )
        exited = asyncio.create_task(bot.proc.wait())
        done, _ = await asyncio.wait({connected, exited}, return_when=asyncio.FIRST_COMPLETED)
        if exited in done:
            connected.cancel()
            raise AssertionError(f"the bot exited with {exited.result()}:\n{bot.log_text()}")
        exited.cancel()
        connected.result()
        return bot

    def member(self, index: int) -> dict[str, Any]:
        return self.loopback.member(MEMBER_BASE + index, f"member{index}")

    async def post_question(self) -> tuple[int, list[str]]:
        """Run /tpquiz question; (message id, its answer buttons' custom_ids)."""
        admin = self.loopback.member(ADMIN_ID, "poster")
        request = await self.loopback.interact(
            self.loopback.slash_command(GUILD_ID, CHANNEL_ID, admin, "tpquiz", "question"),
            timeout=10,
        )
        assert request.status == 200 and request.body["type"] == 4, request.body
        message = request.response["resource"]["message"]
        ids = [c["custom_id"] for row in message["components"] for c in row["components"]]
        return int(message["id"]), ids

    async def run_admin(self, sub: str, options: dict[str, Any] | None = None) -> RecordedRequest:
        """Run `/tpquiz-admin <sub>` as a member with every permission; its reply."""
        admin = self.loopback.member(ADMIN_ID, "admin", permissions=ALL_PERMISSIONS)
        request = await self.loopback.interact(
            self.loopback.slash_command(GUILD_ID, CHANNEL_ID, admin, "tpquiz-admin", sub, options),
            timeout=10,
        )
        assert request.status == 200 and request.body["type"] == 4, request.body
        return request

    def answered(self, since: int = 0) -> set[str]:
        """Interaction ids that received their reply (a type-4 callback Discord accepted)."""
        return {
            interaction
            for interaction, requests in self.callbacks(since).items()
            if any(r.status == 200 and r.body["type"] == 4 for r in requests)
        }

    def clicks(
        self, posts: list[tuple[int, list[str]]], count: int, first: int = 0
    ) -> list[dict[str, Any]]:
        """`count` clicks by members first.., spread over the posts and their letters."""
        payloads = []
        for i in range(first, first + count):
            message_id, ids = posts[i % len(posts)]
            payloads.append(
                self.loopback.button_click(message_id, ids[i % len(ids)], self.member(i))
            )
        return payloads

    def callbacks(self, since: int = 0) -> dict[str, list[RecordedRequest]]:
        """Interaction id -> the callback requests the bot made for it."""
        found: dict[str, list[RecordedRequest]] = {}
        for request in self.loopback.requests[since:]:
            if request.route == CALLBACK_ROUTE:
                found.setdefault(request.params["interaction_id"], []).append(request)
        return found

    async def wait_callbacks(
        self,
        count: int,
        since: int = 0,
        timeout: float = 10.0,  # noqa: ASYNC109
        *,
        ok_only: bool = False,
    ) -> None:
        """Wait until callbacks for `count` distinct interactions were recorded (with
        `ok_only`, callbacks Discord accepted: a 429 answered one is not a reply)."""

        def counted(request: RecordedRequest) -> bool:
            return request.route == CALLBACK_ROUTE and (request.status == 200 or not ok_only)

        def enough(request: RecordedRequest) -> bool:
            if not counted(request):
                return False
            seen = self.loopback.requests[since : request.index + 1]
            return len({r.params["interaction_id"] for r in seen if counted(r)}) >= count

        await self.loopback.wait_for(enough, since=since, timeout=timeout)

    def rows(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.db_path) as conn:
            return [tuple(r) for r in conn.execute(sql, params)]

    def post_of_message(self, message_id: int) -> int:
        ((post_id,),) = self.rows("SELECT id FROM posts WHERE message_id = ?", (message_id,))
        return int(post_id)

    def assert_consistent(self) -> None:
        """Every summary agrees with the answers: no transaction was half applied."""
        assert (
            self.rows(
                "SELECT p.id FROM posts p WHERE p.answer_count !="
                " (SELECT COUNT(*) FROM answers a WHERE a.post_id = p.id)"
            )
            == []
        )
        assert (
            self.rows(
                "SELECT m.user_id FROM members m WHERE m.answered !="
                " (SELECT COUNT(*) FROM answers a WHERE a.guild_id = m.guild_id"
                " AND a.user_id = m.user_id) OR m.points != (SELECT SUM(points) FROM answers a"
                " WHERE a.guild_id = m.guild_id AND a.user_id = m.user_id)"
            )
            == []
        )
        kept = self.rows(
            "SELECT period, starts_at, points, correct, members FROM score_counts"
            " WHERE members > 0 ORDER BY 1, 2, 3, 4"
        )
        recount = self.rows(
            "SELECT 'all', 0, points, correct, COUNT(*) FROM members GROUP BY 3, 4"
            " UNION ALL SELECT period, starts_at, points, correct, COUNT(*)"
            " FROM member_periods GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
        )
        assert kept == recount


@pytest.fixture
async def drill(loopback: LoopbackDiscord, tmp_path: Path) -> AsyncIterator[Drill]:  # noqa: F811
    # `tpquiz run` checks the token's shape; the loopback's default one would be refused.
    loopback.token = bot_token(loopback.bot_user_id)
    loopback.add_guild(GUILD_ID, name="drill server", channel_ids=[CHANNEL_ID, DAILY_CHANNEL])
    harness = Drill(loopback, tmp_path, tmp_path / "tpquiz.sqlite3")
    try:
        yield harness
    finally:
        # Before the loopback closes (this fixture depends on it, so it tears down first).
        for bot in harness.bots:
            await bot.stop()


def answer_rows(drill: Drill) -> dict[tuple[int, int], int]:
    """(post id, user id) -> number of answers recorded."""
    return {
        (int(p), int(u)): int(n)
        for p, u, n in drill.rows(
            "SELECT post_id, user_id, COUNT(*) FROM answers WHERE post_id IS NOT NULL GROUP BY 1, 2"
        )
    }


def click_key(drill: Drill, payload: dict[str, Any]) -> tuple[int, int]:
    """(post id, user id) of a click payload."""
    post_id = int(payload["data"]["custom_id"].split(":")[2])
    return post_id, int(payload["member"]["user"]["id"])


Predicate = Callable[[RecordedRequest], bool]
