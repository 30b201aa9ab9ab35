"""Writes the heartbeat file every 15 s and feeds systemd's watchdog while healthy.

The gateway is judged from discord.py's own state rather than from events: a quiet
study-group server can go hours without a dispatch event, but the gateway heartbeat is
acknowledged every ~41 s, and discord.py closes the socket itself when acknowledgements
stop (`heartbeat_timeout`). So "connected" means: ready, not closed, the websocket open and
a finite heartbeat latency. Each tick also commits one tiny row (`meta`), which proves the
database is still writable (full disk, lost permissions) even when nobody answers.

The watchdog is fed only while the same verdict `tpquiz health` gives is healthy, so a
bot that lost Discord for longer than `WatchdogSec` is restarted by systemd.
"""

from __future__ import annotations

import logging
import math
import os
import time
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

from bot.infra.fault_log import FaultLog
from bot.infra.pids import process_origin
from bot.ops.health import (
    HEARTBEAT_INTERVAL,
    Heartbeat,
    evaluate,
    heartbeat_path_for,
    sd_notify,
    watchdog_enabled,
    write_heartbeat,
)

if TYPE_CHECKING:
    from bot.runtime.bot import TPQuizBot

log = logging.getLogger(__name__)


def gateway_connected(bot: TPQuizBot) -> bool:
    """Whether the gateway is up now (see the module docstring for why this test).

    Sharded (TPQUIZ_SHARD_COUNT), `bot.ws` is always None: every shard of this process
    must be open instead, and the latency is their average.
    """
    latency = bot.latency
    if isinstance(bot, commands.AutoShardedBot):
        shards = bot.shards.values()
        connected = bool(shards) and not any(shard.is_closed() for shard in shards)
    else:
        ws = bot.ws
        connected = ws is not None and ws.open
    return (
        bot.is_ready()
        and not bot.is_closed()
        and connected
        and math.isfinite(latency)
        and latency >= 0
    )


class HealthCog(commands.Cog):
    def __init__(self, bot: TPQuizBot) -> None:
        self.bot = bot
        settings = bot.settings
        # Beside the SQLite file; on PostgreSQL beside where TPQUIZ_DB would be.
        file = bot.db_probe.file
        db_path = file if file is not None else settings.db_path
        self.path = heartbeat_path_for(db_path, settings.heartbeat_path)
        self.max_age = settings.health_max_age
        self.started_at = time.time()
        self.origin = process_origin()  # host and pid namespace, for `tpquiz health`
        self.gateway_at: float | None = None
        self.watchdog = watchdog_enabled()
        self._notified_ready = False
        self._last_verdict: bool | None = None
        self._db_faults = FaultLog(
            log,
            "heartbeat: the database write failed: %s",
            "heartbeat: the database write works again",
        )

    async def cog_load(self) -> None:
        self.beat.start()

    async def cog_unload(self) -> None:
        self.beat.cancel()
        if self._notified_ready:
            sd_notify("STOPPING=1")

    @tasks.loop(seconds=HEARTBEAT_INTERVAL)
    async def beat(self) -> None:
        # An exception escaping a tasks.loop ends it for good: never let one out.
        try:
            await self.tick()
        except Exception:
            log.exception("heartbeat tick failed")

    async def _probe_database(self, now: float) -> None:
        """Write the probe row; one line when writing starts failing and one when it works.

        A full disk or a lost file fails every tick: a traceback each 15 s would bury
        the one line that says what is wrong, so only changes are logged.
        """
        try:
            await self.bot.db_probe.write(now)
        except Exception as exc:
            self._db_faults.failed(exc)
            return
        self._db_faults.worked()

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        await self.tick()

    async def tick(self, now: float | None = None) -> Heartbeat:
        """Probe, write the heartbeat, notify systemd; never raises (the loop must live)."""
        now = time.time() if now is None else now
        connected = gateway_connected(self.bot)
        if connected:
            self.gateway_at = now
        latency = self.bot.latency
        await self._probe_database(now)
        database = self.bot.db_probe.health()
        beat = Heartbeat(
            pid=os.getpid(),
            started_at=self.started_at,
            written_at=now,
            gateway_at=self.gateway_at,
            db_write_at=database.last_write_at,
            guilds=len(self.bot.guilds),
            latency=latency if connected and math.isfinite(latency) else None,
            db_fault=database.fault,
            host=self.origin[0],
            pid_ns=self.origin[1],
        )
        if self.path is not None:
            write_heartbeat(self.path, beat)  # logs its own failures, once per change
        metrics = self.bot.metrics
        metrics.guilds.set(beat.guilds)
        metrics.gateway_latency.set(beat.latency if beat.latency is not None else math.nan)

        verdict = evaluate(beat, now, self.max_age)
        if verdict.healthy != self._last_verdict:  # log changes, not every tick
            quiet = verdict.state in ("healthy", "starting")
            level = logging.INFO if quiet else logging.WARNING
            log.log(level, "health: %s", verdict.line)
            self._last_verdict = verdict.healthy
        if verdict.healthy:
            if not self._notified_ready:
                self._notified_ready = sd_notify("READY=1\nSTATUS=connected to Discord")
            if self.watchdog:
                sd_notify("WATCHDOG=1")
        return beat


async def setup(bot: TPQuizBot) -> None:
    await bot.add_cog(HealthCog(bot))
