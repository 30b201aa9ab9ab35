"""`tpquiz run` when Discord cannot be reached, or answers with something that is not Discord.

Issue #10, item 9: one line naming the URL and what to check, retries (with
`RETRY_DELAYS` shortened here) where the network may not be up yet, exit status 1 for
"unreachable" and 2 for a wrong setting, and never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yarl
from aiohttp import web
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.infra.config import ConfigError, Settings
from bot.infra.exit_codes import EXIT_SETTINGS, EXIT_UNREACHABLE, StartupError
from bot.runtime import startup
from bot.runtime.startup import wait_for_discord
from tests.ops.conftest import RunRunner
from tests.ops.fake_discord import TOKEN

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 where a connection is refused (bound, never listening)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(startup, "RETRY_DELAYS", (0.0, 0.0))


@pytest.fixture
def endpoints(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Restore discord.py's process-wide addresses after the test points them elsewhere."""
    monkeypatch.setattr(Route, "BASE", Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", DiscordWebSocket.DEFAULT_GATEWAY)
    yield


@dataclass
class Fake:
    """REST and gateway answers that can be wrong on purpose."""

    port: int = 0
    #: statuses to answer GET /gateway with before answering properly
    rest_failures: list[int] = field(default_factory=list)
    hits: list[str] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    def ws(self, path: str) -> yarl.URL:
        return yarl.URL(f"ws://127.0.0.1:{self.port}{path}")

    async def gateway(self, request: web.Request) -> web.Response:
        self.hits.append("rest")
        if self.rest_failures:
            return web.Response(status=self.rest_failures.pop(0), text="upstream not ready")
        body = json.dumps({"url": str(self.ws("/hello"))}).encode()
        return web.Response(body=body, headers={"Content-Type": "application/json"})

    async def html(self, request: web.Request) -> web.Response:
        return web.Response(text="<html>captive portal</html>", content_type="text/html")

    async def hello(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.hits.append("hello")
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        await ws.close()
        return ws

    async def garbage(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str("this is not JSON")
        await ws.close()
        return ws


@pytest.fixture
async def fake() -> AsyncIterator[Fake]:
    state = Fake()
    app = web.Application()
    app.router.add_get("/api/v10/gateway", state.gateway)
    app.router.add_get("/html/gateway", state.html)
    app.router.add_get("/hello", state.hello)
    app.router.add_get("/garbage", state.garbage)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    state.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield state
    await runner.cleanup()


async def _failure(rest: str, gateway: yarl.URL) -> StartupError:
    Route.BASE = rest
    DiscordWebSocket.DEFAULT_GATEWAY = gateway
    with pytest.raises(StartupError) as caught:
        await wait_for_discord()
    return caught.value


@pytest.mark.usefixtures("endpoints", "quick_retries")
async def test_a_refused_api_is_retried_then_named_in_one_line(
    closed_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    base = f"http://127.0.0.1:{closed_port}/api/v10"
    error = await _failure(base, yarl.URL("wss://gateway.discord.gg/"))
    assert str(error) == (
        f"cannot reach Discord's API at {base} (connection refused) after 3 attempts in 0 s:"
        " check the network, DNS and any firewall or proxy, and DISCORD_API_BASE"
    )
    assert error.exit_status == EXIT_UNREACHABLE
    assert [r.getMessage() for r in caplog.records] == [
        f"cannot reach Discord's API at {base} (connection refused); trying again in 0 s"
        f" (attempt {n} of 3)"
        for n in (1, 2)
    ]
    assert not [r for r in caplog.records if r.exc_info]


@pytest.mark.usefixtures("endpoints", "quick_retries")
async def test_a_refused_gateway_is_retried_then_named(fake: Fake, closed_port: int) -> None:
    gateway = yarl.URL(f"ws://127.0.0.1:{closed_port}/")
    error = await _failure(fake.base, gateway)
    assert str(error) == (
        f"cannot reach Discord's gateway at {gateway} (connection refused) after 3 attempts"
        " in 0 s: check the network, DNS and any firewall or proxy, and DISCORD_GATEWAY_URL"
    )
    assert error.exit_status == EXIT_UNREACHABLE


@pytest.mark.usefixtures("endpoints", "quick_retries")
async def test_an_api_that_is_not_up_yet_is_waited_for(
    fake: Fake, caplog: pytest.LogCaptureFixture
) -> None:
    """What a boot looks like when a proxy in front of Discord comes up a little later."""
    fake.rest_failures = [503, 502]
    Route.BASE = fake.base
    DiscordWebSocket.DEFAULT_GATEWAY = fake.ws("/hello")
    await wait_for_discord()
    assert fake.hits == ["rest", "rest", "rest", "hello"]
    assert [r.getMessage() for r in caplog.records] == [
        f"cannot reach Discord's API at {fake.base} (HTTP 503); trying again in 0 s (attempt 1 of 3)",
        f"cannot reach Discord's API at {fake.base} (HTTP 502); trying again in 0 s (attempt 2 of 3)",
    ]


@pytest.mark.usefixtures("endpoints", "quick_retries")
async def test_answers_that_are_not_discord_are_a_setting_to_fix_not_retried(fake: Fake) -> None:
    html = f"http://127.0.0.1:{fake.port}/html"
    error = await _failure(html, fake.ws("/hello"))
    assert str(error) == (
        f"Discord's API at {html} answered HTTP 200 with text/html, not JSON: check"
        " DISCORD_API_BASE (Discord's is https://discord.com/api/v10)"
    )
    assert error.exit_status == EXIT_SETTINGS

    wrong_gateways = {
        "/garbage": "did not speak Discord's gateway protocol (its first message was not HELLO)",
        "/api/v10/nothing-here": "refused the WebSocket handshake (HTTP 404)",
    }
    for path, what in wrong_gateways.items():
        error = await _failure(fake.base, fake.ws(path))
        assert str(error) == (
            f"Discord's gateway at {fake.ws(path)} {what}: check DISCORD_GATEWAY_URL"
            " (Discord's is wss://gateway.discord.gg/)"
        )
        assert error.exit_status == EXIT_SETTINGS
    assert fake.hits.count("rest") == 2  # once per test above that got past the API


@pytest.mark.usefixtures("endpoints", "quick_retries")
def test_tpquiz_run_prints_the_line_and_exits_1_when_discord_stays_unreachable(
    tpquiz_run: RunRunner, closed_port: int
) -> None:
    base = f"http://127.0.0.1:{closed_port}/api/v10"
    code, out, err = tpquiz_run(DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=base)
    assert code == 1
    assert err == (
        f"tpquiz: cannot reach Discord's API at {base} (connection refused) after 3 attempts"
        " in 0 s: check the network, DNS and any firewall or proxy, and DISCORD_API_BASE\n"
    )
    assert out.count("trying again in 0 s") == 2
    assert "Traceback" not in out + err and TOKEN not in out + err


BAD_URLS = {
    "DISCORD_API_BASE": {
        "ftp://example.com/api": "DISCORD_API_BASE must be a URL starting with http:// or"
        " https://, such as https://discord.com/api/v10, not 'ftp://example.com/api'",
        "discord.com/api/v10": "DISCORD_API_BASE must be a URL starting with http:// or"
        " https://, such as https://discord.com/api/v10, not 'discord.com/api/v10'",
        "http://[::1/api": "DISCORD_API_BASE is not a valid URL (Invalid IPv6 URL): set a URL"
        " starting with http:// or https://, such as https://discord.com/api/v10",
        "http://127.0.0.1:99999/api": "DISCORD_API_BASE is not a valid URL (Port out of range"
        " 0-65535): set a URL starting with http:// or https://, such as"
        " https://discord.com/api/v10",
        "http://exa mple.com/": "DISCORD_API_BASE contains spaces or control characters: set a URL"
        " starting with http:// or https://, such as https://discord.com/api/v10",
    },
    "DISCORD_GATEWAY_URL": {
        "https://gateway.discord.gg/": "DISCORD_GATEWAY_URL must be a URL starting with ws:// or"
        " wss://, such as wss://gateway.discord.gg/, not 'https://gateway.discord.gg/'",
    },
}


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [(n, v, line) for n, cases in BAD_URLS.items() for v, line in cases.items()],
)
def test_a_malformed_address_is_refused_when_the_settings_are_read(
    name: str, value: str, line: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({name: value}, env_file=None)
    assert str(caught.value) == line


def test_good_addresses_are_accepted() -> None:
    settings = Settings.from_env(
        {"DISCORD_API_BASE": "http://127.0.0.1:8080/api/v10", "DISCORD_GATEWAY_URL": "ws://h/"},
        env_file=None,
    )
    assert (settings.api_base, settings.gateway_url) == ("http://127.0.0.1:8080/api/v10", "ws://h/")


def test_tpquiz_run_with_a_non_http_api_base_exits_2_in_one_line(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "DISCORD_TOKEN": TOKEN,
        "DISCORD_API_BASE": "ftp://example.com/api",
        "TPQUIZ_DB": str(tmp_path / "db.sqlite3"),
    }
    result = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "tpquiz: DISCORD_API_BASE must be a URL starting with http:// or"
        " https://, such as https://discord.com/api/v10, not 'ftp://example.com/api'\n"
    )
    assert not (tmp_path / "db.sqlite3").exists()


def test_sigterm_while_waiting_for_discord_stops_at_once(tmp_path: Path, closed_port: int) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",
        "DISCORD_TOKEN": TOKEN,
        "DISCORD_API_BASE": f"http://127.0.0.1:{closed_port}/api/v10",
        "TPQUIZ_DB": str(tmp_path / "db.sqlite3"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        for line in proc.stdout:  # the first retry: the bot is now waiting 1 s, then 2 s...
            if "trying again in" in line:
                break
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
    finally:
        proc.kill()
        proc.wait()
    assert proc.stderr is not None and "Traceback" not in proc.stderr.read()


async def _tpquiz(tmp_path: Path, *args: str, **env: str) -> tuple[int, str, str]:
    """The real command in a subprocess, awaited so that this test's fake keeps answering."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    return process.returncode or 0, out.decode(), err.decode()


async def test_an_api_that_answers_the_login_with_404_is_one_line_as_doctor_says(
    fake: Fake, tmp_path: Path
) -> None:
    """Issue 31, defect 13: /gateway and the gateway answer (the start-up checks pass),
    GET /users/@me is 404 (a proxy or a path that is not Discord's). run ended in a
    NotFound traceback; now it says doctor's sentence and exits 2 (a setting)."""
    env = {
        "DISCORD_TOKEN": TOKEN,
        "DISCORD_API_BASE": fake.base,
        "DISCORD_GATEWAY_URL": str(fake.ws("/hello")),
        "TPQUIZ_DB": str(tmp_path / "db.sqlite3"),
    }
    sentence = (
        f"GET {fake.base}/users/@me answered HTTP 404: Discord may be down"
        " (https://discordstatus.com) or DISCORD_API_BASE is wrong (Discord's is"
        " https://discord.com/api/v10)"
    )
    code, out, err = await _tpquiz(tmp_path, "run", **env)
    assert (code, err) == (2, f"tpquiz: {sentence}\n")
    assert fake.hits == ["rest", "hello"]
    assert "Traceback" not in out and TOKEN not in out + err
    code, out, _ = await _tpquiz(tmp_path, "doctor", **env)
    assert code == 1
    assert f"FAIL discord: {sentence}\n" in out
