"""The bench's loopback Discord: `LoopbackDiscord` made cheap enough to saturate a bot.

The answer-path bench compares tpquiz with a bare discord.py bot, and the ratio only
means something when the bare bot, not the click generator, is the limit: its main
thread must be busy nearly all the time at 32 clicks in flight. The test loopback spends
most of its CPU per click on things a bench need not redo for every click, on the same
two cores as the bot it measures:

* building and JSON-encoding each INTERACTION_CREATE frame (a 3 KB payload with the
  clicked message): here a `FrameTemplate` per (message, button) is encoded once, with
  `str.format` slots for the ids, the token, the member and the sequence number;
* the generic REST path for the interaction callback (headers copied, a linear route
  scan, a `RecordedRequest` per call, a condition notified per request): here a POST to
  `/interactions/{id}/{token}/callback` of type 4 or 5 goes straight to the loopback's own
  callback handler (same answer, same stored message) and resolves the click's waiter;
  anything else (errors, other types, other routes) takes the ordinary path;
* the deep copies the loopback makes so tests may mutate what they get (`no_deep_copies`),
  and the garbage collector, which the load generator disables while a load runs.

`main_thread_schedstat` reads a bot's main-thread CPU (and time waiting for a CPU) from
schedstat, in nanoseconds, so the busy share over exactly the timed window is reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from aiohttp import web

import tests.loopback.server as loopback_server
from bench.botproc import bot_token
from tests.loopback.server import (
    CALLBACK_ROUTE,
    InteractionRecord,
    LoopbackDiscord,
    RecordedRequest,
    _ApiError,
    _Call,
    _Connection,
    _json_reply,
    _now_iso,
)

#: Slots of a frame template: sequence number, interaction id, token, user id, name.
SLOTS = ("S", "I", "T", "U", "N")
_SENTINEL = "@@{}@@"
_PROBE_TOKEN = "@@probe@@"


class _NoDeepCopy:
    """Stands in for the `copy` module inside `tests.loopback.server` during a load.

    The loopback deep-copies every payload it stores, sends or records, so that a test
    may mutate what it got back. During a timed load nothing mutates those objects:
    click payloads are prepared before the clock starts, and the requests served then
    only store fresh request bodies and serialise them.
    """

    @staticmethod
    def deepcopy(value: Any) -> Any:
        return value


@contextlib.contextmanager
def no_deep_copies() -> Iterator[None]:
    saved = loopback_server.copy
    loopback_server.copy = _NoDeepCopy  # type: ignore[assignment]
    try:
        yield
    finally:
        loopback_server.copy = saved


def sentinel(slot: str) -> str:
    """The placeholder string a template payload carries where `slot` goes."""
    return _SENTINEL.format(slot)


def slot_format(value: Any, fragments: Mapping[str, str]) -> str:
    """`value` as compact JSON turned into a `str.format` string: each fragment of the
    JSON text in `fragments` (a sentinel, or a quoted sentinel for a bare number) is
    replaced by its slot text (`"{I}"`, `{S}`); braces of the JSON itself are escaped."""
    text = json.dumps(value, separators=(",", ":"))
    text = text.replace("{", "{{").replace("}", "}}")
    for fragment, slot in fragments.items():
        if fragment not in text:
            raise ValueError(f"{fragment!r} does not occur in the encoded value")
        text = text.replace(fragment, slot)
    return text


class FrameTemplate:
    """A gateway dispatch frame encoded once, with slots filled per click.

    Build it from a frame whose variable strings are `sentinel(slot)` (the sequence
    number too: `"s": sentinel("S")`, which becomes a bare number); `render()` fills the
    slots with `str.format`, in C. Values must need no JSON escaping (digits, URL-safe
    base64, plain names), which `render` does not check for speed; `check_value` does.
    """

    def __init__(self, frame: Mapping[str, Any]) -> None:
        fragments = {f'"{sentinel("S")}"': "{S}"}
        fragments.update((sentinel(slot), "{" + slot + "}") for slot in SLOTS[1:])
        self.format = slot_format(frame, fragments)

    def render(self, **values: object) -> str:
        return self.format.format(**values)


def check_value(value: str) -> str:
    """`value` if it can go into a template slot unescaped; ValueError otherwise."""
    if not value.isascii() or any(c in value for c in '"\\{}') or not value.isprintable():
        raise ValueError(f"{value!r} needs JSON escaping")
    return value


class EncodedFrame(dict[str, Any]):
    """A buffered dispatch frame whose JSON text is already made (`text`)."""

    __slots__ = ("text",)

    def __init__(self, seq: int, event: str, text: str) -> None:
        super().__init__(op=0, t=event, s=seq)
        self.text = text


def main_thread_schedstat(pid: int) -> tuple[float, float]:
    """(CPU seconds run, seconds waited runnable for a CPU) of a process's main thread,
    from schedstat (nanoseconds); NaNs if unreadable. A thread that is busy plus waiting
    nearly all the time wanted the CPU all the time: it, not its client, was the limit."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
        return int(fields[0]) / 1e9, int(fields[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return float("nan"), float("nan")


class FastLoopback(LoopbackDiscord):
    """`LoopbackDiscord` with O(1) callback matching, pre-encoded clicks and a fast
    callback path (see the module docstring); `fast` is on only while a load runs."""

    def __init__(self) -> None:
        super().__init__(validator=None)
        self.token = bot_token(self.bot_user_id)
        self._waiting: dict[str, asyncio.Future[tuple[float, int, int | None]]] = {}
        self.fast = False
        self._callback_route = next(r for r in self._routes if r.template == CALLBACK_ROUTE)
        self._reply_formats: dict[tuple[bytes, str, str | None], str] = {}
        self._replies_seen: set[tuple[bytes, str, str | None]] = set()
        #: The size in bytes of each type-4 reply body received (the bench clears it per
        #: load): tpquiz's and the bare bots' replies are compared only at the same size.
        self.reply_body_sizes: list[int] = []

    def expect_callback(self, interaction_id: str) -> asyncio.Future[tuple[float, int, int | None]]:
        """A future resolved with (time, status, callback type) when the bot answers."""
        waiter: asyncio.Future[tuple[float, int, int | None]] = (
            asyncio.get_running_loop().create_future()
        )
        self._waiting[interaction_id] = waiter
        return waiter

    def forget_callback(self, interaction_id: str) -> None:
        self._waiting.pop(interaction_id, None)

    def forget_interaction(self, token: str) -> None:
        """Drop a finished interaction and its reply message (keeps a long run's memory flat)."""
        record = self.interactions.pop(token, None)
        if record is not None and record.original_message_id is not None:
            self.messages.pop(record.original_message_id, None)

    # -- gateway -----------------------------------------------------------------------

    def enqueue_click(
        self, template: FrameTemplate, payload: dict[str, Any], user_id: str, name: str
    ) -> None:
        """Dispatch one prepared click: remember it, and buffer its frame per session."""
        token = payload["token"]
        self.interactions[token] = InteractionRecord(int(payload["id"]), token, payload)
        guild_id = int(payload["guild_id"])
        for session in self.sessions.values():
            if not session.alive or not session.wants_guild(guild_id):  # its shard only
                continue
            seq = len(session.buffer) + 1
            text = template.render(S=seq, I=payload["id"], T=token, U=user_id, N=name)
            session.buffer.append(EncodedFrame(seq, "INTERACTION_CREATE", text))
            if session.conn is not None:
                session.conn.wake.set()

    async def _write_loop(self, conn: _Connection) -> None:
        """As `LoopbackDiscord._write_loop`, sending pre-encoded frames as they are."""
        try:
            while not conn.ws.closed:
                await conn.wake.wait()
                conn.wake.clear()
                while not conn.ws.closed:
                    session = conn.session
                    if (
                        session is not None
                        and session.conn is conn
                        and conn.sent < len(session.buffer)
                    ):
                        frame = session.buffer[conn.sent]
                        conn.sent += 1
                    elif conn.control:
                        frame = conn.control.popleft()
                    else:
                        break
                    text = frame.text if type(frame) is EncodedFrame else json.dumps(frame)
                    await conn.ws.send_str(text)
                await self._notify_gateway()
        except ConnectionError:
            pass

    # -- REST --------------------------------------------------------------------------

    async def _handle_rest(self, request: web.Request) -> web.StreamResponse:
        if self.fast and request.method == "POST":
            tail = request.match_info["tail"]
            if tail.startswith("interactions/") and tail.endswith("/callback"):
                fast = await self._fast_callback(request, tail)
                if fast is not None:
                    return fast
        return await super()._handle_rest(request)

    async def _fast_callback(self, request: web.Request, tail: str) -> web.StreamResponse | None:
        """A type 4/5 callback for a known, unanswered interaction, or None (slow path)."""
        if request.content_type != "application/json":
            return None
        parts = tail.split("/")
        if len(parts) != 4:
            return None
        interaction_id, token = parts[1], parts[2]
        record = self.interactions.get(token)
        if record is None or record.response_type is not None or str(record.id) != interaction_id:
            return None
        raw = await request.read()  # read() is cached for the slow path
        body = json.loads(raw)
        if not isinstance(body, dict) or body.get("type") not in (4, 5):
            return None
        if body["type"] == 4:
            self.reply_body_sizes.append(len(raw))
        response = await self._templated_reply(raw, record, body) if body["type"] == 4 else None
        if response is None:  # a deferral, or a reply body not seen before: the real handler
            params = {"interaction_id": interaction_id, "interaction_token": token}
            query = dict(request.query)
            reply = await self._run_handler(
                self._callback_route, _Call(params, body, [], query), "POST", tail
            )
            response = _json_reply(reply.status, reply.payload, reply.headers)
        waiter = self._waiting.pop(interaction_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result((time.perf_counter(), response.status, body["type"]))
        return response

    async def _templated_reply(
        self, raw: bytes, record: InteractionRecord, body: dict[str, Any]
    ) -> web.Response | None:
        """The answer to a type-4 callback, from a template per reply body and channel.

        A reply body seen a second time (the bare bot's fixed reply; not tpquiz's, which
        differ per member) gets a template: the loopback's own handler makes the answer
        once for an interaction whose ids and member are sentinels, and later clicks fill
        the slots. The reply message is then not stored (a bot edits its reply only after
        deferring, type 5). None means: use the handler (first sight, or it refused)."""
        payload = record.payload
        digest = hashlib.blake2b(raw, digest_size=16).digest()  # bodies are KBs; keep 16 B
        key = (digest, payload["channel_id"], (payload.get("message") or {}).get("id"))
        fmt = self._reply_formats.get(key)
        if fmt is None:
            if key not in self._replies_seen:
                if len(self._replies_seen) < 100_000:
                    self._replies_seen.add(key)
                return None
            fmt = await self._reply_format(record, body)
            if fmt is None:
                return None
            if len(self._reply_formats) < 4096:
                self._reply_formats[key] = fmt
        message_id = self.snowflake()
        record.response_type = 4
        record.original_message_id = message_id
        user = payload["member"]["user"]
        text = fmt.format(I=record.id, M=message_id, U=user["id"], N=user["username"], D=_now_iso())
        return web.Response(
            body=text.encode(), content_type="application/json", headers={"Via": "1.1 google"}
        )

    async def _reply_format(self, record: InteractionRecord, body: dict[str, Any]) -> str | None:
        member = record.payload["member"]
        user = dict(member["user"], id=sentinel("U"), username=sentinel("N"))
        if member["user"].get("global_name") == member["user"]["username"]:
            user["global_name"] = sentinel("N")
        payload = dict(record.payload, member=dict(member, user=user))
        probe = InteractionRecord(record.id, _PROBE_TOKEN, payload)
        probe.id = sentinel("I")  # type: ignore[assignment]  # the reply has str(record.id)
        self.interactions[_PROBE_TOKEN] = probe
        params = {"interaction_id": sentinel("I"), "interaction_token": _PROBE_TOKEN}
        try:
            made = (await self._interaction_callback(_Call(params, body, [], {}))).payload
        except _ApiError:
            return None
        finally:
            del self.interactions[_PROBE_TOKEN]
        message = made["resource"]["message"]
        self.messages.pop(int(message["id"]), None)
        fragments = {
            f'"{message["id"]}"': '"{M}"',
            f'"{message["timestamp"]}"': '"{D}"',
        }
        fragments.update((sentinel(slot), "{" + slot + "}") for slot in ("I", "U", "N"))
        return slot_format(made, fragments)

    async def _record(self, recorded: RecordedRequest) -> None:
        if recorded.route == CALLBACK_ROUTE:
            interaction_id = recorded.path.split("/", 3)[2]
            waiter = self._waiting.pop(interaction_id, None)
            if waiter is not None and not waiter.done():
                body = recorded.body if isinstance(recorded.body, dict) else {}
                waiter.set_result((time.perf_counter(), recorded.status, body.get("type")))
        await super()._record(recorded)
