"""The bot's Prometheus metrics, kept and rendered by `prometheus-client`, served by aiohttp.

Why the library: it writes the exposition format (and OpenMetrics when a scraper asks),
adds the process metrics an operator looks at first (resident memory, CPU seconds, open
files, start time) and has a multiprocess mode for the day the bot is sharded over
several processes (docs/operations.md, "Metrics").

Each `Metrics` has its own `CollectorRegistry`, not the library's global default one:
tests, benchmarks and several bots in one process then never see each other's numbers or
fail on a name registered twice.

Everything is updated from the event loop thread. The endpoint is off unless
`TPQUIZ_METRICS_PORT` is set, and binds 127.0.0.1 unless `TPQUIZ_METRICS_HOST` says
otherwise: the numbers are harmless, but an open port on a VPS is one more thing to
firewall.

Usage from the answer path::

    bot.metrics.answer_recorded(correct=result.correct, duplicate=result.duplicate)
    bot.metrics.observe_interaction(seconds, kind="answer")
    bot.metrics.daily_post(sent=True)
"""

from __future__ import annotations

import errno
import logging
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import prometheus_client
from aiohttp import web
from prometheus_client import (
    GC_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from prometheus_client.aiohttp import make_aiohttp_handler
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from bot.infra.exit_codes import EXIT_SETTINGS, StartupError

__all__ = ["CONTENT_TYPE", "Metrics", "MetricsServer", "bind_problem", "serve_metrics"]

log = logging.getLogger(__name__)

#: What a scraper that asks for nothing in particular receives (Prometheus' text format).
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4

#: Discord cancels an interaction not answered within 3 s, so buckets cluster below that.
INTERACTION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 2.5, 3.0, 5.0, 10.0)
#: A BEGIN IMMEDIATE..COMMIT on a small SQLite file takes about a millisecond.
DB_WRITE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)
#: Group commit batches: 1 is a lone click; the writer takes at most 64 (bot/storage/sqlite/group_commit.py).
CLICK_BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64)

# No `<name>_created` series beside every counter and histogram: the text format exposes
# them as extra gauges nobody graphs, and the series (and dashboards) stay what they were
# before the library. Process-wide, like the library's own switch.
prometheus_client.disable_created_metrics()


class Metrics:
    """The bot's metrics in a registry of their own; `render()` is what a scrape receives."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.answers_recorded = Counter(
            "tpquiz_answers_recorded",
            "Answers recorded, by outcome (correct, wrong, duplicate click).",
            ["outcome"],
            registry=r,
        )
        self.interaction_latency = Histogram(
            "tpquiz_interaction_latency_seconds",
            "Time from an interaction's creation to the bot's first response.",
            ["kind"],
            buckets=INTERACTION_BUCKETS,
            registry=r,
        )
        self.daily_posts = Counter(
            "tpquiz_daily_posts",
            "Scheduled daily question posts, by result (sent or failed).",
            ["result"],
            registry=r,
        )
        self.db_write_seconds = Histogram(
            "tpquiz_db_write_seconds",
            "Duration of committed database write transactions (BEGIN to COMMIT).",
            buckets=DB_WRITE_BUCKETS,
            registry=r,
        )
        self.click_batch_size = Histogram(
            "tpquiz_click_batch_size",
            "Clicks committed together in one transaction (group commit).",
            buckets=CLICK_BATCH_BUCKETS,
            registry=r,
        )
        self.interactions_expired = Counter(
            "tpquiz_interactions_expired",
            "Interactions past Discord's 3 s before they were answered: not recorded.",
            registry=r,
        )
        self.guilds = Gauge("tpquiz_guilds", "Servers the bot is in.", registry=r)
        self.gateway_latency = Gauge(
            "tpquiz_gateway_latency_seconds",
            "Last gateway heartbeat round trip (NaN while disconnected).",
            registry=r,
        )
        # Series that should read 0 before anything happens (an alert on "failed" needs it).
        for outcome in ("correct", "wrong", "duplicate"):
            self.answers_recorded.labels(outcome=outcome)
        for result in ("sent", "failed"):
            self.daily_posts.labels(result=result)
        #: Each metric's labelled child by label value: `labels()` takes a lock and builds
        #: a key on every call, and the answer path calls two of them for every click.
        self._children: dict[tuple[int, str], Any] = {}
        self._add_process_metrics()

    def _labelled(self, metric: Counter | Histogram, value: str) -> Any:
        """`metric.labels(value)`, kept after the first call (the metric has one label)."""
        key = (id(metric), value)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(value)
        return child

    def _add_process_metrics(self) -> None:
        """process_* (memory, CPU, open files, start time), python_info and python_gc_*."""
        process = ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        if GC_COLLECTOR is not None:  # None where the interpreter has no gc stats
            GCCollector(registry=self.registry)
        if not list(process.collect()):
            # No /proc (macOS): keep at least the start time, which shows restarts.
            start = Gauge(
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.",
                registry=self.registry,
            )
            start.set(time.time())

    # -- helpers for the bot's code paths -------------------------------------------------

    def answer_recorded(self, *, correct: bool, duplicate: bool = False) -> None:
        outcome = "duplicate" if duplicate else ("correct" if correct else "wrong")
        self._labelled(self.answers_recorded, outcome).inc()

    def observe_interaction(self, seconds: float, *, kind: str = "answer") -> None:
        self._labelled(self.interaction_latency, kind).observe(max(0.0, seconds))

    def interaction_expired(self) -> None:
        """An interaction whose work was not run, or given up, because Discord's window
        closed first (bot/ui/deadline.py): a sign the bot is overloaded."""
        self.interactions_expired.inc()

    def daily_post(self, *, sent: bool) -> None:
        self.daily_posts.labels(result="sent" if sent else "failed").inc()

    def observe_db_write(self, seconds: float) -> None:
        """Matches `Database.on_commit`."""
        self.db_write_seconds.observe(seconds)

    def observe_click_batch(self, size: int) -> None:
        """Matches `GroupCommit.on_batch`."""
        self.click_batch_size.observe(size)

    # -- reading back (tests, doctor) -----------------------------------------------------

    def value(self, sample: str, **labels: str) -> float:
        """The current value of one sample, e.g. value("tpquiz_guilds"); 0 if never set.

        `sample` is the exposed name, suffix included: `tpquiz_answers_recorded_total`,
        `tpquiz_db_write_seconds_count`.
        """
        found = self.registry.get_sample_value(sample, labels)
        return 0.0 if found is None else found

    def render(self) -> str:
        """The text exposition of every metric (what a plain scrape receives)."""
        return prometheus_client.generate_latest(self.registry).decode("utf-8")


class MetricsServer:
    """`GET /metrics` on `host:port`; port 0 picks a free port (see `port`)."""

    def __init__(self, metrics: Metrics, host: str = "127.0.0.1", port: int = 0) -> None:
        self.metrics = metrics
        self.host = host
        self._requested_port = port
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    async def start(self) -> None:
        app = web.Application()
        # The library's handler: content negotiation (OpenMetrics on request), gzip.
        app.router.add_get("/metrics", make_aiohttp_handler(self.metrics.registry))
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self._requested_port)
        try:
            await site.start()
        except OSError as exc:
            await self.close()
            raise StartupError(
                bind_problem(self.host, self._requested_port, exc), EXIT_SETTINGS
            ) from None
        sockets = getattr(site._server, "sockets", None) or []
        self._port = sockets[0].getsockname()[1] if sockets else self._requested_port
        log.info("metrics on http://%s:%s/metrics", self.host, self._port)

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("MetricsServer.start() has not been called")
        return self._port

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


def bind_problem(host: str, port: int, exc: OSError) -> str:
    """Why the metrics endpoint cannot listen on host:port, and which setting to change."""
    where = f"cannot serve metrics on {host}:{port}"
    if isinstance(exc, socket.gaierror):
        return (
            f"{where}: TPQUIZ_METRICS_HOST {host!r} does not resolve: set an address of this"
            " machine such as 127.0.0.1 (or 0.0.0.0 in a container)"
        )
    if exc.errno == errno.EADDRINUSE:
        return (
            f"{where}: the port is already in use by another process: set another"
            " TPQUIZ_METRICS_PORT, or stop what listens there"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return (
            f"{where}: {host!r} is not an address of this machine: set TPQUIZ_METRICS_HOST"
            " to 127.0.0.1, 0.0.0.0 or one of its own addresses"
        )
    if exc.errno == errno.EACCES:
        return f"{where}: permission denied: set a TPQUIZ_METRICS_PORT above 1023"
    return f"{where}: {exc.strerror or exc}: check TPQUIZ_METRICS_HOST and TPQUIZ_METRICS_PORT"


@asynccontextmanager
async def serve_metrics(
    metrics: Metrics, host: str, port: int | None
) -> AsyncIterator[MetricsServer | None]:
    """Serve `metrics` for the `async with` block; do nothing when `port` is None."""
    if port is None:
        yield None
        return
    server = MetricsServer(metrics, host, port)
    await server.start()
    try:
        yield server
    finally:
        await server.close()
