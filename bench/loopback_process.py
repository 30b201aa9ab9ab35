"""The loopback Discord in a process of its own, with the load generator inside it.

Why a separate process: the bench measures the bot, so the fake Discord (building and
sending INTERACTION_CREATE frames, answering REST calls) must not share the bot's event
loop or its core. This process runs `BenchLoopback` (`LoopbackDiscord` without OpenAPI
validation, with the fast paths of `bench/fast_loopback.py`) and the click generator
(`bench/click_load.py`); the bench script that starts it only sends commands and reads
results, and sits idle while a load runs.

Control API: one JSON object per line on stdin, one JSON reply per line on stdout
(`{"ok": true, ...}` or `{"ok": false, "error": ...}`); logs go to stderr. Commands:

* `info`: REST base, gateway URL and the token the bot must use.
* `setup {guilds, guild_base}`: create guilds with one text channel each.
* `wait_session {identifies, timeout}`: wait until the bot has identified that many times
  in all and its session has been sent every event (READY, GUILD_CREATEs).
* `post {count, guild, channel}`: run `/tpquiz question` that many times.
* `post_daily {guilds}`: a daily question in each (guild, channel) (`daily now`).
* `clone_posts {message_ids}`: copies of messages (for a bot that did not post them).
* `load {mode: closed|open, ..., watch_pid}`: click on posts (`ClickLoad.run`); returns
  latencies and the watched bot's main-thread busy share.
* `global_limit {rps}`: answer bot-authorised REST calls beyond `rps` per second with a
  global 429, as Discord does (0 turns it off). Interaction callbacks are exempt.
* `channel_posts {since}`: counts and timings of channel messages posted (fan-out).
* `quit`.

Latency of a click is measured here: from handing INTERACTION_CREATE to the gateway
writer to the moment the bot's callback request has been handled.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from bench.click_load import ClickLoad
from bench.fast_loopback import FastLoopback
from tests.loopback.server import ALL_PERMISSIONS, CHANNEL_MESSAGES_ROUTE, RecordedRequest

log = logging.getLogger("bench.loopback")

#: Discord's global limit: 50 requests per second per bot token.
DISCORD_GLOBAL_RPS = 50


@dataclass
class _GlobalLimit:
    rps: int = 0
    window_start: float = 0.0
    used: int = 0
    rejected: int = 0
    #: Every request let through since the limit was set (posts, edits, anything).
    allowed: int = 0
    passed: list[float] = field(default_factory=list)


class BenchLoopback(FastLoopback):
    """`FastLoopback` with Discord's global rate limit (for the fan-out bench)."""

    def __init__(self) -> None:
        super().__init__()
        self.limit = _GlobalLimit()

    async def _record(self, recorded: RecordedRequest) -> None:
        if (
            recorded.route == CHANNEL_MESSAGES_ROUTE
            and recorded.method == "POST"
            and recorded.status == 200
        ):
            self.limit.passed.append(time.perf_counter())
        await super()._record(recorded)

    async def _handle_rest(self, request: web.Request) -> web.StreamResponse:
        rejected = self._global_limit(request)
        if rejected is not None:
            return rejected
        return await super()._handle_rest(request)

    def _global_limit(self, request: web.Request) -> web.StreamResponse | None:
        """Discord's global limit: bot-token requests beyond `rps` a second get a 429."""
        limit = self.limit
        if not limit.rps or not request.headers.get("Authorization", "").startswith("Bot "):
            return None
        now = time.monotonic()
        if now - limit.window_start >= 1.0:
            limit.window_start, limit.used = now, 0
        if limit.used < limit.rps:
            limit.used += 1
            limit.allowed += 1
            return None
        limit.rejected += 1
        retry_after = max(0.001, 1.0 - (now - limit.window_start))
        body = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": True,
        }
        return web.Response(
            status=429,
            body=json.dumps(body).encode(),
            content_type="application/json",
            headers={
                "Via": "1.1 google",
                "Retry-After": str(max(1, round(retry_after + 0.5))),
                "X-RateLimit-Global": "true",
                "X-RateLimit-Scope": "global",
            },
        )


class Controller:
    """Executes control commands against one `BenchLoopback`."""

    def __init__(self, loopback: BenchLoopback, seed: int) -> None:
        self.lb = loopback
        self.rng = random.Random(seed)
        self.next_member = 1_400_000_000_000_000_000
        self.guilds: list[tuple[int, int]] = []

    async def handle(self, cmd: dict[str, Any]) -> dict[str, Any]:
        name = cmd.pop("cmd")
        method = getattr(self, f"cmd_{name}", None)
        if method is None:
            raise ValueError(f"unknown command {name!r}")
        result: dict[str, Any] = await method(**cmd)
        return result

    async def cmd_info(self) -> dict[str, Any]:
        return {
            "rest_base": self.lb.rest_base,
            "gateway_url": self.lb.gateway_url,
            "token": self.lb.token,
            "bot_user_id": self.lb.bot_user_id,
        }

    async def cmd_setup(
        self,
        guilds: int,
        guild_base: int = 1_300_000_000_000_000_000,
        channels: int = 1,
        roles: int = 0,
    ) -> dict[str, Any]:
        """`guilds` servers with `channels` text channels and `roles` extra roles each;
        returns (guild id, first channel id) pairs."""
        created = []
        for i in range(guilds):
            guild_id = guild_base + i * 1_000
            channel_ids = [guild_id + 1 + c for c in range(channels)]
            self.lb.add_guild(guild_id, name=f"bench {i}", channel_ids=channel_ids)
            for r in range(roles):
                self.lb.add_role(guild_id, guild_id + 500 + r, f"role {r}")
            created.append((guild_id, channel_ids[0]))
        self.guilds.extend(created)
        return {"guilds": created}

    async def cmd_wait_session(self, identifies: int, timeout: float = 60.0) -> dict[str, Any]:  # noqa: ASYNC109
        await self.lb.wait_connected(timeout, identifies=identifies)
        return {"identifies": self.lb.identify_count, "resumes": self.lb.resume_count}

    def _member(self) -> dict[str, Any]:
        self.next_member += 1
        return self.lb.member(self.next_member, f"m{self.next_member % 1_000_000}")

    async def cmd_post(self, count: int, guild: int, channel: int) -> dict[str, Any]:
        ids = []
        poster = self._member()
        for _ in range(count):
            request = await self.lb.interact(
                self.lb.slash_command(guild, channel, poster, "tpquiz", "question"), timeout=10
            )
            if request.status != 200 or request.body.get("type") != 4:
                raise RuntimeError(f"/tpquiz question failed: {request.status} {request.body}")
            ids.append(int(request.response["resource"]["message"]["id"]))
        return {"message_ids": ids}

    async def cmd_post_daily(self, guilds: list[list[int]]) -> dict[str, Any]:
        """In each (guild, channel): `/tpquiz-admin daily channel`, then `daily now`;
        returns the daily posts' message ids (one server can have one a day)."""
        admin = self.lb.member(1_399_999_999_999_999_999, "admin", permissions=ALL_PERMISSIONS)
        ids = []
        for guild, channel in guilds:
            for sub, options in (("daily channel", {"channel": channel}), ("daily now", None)):
                since = len(self.lb.requests)
                request = await self.lb.interact(
                    self.lb.slash_command(guild, channel, admin, "tpquiz-admin", sub, options),
                    timeout=10,
                )
                if request.status != 200:
                    raise RuntimeError(f"/tpquiz-admin {sub} failed: {request.body}")
            posted = [
                r
                for r in self.lb.requests[since:]
                if r.method == "POST" and r.route == CHANNEL_MESSAGES_ROUTE and r.status == 200
            ]
            if not posted:
                raise RuntimeError(f"no daily post in guild {guild}")
            ids.append(int(posted[-1].response["id"]))
        return {"message_ids": ids}

    async def cmd_synthetic_posts(self, count: int, channel: int) -> dict[str, Any]:
        """Question-like messages made by the loopback itself (for a baseline-only run)."""
        ids = []
        for n in range(count):
            buttons = [
                {"type": 2, "style": 2, "label": letter, "custom_id": f"tpq:a:{n + 1}:{i}"}
                for i, letter in enumerate("ABCD")
            ]
            data = {
                "embeds": [{"title": f"Question {n + 1}", "description": "x" * 600}],
                "components": [{"type": 1, "components": buttons}],
            }
            ids.append(int(self.lb._create_message(channel, data, [])["id"]))
        return {"message_ids": ids}

    async def cmd_clone_posts(self, message_ids: list[int]) -> dict[str, Any]:
        """Copies of stored messages (same embed, same custom_ids) under new ids."""
        clones = []
        for message_id in message_ids:
            original = self.lb.messages[message_id]
            data = {"embeds": original["embeds"], "components": original["components"]}
            clones.append(int(self.lb._create_message(int(original["channel_id"]), data, [])["id"]))
        return {"message_ids": clones}

    async def cmd_load(self, **load: Any) -> dict[str, Any]:
        """Click on posts (see `bench.click_load.ClickLoad.run`); returns latencies."""
        return await ClickLoad(self.lb, self.rng, self._member).run(**load)

    async def cmd_global_limit(self, rps: int) -> dict[str, Any]:
        self.lb.limit = _GlobalLimit(rps=rps)
        return {"rps": rps}

    async def cmd_channel_posts(self) -> dict[str, Any]:
        """Successful channel posts since `global_limit` was last set, and 429s answered."""
        passed = self.lb.limit.passed
        return {
            "posts": len(passed),
            "first": min(passed, default=0.0),
            "last": max(passed, default=0.0),
            "rejected_429": self.lb.limit.rejected,
            "allowed": self.lb.limit.allowed,
            "now": time.perf_counter(),
        }

    async def cmd_wait_channel_posts(self, count: int, timeout: float) -> dict[str, Any]:  # noqa: ASYNC109
        """Wait until `count` channel posts went through (woken by each recorded request)."""
        deadline = time.perf_counter() + timeout
        while len(self.lb.limit.passed) < count and time.perf_counter() < deadline:
            async with self.lb._cond:
                try:
                    async with asyncio.timeout(0.5):
                        await self.lb._cond.wait()
                except TimeoutError:
                    pass
        return await self.cmd_channel_posts()


class LoopbackProcess:
    """The bench's handle on a loopback process: start it, send commands, stop it."""

    def __init__(self, log_path: Path, seed: int = 5) -> None:
        self.log_path = log_path
        self.seed = seed
        self.proc: asyncio.subprocess.Process | None = None
        self.info: dict[str, Any] = {}

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self) -> LoopbackProcess:
        from bench.botproc import ROOT

        with self.log_path.open("ab") as log_file:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.loopback_process",
                "--seed",
                str(self.seed),
                cwd=ROOT,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log_file,
                limit=64 * 1024 * 1024,
            )
        self.info = await self.call("info")
        return self

    async def call(self, cmd: str, **params: Any) -> dict[str, Any]:
        """Send one command and return its reply; raises RuntimeError on failure."""
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"cmd": cmd, **params}).encode() + b"\n")
        await self.proc.stdin.drain()
        line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the loopback process died; see {self.log_path}")
        reply: dict[str, Any] = json.loads(line)
        if not reply.pop("ok"):
            raise RuntimeError(f"loopback {cmd} failed: {reply['error']}")
        return reply

    async def close(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"cmd": "quit"}\n')
        await self.proc.stdin.drain()
        try:
            async with asyncio.timeout(10):
                await self.proc.wait()
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


async def serve(seed: int) -> None:
    loopback = BenchLoopback()
    await loopback.start()
    controller = Controller(loopback, seed)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        while line := await reader.readline():
            cmd = json.loads(line)
            if cmd.get("cmd") == "quit":
                break
            try:
                reply = {"ok": True, **(await controller.handle(cmd))}
            except Exception as exc:
                log.exception("command failed")
                reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    finally:
        await loopback.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s"
    )
    asyncio.run(serve(args.seed))


if __name__ == "__main__":
    main()
