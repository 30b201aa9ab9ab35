"""Quiz night at scale (issue 26): one session with many players, and many sessions at once.

    .venv/bin/python -m bench.live_session one --players 500
    .venv/bin/python -m bench.live_session many --sessions 200 --players 20 --questions 10
    (each takes --quick: a small run, to check it works)

`one`: the real bot (built by `build_bot`, SQLite) against the loopback Discord in this
process. N members click an answer of the same question within a burst; each click's
acknowledgement is timed from its INTERACTION_CREATE to its callback, against N clicks
on a plain `/tpquiz question` post in the same run (the baseline), with the process's
CPU per click for both. The last click makes every joined player answered, so the
reveal follows at once: timed are the public reveal's edit and the N private verdicts
(edits through each click's interaction) after that click. The loopback shares the
process (and its CPU), so the figures are upper bounds of the bot's own work.

`many`: the service alone (bot/services/live.py, no Discord: a no-op announcer) over one
SQLite file: S sessions in S servers, P players each, every player answering every
question; each session's task waits for its deadline by the real clock (questions of
`--seconds`), and the bench records how late each reveal came after its deadline, and
the memory per running session (tracemalloc, the service's objects and tasks).
Not a test: nothing is asserted. docs/performance.md has the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.answer_pg import pg_database, start_pg_server
from bench.common import machine_line, summary_ms, table, write_json
from bench.fast_loopback import FastLoopback, no_deep_copies
from bot.bank.loader import load_bank
from bot.infra.config import Settings
from bot.infra.shards import shard_of
from bot.quiz.live import LiveSettings
from bot.quiz.live_state import LiveSession
from bot.runtime.compose import build_bot
from bot.services.live import Final, LiveService, Reveal
from bot.services.quiz import QuizService
from bot.storage.pg.storage import PgStorage
from bot.storage.sqlite import Storage
from tests.loopback.harness import running
from tests.loopback.server import (
    CALLBACK_ROUTE,
    CHANNEL_MESSAGE_ROUTE,
    CHANNEL_MESSAGES_ROUTE,
    ORIGINAL_ROUTE,
)

GUILD, CHANNEL = 1_500_000_000_000_000_001, 1_500_000_000_000_000_002
HOST = 1_500_000_000_000_000_100


async def _burst(lb: FastLoopback, payloads: list[dict[str, Any]]) -> tuple[list[float], float]:
    """Dispatch every click at once; each one's seconds to its callback, and CPU seconds.

    Callbacks are matched by id as they arrive (`FastLoopback.expect_callback`), and the
    loopback makes no deep copies meanwhile, so the generator is not what is measured."""
    waiters = [lb.expect_callback(p["id"]) for p in payloads]
    with no_deep_copies():
        cpu = time.process_time()
        started = time.perf_counter()
        for payload in payloads:
            await lb.dispatch("INTERACTION_CREATE", payload)
        answered = await asyncio.wait_for(asyncio.gather(*waiters), 60)
        used = time.process_time() - cpu
    return [at - started for at, _status, _type in answered], used


async def one_session(players: int) -> dict[str, Any]:
    lb = FastLoopback()
    await lb.start()
    lb.add_guild(GUILD, name="bench", channel_ids=[CHANNEL])
    with tempfile.TemporaryDirectory() as tmp:
        storage = await Storage.open(Path(tmp) / "b.sqlite3")
        bot = build_bot(
            settings=Settings(db_path=Path(tmp) / "b.sqlite3", count_edit_interval=3),
            storage=storage, bank=load_bank(), rng=random.Random(1), guild_ready_timeout=0.05,
        )  # fmt: skip
        members = [lb.member(HOST + 1 + i, f"p{i}") for i in range(players)]
        host = lb.member(HOST, "host")
        try:
            async with running(bot, lb):
                # Baseline: the same number of clicks on a plain post.
                post = await lb.interact(
                    lb.slash_command(GUILD, CHANNEL, host, "tpquiz", "question", None)
                )
                post_id = int(post.response["resource"]["message"]["id"])
                post_ids = [
                    c["custom_id"]
                    for row in lb.messages[post_id]["components"]
                    for c in row["components"]
                ]
                plain = [
                    lb.button_click(post_id, post_ids[i % len(post_ids)], m)
                    for i, m in enumerate(members)
                ]
                plain_lat, plain_cpu = await _burst(lb, plain)
                # The session: everyone joins in the lobby, the host starts.
                lobby = await lb.interact(
                    lb.slash_command(
                        GUILD, CHANNEL, host, "tpquiz", "live", {"seconds": 120, "questions": 3}
                    )
                )
                lobby_id = int(lobby.response["resource"]["message"]["id"])
                sid = int(
                    lobby.body["data"]["components"][0]["components"][0]["custom_id"].split(":")[2]
                )
                await asyncio.gather(
                    *(
                        lb.interact(lb.button_click(lobby_id, f"tpq:lh:{sid}:join", m), timeout=30)
                        for m in members
                    )
                )
                since = len(lb.requests)
                await lb.interact(lb.button_click(lobby_id, f"tpq:lh:{sid}:start", host))
                question = await lb.wait_for(
                    lambda r: r.method == "POST" and r.route == CHANNEL_MESSAGES_ROUTE and r.body["embeds"][0]["title"].startswith("Question"),
                    since=since, timeout=30,
                )  # fmt: skip
                qid = int(question.response["id"])
                ids = [
                    c["custom_id"]
                    for row in lb.messages[qid]["components"]
                    for c in row["components"]
                    if c["custom_id"].startswith("tpq:lv:")
                ]
                clicks = [lb.button_click(qid, ids[i % len(ids)], m) for i, m in enumerate(members)]
                since = len(lb.requests)
                live_lat, live_cpu = await _burst(lb, clicks)
                last_ack = max(r.arrived for r in lb.requests[since:] if r.route == CALLBACK_ROUTE)
                reveal = await lb.wait_for(
                    lambda r: r.method == "PATCH" and r.route == CHANNEL_MESSAGE_ROUTE and r.params["message_id"] == str(qid),
                    since=since, timeout=60,
                )  # fmt: skip
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    edits = [
                        r
                        for r in lb.requests[since:]
                        if r.method == "PATCH" and r.route == ORIGINAL_ROUTE
                    ]
                    if len(edits) >= players:
                        break
                    await lb.wait_for(
                        lambda r: r.route == ORIGINAL_ROUTE, since=len(lb.requests), timeout=60
                    )
                verdicts = [
                    r.arrived - last_ack
                    for r in lb.requests[since:]
                    if r.method == "PATCH" and r.route == ORIGINAL_ROUTE
                ]
        finally:
            await storage.close()
            await lb.close()
    return {
        "players": players,
        "plain_post_ack_ms": summary_ms(plain_lat),
        "live_ack_ms": summary_ms(live_lat),
        "plain_cpu_ms_per_click": 1000 * plain_cpu / players,
        "live_cpu_ms_per_click": 1000 * live_cpu / players,
        "public_reveal_after_last_click_ms": 1000 * (reveal.arrived - last_ack),
        "verdicts_edited": len(verdicts),
        "verdicts_after_last_click_ms": summary_ms(verdicts),
    }


class Lateness:
    """An announcer that notes how late each reveal came after its question's deadline."""

    def __init__(self, service: LiveService) -> None:
        self.service = service
        self.late: list[float] = []
        #: question position -> lateness of its reveals (drift would grow with it)
        self.by_position: dict[int, list[float]] = {}
        self.deadlines: dict[tuple[int, int], int] = {}
        #: (session, position) of every reveal this "process" announced.
        self.revealed: list[tuple[int, int]] = []

    async def question(self, session: LiveSession, live: Any, question: Any) -> None:
        assert session.deadline_at is not None
        self.deadlines[(session.id, live.position)] = session.deadline_at

    async def timer(self, session: LiveSession, live: Any, question: Any) -> None:
        pass

    async def reveal(self, reveal: Reveal) -> None:
        assert reveal.live.revealed_at is not None
        self.revealed.append((reveal.session.id, reveal.live.position))
        due = self.deadlines[(reveal.session.id, reveal.live.position)]
        late = max(0, reveal.live.revealed_at - due) / 1000
        self.late.append(late)
        self.by_position.setdefault(reveal.live.position, []).append(late)

    async def finished(self, final: Final) -> None:
        pass


async def _open_many(tmp: str, backend: str) -> tuple[list[Any], Any]:
    """The stores of each "process": one SQLite file, or two pools on one PostgreSQL
    database (each service then owns the servers of its shard, as two processes would)."""
    if backend == "sqlite":
        return [await Storage.open(Path(tmp) / "m.sqlite3")], None
    server = start_pg_server()
    url = await pg_database(server, "live_many")
    return [await PgStorage.open(url) for _ in range(2)], server


async def many_sessions(
    sessions: int, players: int, questions: int, seconds: int, backend: str = "sqlite"
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        storages, server = await _open_many(tmp, backend)
        try:
            return await _run_many(storages, sessions, players, questions, seconds) | {
                "backend": backend,
                "processes": len(storages),
            }
        finally:
            for storage in storages:
                await storage.close()
            if server is not None:
                server.stop()


async def _run_many(
    storages: list[Any], sessions: int, players: int, questions: int, seconds: int
) -> dict[str, Any]:
    bank, count = load_bank(), len(storages)
    lives: list[LiveService] = []
    announcers: list[Lateness] = []
    for index, storage in enumerate(storages):
        quiz = QuizService(bank, storage, lambda: datetime.now(UTC), random.Random(2 + index))
        live = LiveService(quiz)
        if count > 1:  # this "process" runs the timers of its shard's servers only
            live.owns = lambda guild_id, index=index: shard_of(guild_id, count) == index
        announcer = Lateness(live)
        live.announcer = announcer
        lives.append(live)
        announcers.append(announcer)

    def owner(guild_id: int) -> LiveService:
        return lives[shard_of(guild_id, count)]

    settings = LiveSettings("mixed", questions, seconds, "speed")
    created = []
    for s in range(sessions):
        guild = (1_000 + s) << 22  # consecutive shards, as Discord's formula reads them
        session, _ = await owner(guild).create(
            guild_id=guild, channel_id=10_000 + s, host_id=1, language="en", settings=settings
        )
        for p in range(players):
            await owner(guild).join(session.id, session.guild_id, 100 + p, f"p{p}")
        created.append(session)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    started = time.perf_counter()
    for session in created:
        await owner(session.guild_id).host_action(session.id, session.guild_id, "start")
        owner(session.guild_id).launch(session)
    await asyncio.sleep(0.5)
    during = tracemalloc.take_snapshot()
    per_session = sum(s.size_diff for s in during.compare_to(before, "filename")) / sessions
    tracemalloc.stop()
    rng = random.Random(3)

    async def answers() -> None:
        # Players answer every open question at a random moment of its first half,
        # except one per session, so every question runs to its deadline.
        answered: set[tuple[int, int]] = set()
        while any(live.tasks for live in lives):
            for session in created:
                live = owner(session.guild_id)
                got = await live.store.get(session.id)
                if got is None or got.status != "running" or got.position < 0:
                    continue
                if (session.id, got.position) in answered:
                    continue
                answered.add((session.id, got.position))
                for p in range(players - 1):
                    if rng.random() < 0.9:
                        await live.lock_in(
                            session.id,
                            session.guild_id,
                            got.position,
                            100 + p,
                            f"p{p}",
                            rng.randrange(3),
                        )
            await asyncio.sleep(0.2)

    await asyncio.wait_for(answers(), timeout=questions * (seconds + 10) + 60)
    took = time.perf_counter() - started
    late = [x for a in announcers for x in a.late]
    by_position: dict[int, list[float]] = {}
    for a in announcers:
        for position, values in a.by_position.items():
            by_position.setdefault(position, []).extend(values)
    revealed = [key for a in announcers for key in a.revealed]
    return {
        "sessions": sessions,
        "players": players,
        "questions": questions,
        "seconds": seconds,
        "reveals": len(late),
        "questions_revealed_twice": len(revealed) - len(set(revealed)),
        "reveal_late_ms": summary_ms(late),
        "reveal_late_ms_by_question": {
            str(p + 1): summary_ms(v) for p, v in sorted(by_position.items())
        },
        "memory_kb_per_running_session": per_session / 1024,
        "wall_s": took,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    one = sub.add_parser("one")
    one.add_argument("--players", type=int, default=500)
    many = sub.add_parser("many")
    many.add_argument("--sessions", type=int, default=200)
    many.add_argument("--players", type=int, default=20)
    many.add_argument("--questions", type=int, default=3)
    many.add_argument("--seconds", type=int, default=10)
    many.add_argument(
        "--backend",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="postgresql: two services (as two processes) on one throwaway server, each"
        " running the timers of its shard's servers",
    )
    for mode in (one, many):
        mode.add_argument("--quick", action="store_true", help="a small run, to check it works")
    args = parser.parse_args(argv)
    if args.quick:
        args.players = 50 if args.mode == "one" else 5
        if args.mode == "many":
            args.sessions, args.questions = 10, 3
    os.environ.pop("DISCORD_API_SPEC", None)
    if args.mode == "one":
        figures = asyncio.run(one_session(args.players))
        rows = [
            ["plain post click ack", *figures["plain_post_ack_ms"].values()],
            ["live lock-in ack", *figures["live_ack_ms"].values()],
            ["verdict edits after last click", *figures["verdicts_after_last_click_ms"].values()],
        ]
        print(machine_line())
        print(table(["ms", "p50", "p95", "p99", "max", "mean"], rows))
        print(
            f"CPU per click: plain {figures['plain_cpu_ms_per_click']:.2f} ms,"
            f" live {figures['live_cpu_ms_per_click']:.2f} ms; public reveal"
            f" {figures['public_reveal_after_last_click_ms']:.0f} ms after the last click;"
            f" {figures['verdicts_edited']} verdicts edited"
        )
        write_json("live_one", figures, "live_session")
    else:
        figures = asyncio.run(
            many_sessions(args.sessions, args.players, args.questions, args.seconds, args.backend)
        )
        print(machine_line())
        print(
            table(
                ["reveal lateness ms", "p50", "p95", "p99", "max", "mean"],
                [["", *figures["reveal_late_ms"].values()]],
            )
        )
        by_question = figures["reveal_late_ms_by_question"]
        print(
            table(
                ["question", "p50", "p95", "p99", "max", "mean"],
                [[q, *v.values()] for q, v in by_question.items()],
            )
        )
        print(
            f"{figures['backend']}, {figures['processes']} service(s);"
            f" {figures['reveals']} reveals, {figures['questions_revealed_twice']} twice;"
            f" {figures['memory_kb_per_running_session']:.1f} KiB per"
            f" running session; {figures['wall_s']:.1f} s"
        )
        write_json("live_many", figures, "live_session")
    return 0


if __name__ == "__main__":
    sys.exit(main())
