"""A tiny Discord REST fake on 127.0.0.1 for `tpquiz doctor`: /users/@me and its guilds.

The project's loopback Discord (tests/loopback) is built for a whole bot session and its
token does not have a real token's shape, which doctor checks first; this fake answers
just the two calls doctor makes, with a token that looks real.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

#: Shaped like a real bot token (id.timestamp.hmac), and not one.
TOKEN = "MTAwMDAwMDAwMDAwMDAwMDAx.GabCdE.fake-hmac-part-abcdefghijklmnopqrstuv"
BOT_ID = "100000000000000001"


@dataclass
class FakeDiscord:
    token: str = TOKEN
    guilds: list[dict[str, Any]] = field(
        default_factory=lambda: [{"id": "555000000000000001", "name": "Study group"}]
    )
    requests: list[tuple[str, str]] = field(default_factory=list)
    _runner: web.AppRunner | None = None
    port: int = 0

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    def _authorised(self, request: web.Request) -> bool:
        self.requests.append((request.method, request.path))
        return request.headers.get("Authorization") == f"Bot {self.token}"

    @staticmethod
    def _json(data: object, status: int = 200) -> web.Response:
        import json

        # discord.py (and so our checks) expect exactly application/json.
        return web.Response(
            status=status,
            body=json.dumps(data).encode(),
            headers={"Content-Type": "application/json"},
        )

    async def _me(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return self._json({"message": "401: Unauthorized", "code": 0}, 401)
        return self._json({"id": BOT_ID, "username": "tpquiz-fake", "bot": True})

    async def _guilds(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return self._json({"message": "401: Unauthorized", "code": 0}, 401)
        return self._json(self.guilds)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/api/v10/users/@me", self._me)
        app.router.add_get("/api/v10/users/@me/guilds", self._guilds)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
