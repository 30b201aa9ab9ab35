"""The Prometheus endpoint: prometheus-client's exposition, scraped over 127.0.0.1.

The scrapes are parsed with prometheus-client's own parser, so a test fails on anything a
Prometheus server would not read, and asserts names, types and values as a dashboard sees
them.
"""

from __future__ import annotations

import asyncio
import math
import random
import socket
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from bot.infra.config import ConfigError, Settings
from bot.infra.exit_codes import StartupError
from bot.ops.metrics import CONTENT_TYPE, Metrics, MetricsServer, serve_metrics
from bot.runtime.compose import build_bot
from bot.storage.sqlite import Storage
from tests.factories import make_bank
from tests.ops.conftest import RunRunner


def _families(text: str) -> dict[str, Metric]:
    return {family.name: family for family in text_string_to_metric_families(text)}


def _sample(family: Metric, name: str, **labels: str) -> float:
    found = [s.value for s in family.samples if s.name == name and s.labels == labels]
    assert len(found) == 1, f"{name}{labels}: {found} in {family.samples}"
    return found[0]


async def _scrape(port: int, path: str = "/metrics", **headers: str) -> tuple[int, str, str]:
    """Status, Content-Type and body text (aiohttp undoes any Content-Encoding)."""
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}{path}", headers=headers) as resp:
            encoding = resp.headers.get("Content-Encoding", "")
            text = await resp.text()
            return resp.status, f"{resp.headers.get('Content-Type', '')}|{encoding}", text


async def test_a_scrape_after_some_clicks_parses_with_prometheus_clients_parser() -> None:
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
    metrics.observe_click_batch(1)
    metrics.observe_click_batch(20)
    metrics.guilds.set(3)
    metrics.gateway_latency.set(math.nan)

    async with serve_metrics(metrics, "127.0.0.1", 0) as server:
        assert server is not None and server.port > 0
        status, content_type, text = await _scrape(server.port, **{"Accept-Encoding": "identity"})
        assert (status, content_type) == (200, f"{CONTENT_TYPE}|")
        assert (await _scrape(server.port, "/other"))[0] == 404

    families = _families(text)
    types = {name: family.type for name, family in families.items()}
    assert types["tpquiz_answers_recorded"] == "counter"
    assert types["tpquiz_daily_posts"] == "counter"
    assert types["tpquiz_interaction_latency_seconds"] == "histogram"
    assert types["tpquiz_db_write_seconds"] == "histogram"
    assert types["tpquiz_guilds"] == types["tpquiz_gateway_latency_seconds"] == "gauge"

    answers = families["tpquiz_answers_recorded"]
    assert _sample(answers, "tpquiz_answers_recorded_total", outcome="correct") == 2
    assert _sample(answers, "tpquiz_answers_recorded_total", outcome="wrong") == 1
    assert _sample(answers, "tpquiz_answers_recorded_total", outcome="duplicate") == 1
    daily = families["tpquiz_daily_posts"]
    assert _sample(daily, "tpquiz_daily_posts_total", result="sent") == 1
    assert _sample(daily, "tpquiz_daily_posts_total", result="failed") == 1

    latency = families["tpquiz_interaction_latency_seconds"]
    bucket = "tpquiz_interaction_latency_seconds_bucket"
    assert _sample(latency, bucket, kind="answer", le="0.25") == 1
    assert _sample(latency, bucket, kind="answer", le="3.0") == 1
    assert _sample(latency, bucket, kind="answer", le="+Inf") == 2
    assert _sample(latency, "tpquiz_interaction_latency_seconds_count", kind="answer") == 2
    assert _sample(
        latency, "tpquiz_interaction_latency_seconds_sum", kind="answer"
    ) == pytest.approx(4.2)
    writes = families["tpquiz_db_write_seconds"]
    assert _sample(writes, "tpquiz_db_write_seconds_bucket", le="0.0025") == 0
    assert _sample(writes, "tpquiz_db_write_seconds_bucket", le="0.005") == 1
    assert _sample(writes, "tpquiz_db_write_seconds_count") == 1
    batches = families["tpquiz_click_batch_size"]
    assert _sample(batches, "tpquiz_click_batch_size_bucket", le="1.0") == 1
    assert _sample(batches, "tpquiz_click_batch_size_bucket", le="16.0") == 1
    assert _sample(batches, "tpquiz_click_batch_size_bucket", le="32.0") == 2
    assert _sample(families["tpquiz_guilds"], "tpquiz_guilds") == 3
    gateway = families["tpquiz_gateway_latency_seconds"]
    assert math.isnan(_sample(gateway, "tpquiz_gateway_latency_seconds"))
    # Without created timestamps, every family holds exactly the series it held before.
    assert not any(name.endswith("_created") for name in families)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process metrics need /proc")
def test_the_process_metrics_come_with_it() -> None:
    families = _families(Metrics().render())
    for name, kind in {
        "process_resident_memory_bytes": "gauge",
        "process_virtual_memory_bytes": "gauge",
        "process_cpu_seconds": "counter",
        "process_open_fds": "gauge",
        "process_max_fds": "gauge",
        "process_start_time_seconds": "gauge",
        "python_info": "gauge",
    }.items():
        assert families[name].type == kind, name
    assert _sample(families["process_resident_memory_bytes"], "process_resident_memory_bytes") > 0
    assert _sample(families["process_open_fds"], "process_open_fds") >= 3  # stdin/out/err
    assert _sample(families["process_start_time_seconds"], "process_start_time_seconds") > 1e9


def test_a_fresh_registry_already_exposes_zero_series() -> None:
    families = _families(Metrics().render())
    assert _sample(families["tpquiz_daily_posts"], "tpquiz_daily_posts_total", result="failed") == 0
    for outcome in ("correct", "wrong", "duplicate"):
        answers = families["tpquiz_answers_recorded"]
        assert _sample(answers, "tpquiz_answers_recorded_total", outcome=outcome) == 0
    assert _sample(families["tpquiz_db_write_seconds"], "tpquiz_db_write_seconds_count") == 0
    assert _sample(families["tpquiz_guilds"], "tpquiz_guilds") == 0


def test_each_bot_has_a_registry_of_its_own() -> None:
    first, second = Metrics(), Metrics()  # the default registry would refuse the second
    first.answer_recorded(correct=True)
    assert first.value("tpquiz_answers_recorded_total", outcome="correct") == 1
    assert second.value("tpquiz_answers_recorded_total", outcome="correct") == 0
    assert first.registry is not second.registry


async def test_a_scraper_that_asks_for_openmetrics_or_gzip_gets_it() -> None:
    metrics = Metrics()
    metrics.answer_recorded(correct=False)
    async with serve_metrics(metrics, "127.0.0.1", 0) as server:
        assert server is not None
        _, content_type, text = await _scrape(
            server.port, Accept="application/openmetrics-text; version=1.0.0"
        )
        assert content_type.startswith("application/openmetrics-text; version=1.0.0")
        assert text.endswith("# EOF\n")
        _, zipped_type, zipped = await _scrape(server.port, **{"Accept-Encoding": "gzip"})
    assert zipped_type == f"{CONTENT_TYPE}|gzip"
    answers = _families(zipped)["tpquiz_answers_recorded"]
    assert _sample(answers, "tpquiz_answers_recorded_total", outcome="wrong") == 1


async def test_the_server_is_off_without_a_port() -> None:
    async with serve_metrics(Metrics(), "127.0.0.1", None) as server:
        assert server is None


async def test_the_server_binds_where_told(tmp_path: Path) -> None:
    server = MetricsServer(Metrics(), "127.0.0.1", 0)
    await server.start()
    try:
        assert (await _scrape(server.port))[0] == 200
    finally:
        await server.close()


async def test_the_bot_times_every_committed_database_write(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "m.sqlite3")
    bot = build_bot(
        settings=Settings(db_path=tmp_path / "m.sqlite3"),
        storage=storage,
        bank=make_bank(),
        rng=random.Random(0),
    )
    try:
        before = storage.db.last_write_at
        await storage.meta.set("k", "v")
        await storage.meta.set("k", "w")
        assert bot.metrics.value("tpquiz_db_write_seconds_count") == 2
        assert storage.db.last_write_at is not None and storage.db.last_write_at != before
        post = await storage.posts.create(
            guild_id=1, channel_id=2, question_id="q", order=(0, 1), language="en", now_ms=0
        )
        await asyncio.gather(
            *(
                storage.answers.record(
                    guild_id=1,
                    user_id=user,
                    name="m",
                    question=make_bank()["mlp-split-01"],
                    choice_index=0,
                    now_ms=1,
                    post_id=post.id,
                )
                for user in range(5)
            )
        )
        assert bot.metrics.value("tpquiz_click_batch_size_count") >= 1
        assert bot.metrics.value("tpquiz_click_batch_size_sum") == 5
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
