"""The Prometheus endpoint: text exposition format, scraped over 127.0.0.1."""

from __future__ import annotations

import random
import re
from pathlib import Path

import aiohttp
import pytest

from bot.client import TPQuizBot
from bot.config import ConfigError, Settings
from bot.metrics import CONTENT_TYPE, Counter, Histogram, Metrics, MetricsServer, serve_metrics
from bot.storage import Storage
from tests.factories import make_bank

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
