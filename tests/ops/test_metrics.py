"""The Prometheus endpoint: text exposition format, scraped over 127.0.0.1."""

from __future__ import annotations

import random
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from bot.client import TPQuizBot
from bot.config import ConfigError, Settings
from bot.metrics import CONTENT_TYPE, Counter, Histogram, Metrics, MetricsServer, serve_metrics
from bot.startup import StartupError
from bot.storage import Storage
from tests.factories import make_bank
from tests.ops.conftest import RunRunner

# One sample line: name, optional {labels}, value (https://prometheus.io exposition format).
SAMPLE = re.compile(
    r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? '
    r"(-?[0-9.e+-]+|NaN|[+-]Inf)$"
)


def _samples(text: str) -> dict[str, float]:
    values = {}
    for line in text.splitlines():
        if line.startswith("#"):
            assert re.match(r"^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$", line), line
            continue
        assert SAMPLE.match(line), f"not a valid sample line: {line!r}"
        name, value = line.rsplit(" ", 1)
        values[name] = float(value)
    return values


async def test_scraping_the_endpoint_returns_every_metric(tmp_path: Path) -> None:
    metrics = Metrics()
    metrics.answer_recorded(correct=True)
    metrics.answer_recorded(correct=True)
    metrics.answer_recorded(correct=False)
    metrics.answer_recorded(correct=True, duplicate=True)
    metrics.observe_interaction(0.2, kind="answer")
    metrics.observe_interaction(4.0, kind="answer")
    metrics.daily_post(sent=True)
    metrics.daily_post(sent=False)
    metrics.observe_db_write(0.003)

    async with serve_metrics(metrics, "127.0.0.1", 0) as server:
        assert server is not None and server.port > 0
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{server.port}/metrics") as resp:
                assert resp.status == 200
                assert resp.headers["Content-Type"] == CONTENT_TYPE
                text = await resp.text()
            async with session.get(f"http://127.0.0.1:{server.port}/other") as resp:
                assert resp.status == 404

    samples = _samples(text)
    assert text.endswith("\n")
    assert samples['tpquiz_answers_recorded_total{outcome="correct"}'] == 2
    assert samples['tpquiz_answers_recorded_total{outcome="wrong"}'] == 1
    assert samples['tpquiz_answers_recorded_total{outcome="duplicate"}'] == 1
    assert samples['tpquiz_daily_posts_total{result="sent"}'] == 1
    assert samples['tpquiz_daily_posts_total{result="failed"}'] == 1
    assert samples['tpquiz_interaction_latency_seconds_bucket{kind="answer",le="0.25"}'] == 1
    assert samples['tpquiz_interaction_latency_seconds_bucket{kind="answer",le="3"}'] == 1
    assert samples['tpquiz_interaction_latency_seconds_bucket{kind="answer",le="+Inf"}'] == 2
    assert samples['tpquiz_interaction_latency_seconds_count{kind="answer"}'] == 2
    assert samples['tpquiz_interaction_latency_seconds_sum{kind="answer"}'] == pytest.approx(4.2)
    assert samples['tpquiz_db_write_seconds_bucket{le="0.0025"}'] == 0
    assert samples['tpquiz_db_write_seconds_bucket{le="0.005"}'] == 1
    assert samples["tpquiz_db_write_seconds_count"] == 1
    assert "# TYPE tpquiz_interaction_latency_seconds histogram" in text
    assert "# TYPE tpquiz_answers_recorded_total counter" in text
    assert samples["process_start_time_seconds"] > 1e9


def test_a_fresh_registry_already_exposes_zero_series() -> None:
    samples = _samples(Metrics().render())
    assert samples['tpquiz_daily_posts_total{result="failed"}'] == 0
    assert samples["tpquiz_db_write_seconds_count"] == 0
    assert samples["tpquiz_guilds"] == 0


def test_label_values_are_escaped_and_label_names_checked() -> None:
    counter = Counter("x_total", "help with \\ and\nnewline", ("name",))
    counter.inc(name='a "quoted"\\path\n')
    lines = counter.render()
    assert lines[0] == "# HELP x_total help with \\\\ and\\nnewline"
    assert lines[2] == 'x_total{name="a \\"quoted\\"\\\\path\\n"} 1'
    with pytest.raises(ValueError, match="takes labels"):
        counter.inc(other="y")
    with pytest.raises(ValueError, match="only goes up"):
        counter.inc(-1, name="a")
    with pytest.raises(ValueError, match="increasing"):
        Histogram("h", "h", buckets=(1.0, 0.5))


async def test_the_server_is_off_without_a_port() -> None:
    async with serve_metrics(Metrics(), "127.0.0.1", None) as server:
        assert server is None


async def test_the_server_binds_where_told(tmp_path: Path) -> None:
    server = MetricsServer(Metrics(), "127.0.0.1", 0)
    await server.start()
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{server.port}/metrics") as resp:
                assert resp.status == 200
    finally:
        await server.close()


async def test_the_bot_times_every_committed_database_write(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "m.sqlite3")
    bot = TPQuizBot(
        settings=Settings(db_path=tmp_path / "m.sqlite3"),
        storage=storage,
        bank=make_bank(),
        rng=random.Random(0),
    )
    try:
        before = storage.db.last_write_at
        await storage.meta.set("k", "v")
        await storage.meta.set("k", "w")
        assert bot.metrics.db_write_seconds.count() == 2
        assert storage.db.last_write_at is not None and storage.db.last_write_at != before
    finally:
        await bot.close()
        await storage.close()


def test_metrics_settings_default_to_off_and_loopback() -> None:
    settings = Settings.from_env({}, env_file=None)
    assert (settings.metrics_port, settings.metrics_host) == (None, "127.0.0.1")
    exposed = Settings.from_env(
        {"TPQUIZ_METRICS_PORT": "9464", "TPQUIZ_METRICS_HOST": "0.0.0.0"}, env_file=None
    )
    assert (exposed.metrics_port, exposed.metrics_host) == (9464, "0.0.0.0")
    for bad in ("0", "65536", "http", "-1"):
        with pytest.raises(ConfigError, match="TPQUIZ_METRICS_PORT"):
            Settings.from_env({"TPQUIZ_METRICS_PORT": bad}, env_file=None)


# -- the endpoint cannot listen (issue #10, item 10): one line, exit 2 ------------------------


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port on 127.0.0.1 that another process is listening on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


async def test_a_port_in_use_or_a_wrong_host_is_one_sentence(taken_port: int) -> None:
    cases = {
        ("127.0.0.1", taken_port): f"cannot serve metrics on 127.0.0.1:{taken_port}: the port is"
        " already in use by another process: set another TPQUIZ_METRICS_PORT, or stop what"
        " listens there",
        ("203.0.113.7", 9464): "cannot serve metrics on 203.0.113.7:9464: '203.0.113.7' is not an"
        " address of this machine: set TPQUIZ_METRICS_HOST to 127.0.0.1, 0.0.0.0 or one of its"
        " own addresses",
        ("no-such-host.invalid", 9464): "cannot serve metrics on no-such-host.invalid:9464:"
        " TPQUIZ_METRICS_HOST 'no-such-host.invalid' does not resolve: set an address of this"
        " machine such as 127.0.0.1 (or 0.0.0.0 in a container)",
    }
    for (host, port), line in cases.items():
        with pytest.raises(StartupError) as caught:
            async with serve_metrics(Metrics(), host, port):
                pass
        assert str(caught.value) == line
        assert caught.value.exit_status == 2


def test_tpquiz_run_refuses_to_start_when_the_metrics_port_is_taken(
    tpquiz_run: RunRunner, taken_port: int
) -> None:
    from tests.ops.fake_discord import TOKEN

    # The API address is never contacted: the metrics endpoint is opened first.
    code, out, err = tpquiz_run(
        DISCORD_TOKEN=TOKEN,
        TPQUIZ_METRICS_PORT=str(taken_port),
        DISCORD_API_BASE="http://127.0.0.1:9/api/v10",
    )
    assert code == 2
    assert err == (
        f"tpquiz: cannot serve metrics on 127.0.0.1:{taken_port}: the port is already in use by"
        " another process: set another TPQUIZ_METRICS_PORT, or stop what listens there\n"
    )
    assert "Traceback" not in out + err and "Discord's API" not in out


@pytest.mark.parametrize("port", ["²", "٣", "९४६४", "+9464", "9_464", "0x24f8"])
def test_a_port_that_is_not_ascii_decimal_is_a_settings_error(port: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"TPQUIZ_METRICS_PORT": port}, env_file=None)
    assert str(caught.value) == "TPQUIZ_METRICS_PORT must be a TCP port (1-65535), e.g. 9464"
