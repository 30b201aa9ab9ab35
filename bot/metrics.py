"""Prometheus metrics in the text exposition format, served by aiohttp on request.

The bot's admins run one small VPS; a Prometheus client library would be one more
dependency to keep patched for four counters and two histograms, so the format
(https://prometheus.io/docs/instrumenting/exposition_formats/) is written here. aiohttp
is already installed as a dependency of discord.py.

Everything is updated from the event loop thread, so no locking is needed. The endpoint
is off unless `TPQUIZ_METRICS_PORT` is set, and binds 127.0.0.1 unless
`TPQUIZ_METRICS_HOST` says otherwise: the numbers are harmless, but an open port on a
VPS is one more thing to firewall.

Usage from the answer path::

    bot.metrics.answer_recorded(correct=result.correct, duplicate=result.duplicate)
    bot.metrics.observe_interaction(seconds, kind="answer")
    bot.metrics.daily_post(sent=True)
"""

from __future__ import annotations

import errno
import logging
import math
import socket
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TypeVar

from aiohttp import web

from bot.startup import EXIT_SETTINGS, StartupError

__all__ = [
    "CONTENT_TYPE",
    "Counter",
    "Gauge",
    "Histogram",
    "Metrics",
    "MetricsServer",
    "serve_metrics",
]

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: Discord cancels an interaction not answered within 3 s, so buckets cluster below that.
INTERACTION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 2.5, 3.0, 5.0, 10.0)
#: A BEGIN IMMEDIATE..COMMIT on a small SQLite file takes about a millisecond.
DB_WRITE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)

LabelKey = tuple[str, ...]
_M = TypeVar("_M", bound="_Metric")


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


class _Metric:
    kind = ""

    def __init__(
        self,
        name: str,
        help_text: str,
        labelnames: Sequence[str] = (),
        preset: Iterable[Mapping[str, str]] = (),
    ) -> None:
        self.name = name
        self.help = help_text
        self.labelnames = tuple(labelnames)
        for labels in preset:  # series that should read 0 before anything happens
            self._series(self._key(labels))

    def _key(self, labels: Mapping[str, str]) -> LabelKey:
        if set(labels) != set(self.labelnames):
            raise ValueError(f"{self.name} takes labels {self.labelnames}, got {tuple(labels)}")
        return tuple(str(labels[n]) for n in self.labelnames)

    def _series(self, key: LabelKey) -> object:  # pragma: no cover - overridden
        raise NotImplementedError

    def _labels(self, key: LabelKey, extra: tuple[tuple[str, str], ...] = ()) -> str:
        pairs = [*zip(self.labelnames, key, strict=True), *extra]
        if not pairs:
            return ""
        return "{" + ",".join(f'{n}="{_escape_label(v)}"' for n, v in pairs) + "}"

    def _header(self) -> list[str]:
        return [f"# HELP {self.name} {_escape_help(self.help)}", f"# TYPE {self.name} {self.kind}"]

    def render(self) -> list[str]:  # pragma: no cover - overridden
        raise NotImplementedError


class _Scalar(_Metric):
    """One float per label set: what counters and gauges share."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._values: dict[LabelKey, float] = {}
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def _series(self, key: LabelKey) -> float:
        return self._values.setdefault(key, 0.0)

    def value(self, **labels: str) -> float:
        return self._values.get(self._key(labels), 0.0)

    def render(self) -> list[str]:
        lines = self._header()
        if not self._values and not self.labelnames:
            lines.append(f"{self.name} 0")
        for key, value in sorted(self._values.items()):
            lines.append(f"{self.name}{self._labels(key)} {_number(value)}")
        return lines


class Counter(_Scalar):
    """A value that only goes up (restarts reset it; Prometheus' rate() copes)."""

    kind = "counter"

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        if amount < 0:
            raise ValueError("a counter only goes up")
        key = self._key(labels)
        self._values[key] = self._values.get(key, 0.0) + amount


class Gauge(_Scalar):
    """A value that is set, such as the number of servers."""

    kind = "gauge"

    def set(self, value: float, **labels: str) -> None:
        self._values[self._key(labels)] = float(value)


class _HistogramSeries:
    __slots__ = ("buckets", "count", "sum")

    def __init__(self, n: int) -> None:
        self.buckets = [0] * n
        self.count = 0
        self.sum = 0.0


class Histogram(_Metric):
    """Observations counted into cumulative `le` buckets, with their sum and count."""

    kind = "histogram"

    def __init__(
        self,
        name: str,
        help_text: str,
        labelnames: Sequence[str] = (),
        preset: Iterable[Mapping[str, str]] = (),
        *,
        buckets: Sequence[float],
    ) -> None:
        if list(buckets) != sorted(set(buckets)):
            raise ValueError("histogram buckets must be increasing")
        self.bounds = tuple(float(b) for b in buckets)
        self._values: dict[LabelKey, _HistogramSeries] = {}
        super().__init__(name, help_text, labelnames, preset)

    def _series(self, key: LabelKey) -> _HistogramSeries:
        series = self._values.get(key)
        if series is None:
            series = self._values[key] = _HistogramSeries(len(self.bounds))
        return series

    def observe(self, value: float, **labels: str) -> None:
        series = self._series(self._key(labels))
        series.count += 1
        series.sum += value
        for i, bound in enumerate(self.bounds):
            if value <= bound:
                series.buckets[i] += 1
                break

    def count(self, **labels: str) -> int:
        series = self._values.get(self._key(labels))
        return series.count if series else 0

    def render(self) -> list[str]:
        lines = self._header()
        if not self._values and not self.labelnames:
            self._series(())
        for key, series in sorted(self._values.items()):
            cumulative = 0
            for bound, n in zip(self.bounds, series.buckets, strict=True):
                cumulative += n
                le = (("le", _number(bound)),)
                lines.append(f"{self.name}_bucket{self._labels(key, le)} {cumulative}")
            inf = (("le", "+Inf"),)
            lines.append(f"{self.name}_bucket{self._labels(key, inf)} {series.count}")
            lines.append(f"{self.name}_sum{self._labels(key)} {_number(series.sum)}")
            lines.append(f"{self.name}_count{self._labels(key)} {series.count}")
        return lines


class Metrics:
    """The bot's metrics; `render()` is what a Prometheus scrape receives."""

    def __init__(self) -> None:
        self._all: list[_Metric] = []
        self.answers_recorded = self._add(
            Counter(
                "tpquiz_answers_recorded_total",
                "Answers recorded, by outcome (correct, wrong, duplicate click).",
                ("outcome",),
                preset=[{"outcome": o} for o in ("correct", "wrong", "duplicate")],
            )
        )
        self.interaction_latency = self._add(
            Histogram(
                "tpquiz_interaction_latency_seconds",
                "Time from an interaction's creation to the bot's first response.",
                ("kind",),
                buckets=INTERACTION_BUCKETS,
            )
        )
        self.daily_posts = self._add(
            Counter(
                "tpquiz_daily_posts_total",
                "Scheduled daily question posts, by result (sent or failed).",
                ("result",),
                preset=[{"result": "sent"}, {"result": "failed"}],
            )
        )
        self.db_write_seconds = self._add(
            Histogram(
                "tpquiz_db_write_seconds",
                "Duration of committed database write transactions (BEGIN to COMMIT).",
                buckets=DB_WRITE_BUCKETS,
            )
        )
        self.guilds = self._add(Gauge("tpquiz_guilds", "Servers the bot is in."))
        self.gateway_latency = self._add(
            Gauge(
                "tpquiz_gateway_latency_seconds",
                "Last gateway heartbeat round trip (NaN while disconnected).",
            )
        )
        self.start_time = self._add(
            Gauge("process_start_time_seconds", "Start time of the process since the epoch.")
        )
        self.start_time.set(time.time())

    def _add(self, metric: _M) -> _M:
        self._all.append(metric)
        return metric

    # -- helpers for the bot's code paths -------------------------------------------------

    def answer_recorded(self, *, correct: bool, duplicate: bool = False) -> None:
        outcome = "duplicate" if duplicate else ("correct" if correct else "wrong")
        self.answers_recorded.inc(outcome=outcome)

    def observe_interaction(self, seconds: float, *, kind: str = "answer") -> None:
        self.interaction_latency.observe(max(0.0, seconds), kind=kind)

    def daily_post(self, *, sent: bool) -> None:
        self.daily_posts.inc(result="sent" if sent else "failed")

    def observe_db_write(self, seconds: float) -> None:
        """Matches `Database.on_commit`."""
        self.db_write_seconds.observe(seconds)

    def render(self) -> str:
        lines: list[str] = []
        for metric in self._all:
            lines.extend(metric.render())
        return "\n".join(lines) + "\n"


class MetricsServer:
    """`GET /metrics` on `host:port`; port 0 picks a free port (see `port`)."""

    def __init__(self, metrics: Metrics, host: str = "127.0.0.1", port: int = 0) -> None:
        self.metrics = metrics
        self.host = host
        self._requested_port = port
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    async def _handle(self, request: web.Request) -> web.Response:
        return web.Response(
            body=self.metrics.render().encode("utf-8"), headers={"Content-Type": CONTENT_TYPE}
        )

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/metrics", self._handle)
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
