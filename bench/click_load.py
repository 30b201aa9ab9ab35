"""The click generator of the loopback process: prepare clicks, send them, time them.

Closed loop (a fixed number of clicks in flight) shows throughput; open loop (clicks on a
schedule, answered or not) shows latency as members see it. Everything a click needs is
made before the clock starts (`PreparedClick`: a frame template per button, the payload,
a new member), and while a load runs the loopback's fast paths are on, deep copies and
the garbage collector off (`bench/fast_loopback.py`), so that the generator is never the
limit of the bot it measures.
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import gc
import random
import secrets
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.common import percentile, summary_ms
from bench.fast_loopback import (
    FastLoopback,
    FrameTemplate,
    check_value,
    main_thread_schedstat,
    no_deep_copies,
    sentinel,
)

#: How long a click may wait for its callback before it counts as lost (Discord: 3 s).
CLICK_TIMEOUT = 10.0
#: The member a frame template is made with (its id and name are then slots).
TEMPLATE_MEMBER = 1_399_999_999_999_999_998


@dataclass
class Click:
    """One sent click and what came back."""

    sent: float
    answered: float | None = None
    status: int | None = None
    callback_type: int | None = None


@dataclass
class PreparedClick:
    """A click ready to send: its frame template, its payload and its member."""

    template: FrameTemplate
    payload: dict[str, Any]
    user_id: str
    name: str


async def click(lb: FastLoopback, prepared: PreparedClick, result: Click) -> None:
    """Send one prepared INTERACTION_CREATE and wait for the bot's callback.

    Its id is made now, as Discord makes it when the member clicks: the id carries the
    interaction's creation time, from which the bot counts Discord's 3 s (issue 30,
    bot/ui/deadline.py); an id made when the load was prepared would age the click by
    the load's duration and have it deferred or given up."""
    interaction_id = prepared.payload["id"] = str(lb.snowflake())
    waiter = lb.expect_callback(interaction_id)
    result.sent = time.perf_counter()
    lb.enqueue_click(prepared.template, prepared.payload, prepared.user_id, prepared.name)
    try:
        async with asyncio.timeout(CLICK_TIMEOUT):
            result.answered, result.status, result.callback_type = await waiter
    except TimeoutError:
        lb.forget_callback(interaction_id)


class ClickLoad:
    """One load of clicks on posts, each click by a new member (`new_member()`)."""

    def __init__(
        self,
        lb: FastLoopback,
        rng: random.Random,
        new_member: Callable[[], dict[str, Any]],
    ) -> None:
        self.lb = lb
        self.rng = rng
        self.new_member = new_member

    def _template(self, message_id: int, custom_id: str) -> tuple[FrameTemplate, dict[str, Any]]:
        """The frame template of a click on one button, and its payload (slots unfilled)."""
        member = self.lb.member(TEMPLATE_MEMBER, "template")
        member["user"].update(id=sentinel("U"), username=sentinel("N"), global_name=sentinel("N"))
        payload = self.lb.button_click(message_id, custom_id, member)
        payload.update(id=sentinel("I"), token=sentinel("T"))
        frame = {"op": 0, "t": "INTERACTION_CREATE", "s": sentinel("S"), "d": payload}
        return FrameTemplate(frame), payload

    def _prepare(self, message_ids: list[int], count: int) -> list[PreparedClick]:
        """`count` clicks, each by a new member (so every one is a first answer); the
        templates are made afresh per load, so the clicked messages are current."""
        templates: dict[tuple[int, str], tuple[FrameTemplate, dict[str, Any]]] = {}
        prepared = []
        for i in range(count):
            message_id = message_ids[i % len(message_ids)]
            message = self.lb.messages[message_id]
            buttons = [c for row in message["components"] for c in row["components"]]
            custom_id = self.rng.choice(buttons)["custom_id"]
            key = (message_id, custom_id)
            if key not in templates:
                templates[key] = self._template(message_id, custom_id)
            template, base = templates[key]
            member = self.new_member()
            user = member["user"]
            payload = {
                **base,
                "id": str(self.lb.snowflake()),
                "token": "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48),
                "member": member,
            }
            prepared.append(
                PreparedClick(
                    template, payload, check_value(user["id"]), check_value(user["username"])
                )
            )
        return prepared

    async def run(
        self,
        mode: str,
        message_ids: list[int],
        clicks: int = 0,
        concurrency: int = 1,
        rate: float = 0.0,
        duration: float = 0.0,
        watch_pid: int = 0,
        profile_to: str = "",
    ) -> dict[str, Any]:
        """Closed loop: `clicks` clicks, `concurrency` in flight. Open loop: `rate` clicks
        a second for `duration` seconds, sent on schedule whether or not answered.
        `watch_pid`: the bot, whose main-thread busy share over the load is returned.
        `profile_to`: write a cProfile of this process over the load there."""
        if mode == "open":
            clicks = int(rate * duration)
        prepared = self._prepare(message_ids, clicks)
        results = [Click(sent=0.0) for _ in prepared]
        lag: list[float] = []
        gc.collect()
        gc.disable()  # a collection mid-load would be the generator's pause, not the bot's
        self.lb.fast = True
        self.lb.reply_body_sizes.clear()
        profiler = cProfile.Profile() if profile_to else None
        try:
            with no_deep_copies(), profiler or contextlib.nullcontext():
                run0, wait0 = main_thread_schedstat(watch_pid)
                cpu0 = time.process_time()
                started = time.perf_counter()
                await self._run_load(mode, prepared, results, lag, concurrency, rate)
                ended = time.perf_counter()
                cpu = time.process_time() - cpu0
                run1, wait1 = main_thread_schedstat(watch_pid)
        finally:
            self.lb.fast = False
            gc.enable()
        if profiler is not None:
            profiler.dump_stats(profile_to)
        for one in prepared:
            self.lb.forget_interaction(one.payload["token"])

        answered = [r for r in results if r.answered is not None]
        last = max((r.answered for r in answered if r.answered is not None), default=started)
        elapsed = last - started
        latencies = [r.answered - r.sent for r in answered if r.answered is not None]
        types: dict[str, int] = {}
        statuses: dict[str, int] = {}
        for r in answered:
            types[str(r.callback_type)] = types.get(str(r.callback_type), 0) + 1
            statuses[str(r.status)] = statuses.get(str(r.status), 0) + 1
        return {
            "mode": mode,
            "sent": len(results),
            "answered": len(answered),
            "lost": len(results) - len(answered),
            "elapsed_s": elapsed,
            "clicks_per_s": len(answered) / elapsed if elapsed > 0 else 0.0,
            "latency_ms": summary_ms(latencies),
            "callback_types": types,
            "statuses": statuses,
            # The median size of the reply bodies (type-4 callbacks), in bytes.
            "reply_body_bytes": (
                statistics.median(self.lb.reply_body_sizes) if self.lb.reply_body_sizes else 0.0
            ),
            "loopback_cpu_s": cpu,
            "bot_main_busy": (run1 - run0) / (ended - started),
            "bot_main_waiting": (wait1 - wait0) / (ended - started),
            "sender_lag_max_ms": max(lag, default=0.0) * 1000,
            "sender_lag_p99_ms": percentile(lag, 99) * 1000 if lag else 0.0,
            "concurrency": concurrency,
            "rate": rate,
        }

    async def _run_load(
        self,
        mode: str,
        prepared: list[PreparedClick],
        results: list[Click],
        lag: list[float],
        concurrency: int,
        rate: float,
    ) -> None:
        started = time.perf_counter()
        if mode == "closed":
            queue = iter(range(len(prepared)))

            async def worker() -> None:
                for index in queue:
                    await click(self.lb, prepared[index], results[index])

            await asyncio.gather(*(worker() for _ in range(concurrency)))
        elif mode == "open":
            tasks = []
            for index, one in enumerate(prepared):
                due = started + index / rate
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                else:
                    lag.append(-delay)  # the generator itself fell behind (a busy machine)
                tasks.append(asyncio.create_task(click(self.lb, one, results[index])))
            await asyncio.gather(*tasks)
        else:
            raise ValueError(f"mode must be closed or open, not {mode!r}")
