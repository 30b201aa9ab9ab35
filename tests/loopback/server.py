"""A loopback Discord: enough of Discord's REST API v10 and gateway for the real client.

The unmodified discord.py client logs in against :class:`LoopbackDiscord`, syncs its
application commands, receives gateway events (``INTERACTION_CREATE`` above all), answers
them and posts or edits channel messages. Every REST request is recorded with its parsed
body so a test can assert on exactly what the bot would have sent to Discord, and every
body is checked against Discord's own OpenAPI description when a validator is supplied
(see ``tests/loopback/openapi.py``).

Design choices, and why:

* One aiohttp application on ``127.0.0.1`` (random free port) serves both REST
  (``/api/v10/...``) and the gateway (``/gateway/``), so a test needs one object.
* Gateway dispatches are appended to a per-session buffer *synchronously* (sequence
  numbers are assigned at once) and written by one writer task per connection. That keeps
  the order of events deterministic even when they are produced by synchronous helpers
  such as :meth:`LoopbackDiscord.add_guild`, and it is what makes RESUME work like Discord:
  a dropped session keeps buffering and the missed events are replayed on RESUME.
* Nothing waits by sleeping: tests wait on :class:`asyncio.Condition` objects that are
  notified whenever a request is recorded or a frame is written, always with a timeout.
* Error answers follow Discord's shapes (``{"code": ..., "message": ...}``) and the
  server never answers 5xx by accident, because discord.py retries those with sleeps of
  several seconds. A bug in a handler is answered with 400 and recorded in
  :attr:`LoopbackDiscord.internal_errors` instead.
* Responses carry ``Content-Type: application/json`` exactly (discord.py only parses that)
  and ``Via: 1.1 google`` (discord.py treats a 429 without ``Via`` as a Cloudflare ban).
* Shards as Discord runs them: ``GET /gateway/bot`` recommends ``shard_count`` shards, an
  IDENTIFY with ``shard: [i, n]`` opens shard ``i``'s session (``i >= n`` is closed with
  4010, as Discord does), and every event of a guild (its GUILD_CREATE, its
  INTERACTION_CREATEs) goes only to sessions of shard ``(guild_id >> 22) % n``; events
  without a guild go to shard 0. A session without ``shard`` gets everything.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import logging
import math
import re
import secrets
import time
import zlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from aiohttp import BodyPartReader, WSMsgType, web

__all__ = [
    "ALL_PERMISSIONS",
    "BASIC_MEMBER_PERMISSIONS",
    "DEFAULT_BOT_PERMISSIONS",
    "BodyValidator",
    "InteractionRecord",
    "LoopbackDiscord",
    "Perm",
    "RecordedRequest",
    "UploadedFile",
]

_log = logging.getLogger(__name__)

API_PREFIX = "/api/v10"
DISCORD_EPOCH_MS = 1_420_070_400_000
HEARTBEAT_INTERVAL_MS = 41_250
#: What Discord reports for a guild without boosts (25 MiB since 2024; any value works).
ATTACHMENT_SIZE_LIMIT = 25 * 1024 * 1024

#: Route template of the interaction callback, handy for :meth:`LoopbackDiscord.find`.
CALLBACK_ROUTE = "/interactions/{interaction_id}/{interaction_token}/callback"
CHANNEL_MESSAGES_ROUTE = "/channels/{channel_id}/messages"
CHANNEL_MESSAGE_ROUTE = "/channels/{channel_id}/messages/{message_id}"
FOLLOWUP_ROUTE = "/webhooks/{webhook_id}/{webhook_token}"
ORIGINAL_ROUTE = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
WEBHOOK_MESSAGE_ROUTE = "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"


class Perm:
    """Permission bits used by the loopback (values from Discord's documentation)."""

    CREATE_INSTANT_INVITE = 1 << 0
    ADMINISTRATOR = 1 << 3
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    SEND_TTS_MESSAGES = 1 << 12
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    CHANGE_NICKNAME = 1 << 26
    USE_APPLICATION_COMMANDS = 1 << 31
    SEND_MESSAGES_IN_THREADS = 1 << 38


#: Every permission bit Discord defines today (and some headroom), for admins and owners.
ALL_PERMISSIONS = (1 << 53) - 1

#: What the bot's managed role grants unless a test says otherwise.
DEFAULT_BOT_PERMISSIONS = (
    Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.SEND_MESSAGES_IN_THREADS
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.ADD_REACTIONS
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.USE_APPLICATION_COMMANDS
)

#: What an ordinary member has in a channel (sent as ``member.permissions``).
BASIC_MEMBER_PERMISSIONS = (
    Perm.CREATE_INSTANT_INVITE
    | Perm.ADD_REACTIONS
    | Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.CHANGE_NICKNAME
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.SEND_MESSAGES_IN_THREADS
)

# Message flags.
_EPHEMERAL = 1 << 6
_LOADING = 1 << 7

# Interaction types and callback types.
_APPLICATION_COMMAND = 2
_MESSAGE_COMPONENT = 3
_AUTOCOMPLETE = 4
_MODAL_SUBMIT = 5
_CALLBACK_TYPES = frozenset({1, 4, 5, 6, 7, 8, 9, 10, 12})

# Application command option types that carry a snowflake and need ``data.resolved``.
_SUB_COMMAND = 1
_SUB_COMMAND_GROUP = 2
_USER, _CHANNEL, _ROLE, _MENTIONABLE, _ATTACHMENT = 6, 7, 8, 9, 11

_DEFAULT_OWNER_ID = 800_000_000_000_000_001


class BodyValidator(Protocol):
    """What :class:`LoopbackDiscord` needs from a request-body validator.

    ``path`` is the concrete path without the ``/api/v10`` prefix and without the query,
    e.g. ``/channels/1/messages``. ``tests/loopback/openapi.py`` provides one.
    """

    def validate(self, method: str, path: str, body: Any) -> list[str]: ...

    def route_known(self, method: str, path: str) -> bool: ...


@dataclass
class UploadedFile:
    """A file part of a multipart request (``files[n]``)."""

    field_name: str
    filename: str | None
    content_type: str | None
    data: bytes


@dataclass
class RecordedRequest:
    """One REST request the bot made, as the loopback understood and answered it."""

    method: str
    #: Concrete path without ``/api/v10`` and without the query string.
    path: str
    query: dict[str, str]
    #: Parsed JSON body, or the ``payload_json`` part of a multipart body, or ``None``.
    body: Any
    #: Status the loopback answered with.
    status: int
    #: Matched route template, e.g. ``/channels/{channel_id}/messages``; ``None`` if unknown.
    route: str | None
    #: Position in :attr:`LoopbackDiscord.requests` (useful as ``since`` for ``wait_for``).
    index: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    files: list[UploadedFile] = field(default_factory=list)
    #: The JSON the loopback answered with (``None`` for 204).
    response: Any = None
    #: ``time.monotonic()`` when the request arrived, before its body was read: the
    #: timing drills compare these, not the moment a watcher task happened to wake.
    arrived: float = 0.0

    @property
    def params(self) -> dict[str, str]:
        """The values of the route template's placeholders (e.g. ``channel_id``)."""
        if self.route is None:
            return {}
        match = _template_regex(self.route).fullmatch(self.path)
        return match.groupdict() if match else {}


class _ApiError(Exception):
    """Raised by handlers to answer with Discord's error shape."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message


@dataclass
class _Reply:
    status: int = 200
    payload: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Call:
    """A parsed REST request as handed to a route handler."""

    params: dict[str, str]
    body: Any
    files: list[UploadedFile]
    query: dict[str, str]


@dataclass(frozen=True)
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    handler: Callable[[_Call], Awaitable[_Reply]]
    #: Whether the request must carry ``Authorization: Bot <token>``. Webhook-token and
    #: interaction-callback routes are authorised by the token in the path instead.
    auth: bool = True


@dataclass
class _Fault:
    method: str
    route: str
    status: int
    body: Any
    headers: dict[str, str]
    remaining: int


@dataclass
class Gate:
    """Lets the first ``after`` requests to one route through, then holds the rest.

    A drill that must act "mid-burst" closes a gate instead of racing the bot: the
    bot keeps working (its clicks commit) while its replies wait here, so the moment
    the drill acts is fixed by counts, not by how fast this machine is today.
    ``drop()`` ends the hold: the held requests are answered 503 and not recorded.
    """

    method: str
    route: str
    after: int
    passed: int = 0
    dropped: asyncio.Event = field(default_factory=asyncio.Event)

    def drop(self) -> None:
        self.dropped.set()


@dataclass
class InteractionRecord:
    """What the loopback remembers about an interaction it dispatched."""

    id: int
    token: str
    payload: dict[str, Any]
    response_type: int | None = None
    original_message_id: int | None = None
    #: Choices the bot answered an autocomplete interaction with.
    choices: list[dict[str, Any]] | None = None


@dataclass
class _Guild:
    id: int
    name: str
    preferred_locale: str
    owner_id: int
    joined_at: str
    roles: dict[int, dict[str, Any]]
    channel_ids: list[int]
    bot_role_id: int


@dataclass(eq=False)
class _Connection:
    """One gateway websocket. Frames are written only by its writer task."""

    ws: web.WebSocketResponse
    transport: asyncio.Transport | None
    session: _Session | None = None
    #: How many frames of ``session.buffer`` this connection has written.
    sent: int = 0
    control: deque[dict[str, Any]] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    #: Set when the loopback itself closed the socket (the session stays resumable).
    dropped: bool = False


@dataclass(eq=False)
class _Session:
    """A gateway session: survives its connection so that RESUME can replay."""

    session_id: str
    shard: tuple[int, int] | None
    intents: int
    #: Every dispatch frame of the session; ``buffer[i]`` has sequence number ``i + 1``.
    buffer: list[dict[str, Any]] = field(default_factory=list)
    conn: _Connection | None = None
    #: False once the client closed with 1000/1001 (Discord invalidates such sessions).
    alive: bool = True

    def wants_guild(self, guild_id: int | None) -> bool:
        """Whether Discord would send this guild's events (None: no guild) on this session."""
        if self.shard is None:
            return True
        shard_id, shard_count = self.shard
        if guild_id is None:
            return shard_id == 0  # DMs and other guildless events go to shard 0
        return (guild_id >> 22) % shard_count == shard_id


def _guild_of(data: Mapping[str, Any]) -> int | None:
    """The guild an event or interaction payload belongs to, if any."""
    guild_id = data.get("guild_id")
    return int(guild_id) if guild_id else None


@functools.cache
def _template_regex(template: str) -> re.Pattern[str]:
    """Regex for a route template: ``{name}`` matches one path segment."""
    parts = re.split(r"(\{[a-z_]+\})", template)
    regex = "".join(
        f"(?P<{part[1:-1]}>[^/]+)" if part.startswith("{") else re.escape(part) for part in parts
    )
    return re.compile(regex)


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


def _json_reply(
    status: int, payload: Any, headers: Mapping[str, str] | None = None
) -> web.Response:
    """A JSON response whose Content-Type is exactly ``application/json``.

    ``web.json_response`` would add ``; charset=utf-8``, which discord.py does not parse.
    """
    all_headers = {"Via": "1.1 google"}
    all_headers.update(headers or {})
    if payload is None and status == 204:
        return web.Response(status=204, headers=all_headers)
    return web.Response(
        status=status,
        body=json.dumps(payload).encode(),
        content_type="application/json",
        headers=all_headers,
    )


def _error_payload(code: int, message: str) -> dict[str, Any]:
    return {"code": code, "message": message}


class LoopbackDiscord:
    """A fake Discord (REST v10 + gateway) on 127.0.0.1 for the unmodified discord.py client.

    State (guilds, synced commands, messages) lives in this object and survives bot
    restarts, so a test can start a second bot against the same loopback and click a
    button on a message the first bot posted. See the module docstring for the design.
    """

    def __init__(
        self,
        *,
        validator: BodyValidator | None = None,
        app_id: int = 900000000000000001,
        bot_user_id: int = 900000000000000002,
        bot_name: str = "tpquiz-loopback",
        shard_count: int = 1,
    ) -> None:
        self.validator = validator
        #: What ``GET /gateway/bot`` recommends (``shards``).
        self.shard_count = shard_count
        self.app_id = app_id
        self.bot_user_id = bot_user_id
        self.bot_name = bot_name
        #: What the bot must log in with; any other ``Authorization`` gets 401.
        self.token = f"loopback.{bot_user_id}.{secrets.token_urlsafe(18)}"

        self.requests: list[RecordedRequest] = []
        self.unknown_routes: list[str] = []
        self.body_errors: list[str] = []
        #: Handler bugs in the loopback itself (answered 400, never 5xx); tests fail on any.
        self.internal_errors: list[str] = []
        #: Every message the bot created, as Discord's message object, updated by edits.
        self.messages: dict[int, dict[str, Any]] = {}
        #: Messages the bot deleted (removed from :attr:`messages`).
        self.deleted_messages: dict[int, dict[str, Any]] = {}
        #: Bytes of every uploaded attachment, by attachment id.
        self.uploads: dict[int, bytes] = {}
        #: Attachments the bot downloaded (GET /attachments/...), by id, in order.
        self.downloads: list[int] = []
        #: While set and not yet released, an attachment's GET waits for it (a slow CDN).
        self.attachment_gate: asyncio.Event | None = None
        #: Synced application commands: key ``"global"`` or the guild id.
        self.commands: dict[str | int, list[dict[str, Any]]] = {}
        self.guilds: dict[int, _Guild] = {}
        #: Guild channels by id (each with ``guild_id``).
        self.channels: dict[int, dict[str, Any]] = {}
        self.users: dict[int, dict[str, Any]] = {}
        #: DM channel id by recipient user id (``POST /users/@me/channels``).
        self.dm_channels: dict[int, int] = {}
        #: Users who do not accept DMs from the bot: a message to them answers 403 50007.
        self.dms_closed: set[int] = set()
        #: Member payloads made by :meth:`member`, by user id (guild-agnostic).
        self.members: dict[int, dict[str, Any]] = {}
        #: Interactions dispatched so far, by token.
        self.interactions: dict[str, InteractionRecord] = {}
        self.sessions: dict[str, _Session] = {}
        #: Gateway statistics, for tests of reconnect behaviour.
        self.identify_count = 0
        self.resume_count = 0

        self._command_ids: dict[tuple[str | int, int, str], int] = {}
        self._faults: list[_Fault] = []
        self._gates: list[Gate] = []
        #: Interactions whose 3-second window Discord has closed (`expire`).
        self._expired: set[int] = set()
        self._connections: set[_Connection] = set()
        self._writers: set[asyncio.Task[None]] = set()
        self._last_snowflake = 0
        self._cond = asyncio.Condition()
        self._gw_cond = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

        self.users[bot_user_id] = self._bot_user()
        self._routes = self._build_routes()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Bind 127.0.0.1 on a free port and start serving."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway/", self._handle_gateway)
        app.router.add_get("/gateway", self._handle_gateway)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._handle_rest)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self._serve_attachment)
        app.router.add_route("*", "/{tail:.*}", self._handle_stray)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and isinstance(server, asyncio.Server)
        self._port = server.sockets[0].getsockname()[1]
        _log.info("loopback Discord listening on %s", self.rest_base)

    async def close(self) -> None:
        """Close gateway connections (1001) and stop serving. Close bots first."""
        for conn in list(self._connections):
            conn.dropped = True
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
            await conn.ws.close(code=1001, message=b"loopback closing")
        for task in list(self._writers):
            task.cancel()
        await asyncio.gather(*self._writers, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("LoopbackDiscord.start() has not been called")
        return self._port

    @property
    def rest_base(self) -> str:
        """Value for ``discord.http.Route.BASE``."""
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        """Value for ``DiscordWebSocket.DEFAULT_GATEWAY`` (and READY's resume URL)."""
        return f"ws://127.0.0.1:{self.port}/gateway/"

    # ------------------------------------------------------------------ ids and users

    def snowflake(self) -> int:
        """A new, strictly increasing, timestamp-based snowflake."""
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if candidate <= self._last_snowflake:
            candidate = self._last_snowflake + 1
        self._last_snowflake = candidate
        return candidate

    def _bot_user(self) -> dict[str, Any]:
        return {
            "id": str(self.bot_user_id),
            "username": self.bot_name,
            "global_name": None,
            "discriminator": "0000",
            "avatar": None,
            "bot": True,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "primary_guild": None,
            "collectibles": None,
        }

    def _public_user(self, user_id: int) -> dict[str, Any]:
        user = self.users.get(user_id)
        if user is None:
            user = {
                "id": str(user_id),
                "username": f"user{user_id}",
                "global_name": None,
                "discriminator": "0",
                "avatar": None,
                "public_flags": 0,
            }
        return copy.deepcopy(user)

    def member(
        self,
        user_id: int,
        name: str,
        *,
        permissions: int = BASIC_MEMBER_PERMISSIONS,
        roles: Iterable[int] = (),
        nick: str | None = None,
    ) -> dict[str, Any]:
        """A guild member payload (as in interactions) and remember the user.

        ``permissions`` is what Discord sends as the member's permissions in the channel
        of an interaction. Remembered members fill ``data.resolved`` of USER options.
        """
        user = {
            "id": str(user_id),
            "username": name,
            "global_name": name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "primary_guild": None,
            "collectibles": None,
        }
        self.users[user_id] = user
        payload = {
            "user": copy.deepcopy(user),
            "roles": [str(r) for r in roles],
            "permissions": str(permissions),
            "nick": nick,
            "avatar": None,
            "banner": None,
            "joined_at": _now_iso(),
            "premium_since": None,
            "communication_disabled_until": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "unusual_dm_activity_until": None,
        }
        self.members[user_id] = payload
        return copy.deepcopy(payload)

    # ------------------------------------------------------------------ guilds

    def add_guild(
        self,
        guild_id: int,
        *,
        name: str = "Test Guild",
        preferred_locale: str = "en-US",
        channel_ids: Sequence[int] | None = None,
        owner_id: int = _DEFAULT_OWNER_ID,
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        everyone_permissions: int = 0,
    ) -> dict[str, Any]:
        """Create a guild with text channels; returns its GUILD_CREATE payload.

        ``bot_permissions`` goes on the bot's managed role. ``@everyone`` grants
        ``everyone_permissions`` (default nothing), so ``bot_permissions`` alone decides the
        bot's guild permissions. ``channel_ids`` defaults to ``[guild_id + 1]``. Called while
        a bot is connected, the guild is dispatched to it (GUILD_CREATE) at once.
        """
        if guild_id in self.guilds:
            raise ValueError(f"guild {guild_id} already exists")
        ids = list(channel_ids) if channel_ids is not None else [guild_id + 1]
        bot_role_id = self.snowflake()
        roles = {
            guild_id: self._role_payload(guild_id, "@everyone", everyone_permissions, 0),
            bot_role_id: self._role_payload(
                bot_role_id, self.bot_name, bot_permissions, 1, bot_id=self.bot_user_id
            ),
        }
        guild = _Guild(
            id=guild_id,
            name=name,
            preferred_locale=preferred_locale,
            owner_id=owner_id,
            joined_at=_now_iso(),
            roles=roles,
            channel_ids=[],
            bot_role_id=bot_role_id,
        )
        self.guilds[guild_id] = guild
        for position, channel_id in enumerate(ids):
            self._new_channel(guild, channel_id, f"channel-{position}", position)
        payload = self._guild_create_payload(guild)
        # A guild joined while connected arrives without "unavailable" (discord.py then
        # fires on_guild_join); at start-up GUILD_CREATE says "unavailable": false.
        joined = copy.deepcopy(payload)
        del joined["unavailable"]
        self._enqueue("GUILD_CREATE", joined, guild_id=guild_id, fresh_payload=True)
        return payload

    def remove_guild(self, guild_id: int, *, unavailable: bool = False) -> None:
        """Dispatch GUILD_DELETE: the bot removed from the guild, or (``unavailable``) an
        outage of it.

        A removal forgets the guild and its channels, so ``add_guild`` can add it back
        (a GUILD_CREATE, as when the bot is invited again); an outage keeps both.
        """
        data: dict[str, Any] = {"id": str(guild_id)}
        if unavailable:
            data["unavailable"] = True
        else:
            guild = self.guilds.pop(guild_id)
            for channel_id in guild.channel_ids:
                self.channels.pop(channel_id, None)
        self._enqueue("GUILD_DELETE", data, guild_id=guild_id, fresh_payload=True)

    def add_channel(
        self, guild_id: int, channel_id: int, *, name: str | None = None
    ) -> dict[str, Any]:
        """Add a text channel to a guild (dispatches CHANNEL_CREATE to connected bots)."""
        guild = self.guilds[guild_id]
        channel = self._new_channel(
            guild, channel_id, name or f"channel-{len(guild.channel_ids)}", len(guild.channel_ids)
        )
        self._enqueue("CHANNEL_CREATE", channel, guild_id=guild_id)
        return copy.deepcopy(channel)

    def add_role(
        self, guild_id: int, role_id: int, name: str, *, permissions: int = 0
    ) -> dict[str, Any]:
        """Add a role (for ROLE options and overwrites); dispatches GUILD_ROLE_CREATE."""
        guild = self.guilds[guild_id]
        role = self._role_payload(role_id, name, permissions, len(guild.roles))
        guild.roles[role_id] = role
        self._enqueue(
            "GUILD_ROLE_CREATE", {"guild_id": str(guild_id), "role": role}, guild_id=guild_id
        )
        return copy.deepcopy(role)

    def set_channel_permissions(
        self,
        channel_id: int,
        target_id: int,
        *,
        allow: int = 0,
        deny: int = 0,
        target_type: int | None = None,
    ) -> None:
        """Set (replace) a permission overwrite on a channel; dispatches CHANNEL_UPDATE.

        ``target_type`` is 0 for a role, 1 for a member; by default it is 0 if
        ``target_id`` is a role of the guild (or the guild id, i.e. ``@everyone``).
        Overwrites change the bot's computed permissions: a channel post without
        VIEW_CHANNEL/SEND_MESSAGES is answered 403 like Discord does, and
        ``app_permissions`` of interactions reflect them.
        """
        channel = self.channels[channel_id]
        guild = self.guilds[int(channel["guild_id"])]
        if target_type is None:
            target_type = 0 if target_id in guild.roles else 1
        overwrites = [o for o in channel["permission_overwrites"] if int(o["id"]) != target_id]
        overwrites.append(
            {"id": str(target_id), "type": target_type, "allow": str(allow), "deny": str(deny)}
        )
        channel["permission_overwrites"] = overwrites
        self._enqueue("CHANNEL_UPDATE", copy.deepcopy(channel), guild_id=guild.id)

    def permissions_for(self, channel_id: int, user_id: int, roles: Iterable[int] = ()) -> int:
        """Discord's permission computation for a user (with ``roles``) in a channel."""
        channel = self.channels[channel_id]
        guild = self.guilds[int(channel["guild_id"])]
        role_ids = set(roles)
        if user_id == self.bot_user_id:
            role_ids.add(guild.bot_role_id)
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        base = int(guild.roles[guild.id]["permissions"])
        for role_id in role_ids:
            if role_id in guild.roles:
                base |= int(guild.roles[role_id]["permissions"])
        if base & Perm.ADMINISTRATOR:
            return ALL_PERMISSIONS
        overwrites = {int(o["id"]): o for o in channel["permission_overwrites"]}
        everyone = overwrites.get(guild.id)
        if everyone is not None:
            base = (base & ~int(everyone["deny"])) | int(everyone["allow"])
        allow = deny = 0
        for role_id in role_ids:
            overwrite = overwrites.get(role_id)
            if overwrite is not None and overwrite["type"] == 0:
                allow |= int(overwrite["allow"])
                deny |= int(overwrite["deny"])
        base = (base & ~deny) | allow
        member_overwrite = overwrites.get(user_id)
        if member_overwrite is not None and member_overwrite["type"] == 1:
            base = (base & ~int(member_overwrite["deny"])) | int(member_overwrite["allow"])
        if not base & Perm.VIEW_CHANNEL:
            return 0
        if not base & Perm.SEND_MESSAGES:
            base &= ~(
                Perm.SEND_TTS_MESSAGES
                | Perm.MENTION_EVERYONE
                | Perm.EMBED_LINKS
                | Perm.ATTACH_FILES
            )
        return base

    def _role_payload(
        self, role_id: int, name: str, permissions: int, position: int, *, bot_id: int | None = None
    ) -> dict[str, Any]:
        role: dict[str, Any] = {
            "id": str(role_id),
            "name": name,
            "description": None,
            "permissions": str(permissions),
            "position": position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": bot_id is not None,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if bot_id is not None:
            role["tags"] = {"bot_id": str(bot_id)}
        return role

    def _new_channel(
        self, guild: _Guild, channel_id: int, name: str, position: int
    ) -> dict[str, Any]:
        if channel_id in self.channels:
            raise ValueError(f"channel {channel_id} already exists")
        channel = {
            "id": str(channel_id),
            "type": 0,
            "guild_id": str(guild.id),
            "name": name,
            "position": position,
            "permission_overwrites": [],
            "topic": None,
            "nsfw": False,
            "rate_limit_per_user": 0,
            "parent_id": None,
            "last_message_id": None,
            "last_pin_timestamp": None,
            "flags": 0,
        }
        self.channels[channel_id] = channel
        guild.channel_ids.append(channel_id)
        return channel

    def _bot_member(self, guild: _Guild) -> dict[str, Any]:
        return {
            "user": self._bot_user(),
            "roles": [str(guild.bot_role_id)],
            "nick": None,
            "avatar": None,
            "banner": None,
            "joined_at": guild.joined_at,
            "premium_since": None,
            "communication_disabled_until": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
        }

    def _guild_object(self, guild: _Guild) -> dict[str, Any]:
        """The REST guild object (GET /guilds/{id})."""
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "icon_hash": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "widget_channel_id": None,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [copy.deepcopy(r) for r in guild.roles.values()],
            "emojis": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": str(guild.channel_ids[0]) if guild.channel_ids else None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_presences": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": guild.preferred_locale,
            "public_updates_channel_id": None,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "nsfw_level": 0,
            "stickers": [],
            "premium_progress_bar_enabled": False,
            "safety_alerts_channel_id": None,
            "incidents_data": None,
        }

    def _guild_create_payload(self, guild: _Guild) -> dict[str, Any]:
        """GUILD_CREATE: the guild object plus what only the gateway sends."""
        payload = self._guild_object(guild)
        channels = []
        for channel_id in guild.channel_ids:
            channel = copy.deepcopy(self.channels[channel_id])
            channel.pop("guild_id", None)  # GUILD_CREATE channels carry no guild_id
            channels.append(channel)
        payload.update(
            {
                "joined_at": guild.joined_at,
                "large": False,
                "unavailable": False,
                "member_count": 1 + len(self.members),
                "voice_states": [],
                "members": [self._bot_member(guild)],
                "channels": channels,
                "threads": [],
                "presences": [],
                "stage_instances": [],
                "guild_scheduled_events": [],
                "soundboard_sounds": [],
                "lazy": True,
            }
        )
        return payload

    # ------------------------------------------------------------------ interaction payloads

    def _interaction_base(
        self,
        interaction_type: int,
        guild_id: int,
        channel_id: int,
        member: dict[str, Any],
        data: dict[str, Any],
        *,
        locale: str,
        guild_locale: str,
    ) -> dict[str, Any]:
        if guild_id not in self.guilds:
            raise LookupError(f"unknown guild {guild_id}; call add_guild() first")
        if (
            channel_id not in self.channels
            or int(self.channels[channel_id]["guild_id"]) != guild_id
        ):
            raise LookupError(f"channel {channel_id} is not a channel of guild {guild_id}")
        interaction_id = self.snowflake()
        channel = copy.deepcopy(self.channels[channel_id])
        channel["permissions"] = member.get("permissions", "0")
        return {
            "id": str(interaction_id),
            "application_id": str(self.app_id),
            "type": interaction_type,
            "data": data,
            "guild_id": str(guild_id),
            "guild": {"id": str(guild_id), "locale": guild_locale, "features": []},
            "channel_id": str(channel_id),
            "channel": channel,
            "member": copy.deepcopy(member),
            "token": "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48),
            "version": 1,
            "app_permissions": str(self.permissions_for(channel_id, self.bot_user_id)),
            "locale": locale,
            "guild_locale": guild_locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": str(guild_id)},
            "context": 0,
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }

    def _find_command(
        self, guild_id: int, name: str, command_type: int
    ) -> tuple[dict[str, Any], bool]:
        """The synced command ``name``: guild commands first, then global ones."""
        for key, in_guild in ((guild_id, True), ("global", False)):
            for command in self.commands.get(key, []):
                if command["name"] == name and command.get("type", 1) == command_type:
                    return command, in_guild
        known = {k: [c["name"] for c in v] for k, v in self.commands.items()}
        raise LookupError(f"command {name!r} was not synced for guild {guild_id}; synced: {known}")

    def _command_data(
        self,
        guild_id: int,
        member: dict[str, Any],
        command: str,
        subcommand: str | None,
        options: Mapping[str, Any] | list[dict[str, Any]] | None,
        resolved: dict[str, Any] | None,
        focused: str | None = None,
    ) -> dict[str, Any]:
        definition, in_guild = self._find_command(guild_id, command, 1)
        extra_resolved: dict[str, dict[str, Any]] = {}
        option_defs = definition.get("options") or []
        parts = (subcommand or "").split()
        if len(parts) > 2:
            raise ValueError(f"subcommand must be 'sub' or 'group sub', got {subcommand!r}")
        kinds = [_SUB_COMMAND_GROUP, _SUB_COMMAND][-len(parts) :] if parts else []
        path: list[tuple[int, str]] = []
        for kind, part in zip(kinds, parts, strict=True):
            found = next((o for o in option_defs if o["name"] == part and o["type"] == kind), None)
            if found is None:
                names = [o["name"] for o in option_defs]
                raise LookupError(f"{command}: no subcommand {part!r} (type {kind}); have {names}")
            path.append((kind, part))
            option_defs = found.get("options") or []
        if options is None:
            leaf: list[dict[str, Any]] = []
        elif isinstance(options, list):
            leaf = copy.deepcopy(options)
        else:
            leaf = self._typed_options(
                guild_id, member, option_defs, options, extra_resolved, focused
            )
        for kind, name in reversed(path):
            leaf = [{"type": kind, "name": name, "options": leaf}]
        data: dict[str, Any] = {
            "id": definition["id"],
            "name": definition["name"],
            "type": 1,
            "options": leaf,
        }
        if in_guild:
            data["guild_id"] = str(guild_id)
        for resolved_kind, entries in (resolved or {}).items():
            extra_resolved.setdefault(resolved_kind, {}).update(entries)
        if extra_resolved:
            data["resolved"] = extra_resolved
        return data

    def _typed_options(
        self,
        guild_id: int,
        member: dict[str, Any],
        option_defs: list[dict[str, Any]],
        values: Mapping[str, Any],
        resolved: dict[str, dict[str, Any]],
        focused: str | None,
    ) -> list[dict[str, Any]]:
        by_name = {o["name"]: o for o in option_defs}
        result = []
        for name, value in values.items():
            definition = by_name.get(name)
            if definition is None:
                raise LookupError(
                    f"option {name!r} is not in the synced definition {sorted(by_name)}"
                )
            option_type = definition["type"]
            option: dict[str, Any] = {"name": name, "type": option_type}
            if name == focused:
                option["value"] = value
                option["focused"] = True
            else:
                option["value"] = self._option_value(guild_id, member, option_type, value, resolved)
            result.append(option)
        if focused is None:
            missing = [
                o["name"] for o in option_defs if o.get("required") and o["name"] not in values
            ]
            if missing:
                raise ValueError(
                    f"required options missing (Discord would not send this): {missing}"
                )
        return result

    def _option_value(
        self,
        guild_id: int,
        member: dict[str, Any],
        option_type: int,
        value: Any,
        resolved: dict[str, dict[str, Any]],
    ) -> Any:
        if option_type == 4:
            return int(value)
        if option_type == 10:
            return float(value)
        if option_type == 5:
            return bool(value)
        if option_type == 3:
            return str(value)
        if option_type == _ATTACHMENT:
            if not isinstance(value, dict):
                raise TypeError("ATTACHMENT options take an attachment payload dict")
            resolved.setdefault("attachments", {})[str(value["id"])] = value
            return str(value["id"])
        # Snowflake types: accept an int, a digit string, or a payload with "id" / "user".
        if isinstance(value, dict):
            if "user" in value:
                snowflake = int(value["user"]["id"])
                self.users.setdefault(snowflake, copy.deepcopy(value["user"]))
                self.members.setdefault(snowflake, copy.deepcopy(value))
            else:
                snowflake = int(value["id"])
        else:
            snowflake = int(value)
        guild = self.guilds[guild_id]
        if option_type == _ROLE or (option_type == _MENTIONABLE and snowflake in guild.roles):
            if snowflake not in guild.roles:
                raise LookupError(f"unknown role {snowflake}; call add_role() first")
            resolved.setdefault("roles", {})[str(snowflake)] = copy.deepcopy(guild.roles[snowflake])
        elif option_type == _CHANNEL:
            if snowflake not in self.channels:
                raise LookupError(f"unknown channel {snowflake}")
            channel = self.channels[snowflake]
            resolved.setdefault("channels", {})[str(snowflake)] = {
                "id": channel["id"],
                "name": channel["name"],
                "type": channel["type"],
                "guild_id": channel["guild_id"],
                "parent_id": channel["parent_id"],
                "nsfw": channel["nsfw"],
                "topic": channel["topic"],
                "position": channel["position"],
                "rate_limit_per_user": channel["rate_limit_per_user"],
                "last_message_id": channel["last_message_id"],
                "flags": channel["flags"],
                "permissions": member.get("permissions", "0"),
            }
        elif option_type in (_USER, _MENTIONABLE):
            resolved.setdefault("users", {})[str(snowflake)] = self._public_user(snowflake)
            known = self.members.get(snowflake)
            if known is not None:
                member_entry = copy.deepcopy(known)
                member_entry.pop("user", None)
                resolved.setdefault("members", {})[str(snowflake)] = member_entry
        else:
            raise ValueError(f"unsupported option type {option_type}")
        return str(snowflake)

    def slash_command(
        self,
        guild_id: int,
        channel_id: int,
        member: dict[str, Any],
        command: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | list[dict[str, Any]] | None = None,
        *,
        locale: str = "en-US",
        guild_locale: str = "en-US",
        resolved: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """INTERACTION_CREATE payload (type 2) for a synced chat-input command.

        ``subcommand`` is ``"sub"`` or ``"group sub"``. ``options`` as a mapping is typed
        from the synced definition (USER/CHANNEL/ROLE/MENTIONABLE values fill
        ``data.resolved`` from known members, channels and roles; a member payload is also
        accepted as a USER value). As a list it is sent verbatim. ``resolved`` is merged in.
        """
        data = self._command_data(guild_id, member, command, subcommand, options, resolved)
        return self._interaction_base(
            _APPLICATION_COMMAND,
            guild_id,
            channel_id,
            member,
            data,
            locale=locale,
            guild_locale=guild_locale,
        )

    def autocomplete(
        self,
        guild_id: int,
        channel_id: int,
        member: dict[str, Any],
        command: str,
        subcommand: str | None,
        options: Mapping[str, Any],
        focused: str,
        *,
        locale: str = "en-US",
        guild_locale: str = "en-US",
    ) -> dict[str, Any]:
        """INTERACTION_CREATE payload (type 4): ``focused`` names the option being typed.

        The focused value is sent as given (Discord sends the raw text); the others are
        typed like in :meth:`slash_command`. Required options may be missing.
        """
        if focused not in options:
            raise ValueError(f"focused option {focused!r} must be in options")
        data = self._command_data(guild_id, member, command, subcommand, options, None, focused)
        return self._interaction_base(
            _AUTOCOMPLETE,
            guild_id,
            channel_id,
            member,
            data,
            locale=locale,
            guild_locale=guild_locale,
        )

    def button_click(
        self,
        message_id: int,
        custom_id: str,
        member: dict[str, Any],
        *,
        locale: str = "en-US",
        guild_locale: str = "en-US",
        values: list[str] | None = None,
    ) -> dict[str, Any]:
        """INTERACTION_CREATE payload (type 3) for a component on a stored message.

        The stored message (with its components) is included, which discord.py needs to
        match a ``DynamicItem``. The component must exist on the message, as on Discord.
        For select menus pass ``values``.
        """
        message = self.messages.get(message_id)
        if message is None:
            raise LookupError(f"message {message_id} is not a message the bot created")
        component = _find_component(message.get("components") or [], custom_id)
        if component is None:
            raise LookupError(f"message {message_id} has no component with custom_id {custom_id!r}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if values is not None:
            data["values"] = list(values)
        guild_id = int(message["guild_id"])
        payload = self._interaction_base(
            _MESSAGE_COMPONENT,
            guild_id,
            int(message["channel_id"]),
            member,
            data,
            locale=locale,
            guild_locale=guild_locale,
        )
        payload["message"] = copy.deepcopy(message)
        return payload

    def dm_button_click(
        self, message_id: int, custom_id: str, user_id: int, *, locale: str = "en-US"
    ) -> dict[str, Any]:
        """INTERACTION_CREATE payload (type 3) for a button on a message the bot sent in
        its DM with ``user_id`` (a reminder, say): no guild, the user instead of a member."""
        message = self.messages.get(message_id)
        if message is None:
            raise LookupError(f"message {message_id} is not a message the bot created")
        channel = self.channels[int(message["channel_id"])]
        if channel.get("guild_id") is not None:
            raise LookupError(f"message {message_id} is not in a DM")
        component = _find_component(message.get("components") or [], custom_id)
        if component is None:
            raise LookupError(f"message {message_id} has no component with custom_id {custom_id!r}")
        user = copy.deepcopy(self.users[user_id])
        interaction_id = self.snowflake()
        return {
            "id": str(interaction_id),
            "application_id": str(self.app_id),
            "type": _MESSAGE_COMPONENT,
            "data": {"custom_id": custom_id, "component_type": component["type"]},
            "channel_id": channel["id"],
            "channel": {k: copy.deepcopy(v) for k, v in channel.items() if k != "guild_id"},
            "user": user,
            "token": "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48),
            "version": 1,
            "app_permissions": "0",
            "locale": locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": str(next(iter(self.guilds), 0))},
            "context": 1,
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
            "message": copy.deepcopy(message),
        }

    def modal_submit(
        self,
        guild_id: int,
        channel_id: int,
        member: dict[str, Any],
        modal: dict[str, Any],
        values: dict[str, str | list[str]],
        *,
        locale: str = "en-US",
        guild_locale: str = "en-US",
        message: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """INTERACTION_CREATE payload (type 5) submitting ``modal`` (the ``data`` of the
        bot's type-9 callback) with ``values`` by custom_id: a list for a select, a string
        for a text input. As on Discord, a select value must be one of its options, a text
        no longer than its ``max_length``, and an omitted text input arrives empty.
        Components come back as Discord sends them: labels (type 18) around one component.
        ``message`` is the message the modal was opened from, when it was a component's.
        """
        submitted: list[dict[str, Any]] = []
        for top in modal.get("components", []):
            inner = [top["component"]] if top.get("type") == 18 else top.get("components", [])
            parts = []
            for component in inner:
                custom_id = component["custom_id"]
                if component["type"] == 3:
                    chosen = values.get(custom_id, [])
                    chosen = [chosen] if isinstance(chosen, str) else list(chosen)
                    offered = {o["value"] for o in component.get("options", [])}
                    if not set(chosen) <= offered:
                        raise ValueError(f"{chosen} are not options of select {custom_id!r}")
                    parts.append({"type": 3, "custom_id": custom_id, "values": chosen})
                elif component["type"] == 4:
                    text = values.get(custom_id, "")
                    assert isinstance(text, str)
                    if len(text) > int(component.get("max_length") or 4000):
                        raise ValueError(f"text input {custom_id!r} takes fewer characters")
                    parts.append({"type": 4, "custom_id": custom_id, "value": text})
            if top.get("type") == 18:
                submitted.append({"type": 18, "id": self.snowflake() % 1000, "component": parts[0]})
            else:
                submitted.append({"type": 1, "components": parts})
        data = {"custom_id": modal["custom_id"], "components": submitted}
        payload = self._interaction_base(
            _MODAL_SUBMIT, guild_id, channel_id, member, data,
            locale=locale, guild_locale=guild_locale,
        )  # fmt: skip
        if message is not None:
            payload["message"] = copy.deepcopy(message)
        return payload

    # ------------------------------------------------------------------ driving the bot

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a DISPATCH to every live session of its guild's shard and wait until
        connected ones wrote it (no ``guild_id`` in ``data``: shard 0's sessions).

        Sessions whose connection dropped keep it buffered and get it on RESUME.
        """
        self._enqueue(event, data, guild_id=_guild_of(data), routed=True)
        await self._wait_flushed()

    def dispatched(self, event: str) -> list[tuple[tuple[int, int] | None, dict[str, Any]]]:
        """``(shard, data)`` of every ``event`` frame each session was sent, in order.

        ``shard`` is the session's ``[id, count]`` from IDENTIFY (None: unsharded); a test
        of sharding asserts that each guild's events went to its own shard only.
        """
        return [
            (session.shard, frame["d"])
            for session in self.sessions.values()
            for frame in session.buffer
            if frame["t"] == event
        ]

    async def interact(self, payload: dict[str, Any], *, timeout: float = 5.0) -> RecordedRequest:  # noqa: ASYNC109 (public API)
        """Dispatch INTERACTION_CREATE and wait for the bot's callback request.

        Returns the recorded ``POST /interactions/{id}/{token}/callback`` (``.body`` holds
        ``type`` and ``data``, ``.response["resource"]`` what the loopback answered). Later
        requests (followups, edits) can be awaited with :meth:`wait_for` using
        ``since=result.index``. Raises :class:`TimeoutError` listing the requests seen if
        the bot does not answer within ``timeout``.
        """
        if not any(s.alive for s in self.sessions.values()):
            raise RuntimeError("no gateway session: is a bot running against this loopback?")
        guild_id = _guild_of(payload)
        if not any(s.alive and s.wants_guild(guild_id) for s in self.sessions.values()):
            raise RuntimeError(
                f"no gateway session of the shard of guild {guild_id}: Discord would deliver"
                " this interaction to nobody"
            )
        since = len(self.requests)
        interaction_id = payload["id"]
        await self.dispatch("INTERACTION_CREATE", payload)
        return await self.wait_for(
            lambda r: (
                r.route == CALLBACK_ROUTE and r.params.get("interaction_id") == interaction_id
            ),
            timeout=timeout,
            since=since,
        )

    async def wait_for(
        self,
        predicate: Callable[[RecordedRequest], bool],
        *,
        timeout: float = 5.0,  # noqa: ASYNC109 (public API, as in asyncio.wait_for)
        since: int = 0,
    ) -> RecordedRequest:
        """The first recorded request with index >= ``since`` matching ``predicate``."""

        def first() -> RecordedRequest | None:
            return next((r for r in self.requests[since:] if predicate(r)), None)

        async with self._cond:
            try:
                async with asyncio.timeout(timeout):
                    await self._cond.wait_for(lambda: first() is not None)
            except TimeoutError:
                seen = [f"{r.method} {r.path} -> {r.status}" for r in self.requests[since:]]
                raise TimeoutError(
                    f"no matching request within {timeout}s; requests since #{since}: {seen}"
                ) from None
        found = first()
        assert found is not None
        return found

    def find(self, method: str, route: str) -> list[RecordedRequest]:
        """Recorded requests with this method and route template."""
        return [r for r in self.requests if r.method == method and r.route == route]

    def interaction(self, payload_or_token: dict[str, Any] | str) -> InteractionRecord:
        """What the loopback knows about a dispatched interaction (e.g. ``.choices``)."""
        token = payload_or_token if isinstance(payload_or_token, str) else payload_or_token["token"]
        return self.interactions[token]

    def expire(self, interaction_id: int | str) -> None:
        """Close an interaction's 3-second window now, as Discord does when it was not
        answered in time: its callback (a reply or a defer) is refused with 404, code
        10062 "Unknown interaction". Lets a test hold a click past 3 s without waiting."""
        self._expired.add(int(interaction_id))

    def hold_after(self, method: str, route: str, after: int) -> Gate:
        """Let ``after`` more requests to ``method route`` through, then hold the rest."""
        if not any(r.template == route and r.method == method for r in self._routes):
            raise ValueError(f"the loopback serves no route {method} {route}")
        gate = Gate(method, route, after)
        self._gates.append(gate)
        return gate

    async def _pass_gates(self, method: str, route: str) -> bool:
        """False when a gate held this request and was then dropped."""
        for gate in self._gates:
            if gate.method == method and gate.route == route and not gate.dropped.is_set():
                if gate.passed < gate.after:
                    gate.passed += 1
                    continue
                await gate.dropped.wait()
                return False
        return True

    def fail_next(
        self,
        method: str,
        route: str,
        status: int,
        body: dict[str, Any] | None = None,
        *,
        count: int = 1,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Answer the next ``count`` requests to ``method route`` with an error.

        ``route`` is a template such as ``/channels/{channel_id}/messages``. For 429 the
        body defaults to a 50 ms per-route limit and the ``X-RateLimit-*`` headers
        (including ``X-RateLimit-Scope``) and ``Retry-After`` are filled in, so
        discord.py's own rate-limit handling runs. ``headers`` override the defaults.
        """
        if not any(r.template == route and r.method == method for r in self._routes):
            raise ValueError(f"the loopback serves no route {method} {route}")
        if body is None:
            body = (
                {"message": "You are being rate limited.", "retry_after": 0.05, "global": False}
                if status == 429
                else _error_payload(0, f"{status}: loopback fault")
            )
        all_headers: dict[str, str] = {}
        if status == 429:
            retry_after = float(body.get("retry_after", 0.05))
            all_headers = {
                "Retry-After": str(max(1, math.ceil(retry_after))),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
                "X-RateLimit-Reset-After": f"{retry_after:.3f}",
                "X-RateLimit-Bucket": f"{zlib.crc32(f'{method} {route}'.encode()):08x}",
                "X-RateLimit-Scope": "user",
            }
            if body.get("global"):
                all_headers["X-RateLimit-Global"] = "true"
                all_headers["X-RateLimit-Scope"] = "global"
        all_headers.update(headers or {})
        self._faults.append(_Fault(method, route, status, body, all_headers, count))

    async def drop_connections(self, *, code: int = 4000, abort: bool = False) -> None:
        """Drop every gateway connection; sessions stay resumable and keep buffering.

        By default the socket is closed with 4000 ("unknown error", as Discord does);
        discord.py then reconnects at once with RESUME to ``resume_gateway_url``, gets
        the missed dispatches replayed and then RESUMED. ``abort=True`` cuts the TCP
        connection instead (the client sees close code 1006 and also resumes).
        """
        for conn in list(self._connections):
            conn.dropped = True
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
            if abort and conn.transport is not None:
                conn.transport.abort()
            else:
                await conn.ws.close(code=code, message=b"loopback drop")

    def invalidate_sessions(self) -> None:
        """Make every session non-resumable, as Discord does after a long outage.

        The next RESUME is answered with INVALID_SESSION (op 9, ``d: false``) and
        discord.py identifies again (a new READY and GUILD_CREATEs follow).
        """
        for session in self.sessions.values():
            session.alive = False

    async def wait_connected(
        self,
        timeout: float = 5.0,  # noqa: ASYNC109 (public API)
        *,
        resumes: int = 0,
        identifies: int = 0,
        sessions: int = 1,
    ) -> None:
        """Wait until some session is connected and has received all its events.

        With ``resumes=n`` also wait until at least ``n`` RESUMEs have been served, with
        ``identifies=n`` until at least ``n`` IDENTIFYs (e.g. a bot process started
        again after a crash: its first IDENTIFY is the ``n``-th), with ``sessions=n``
        until ``n`` sessions are (e.g. every shard of a sharded bot).
        """

        def connected() -> bool:
            return (
                self.resume_count >= resumes
                and self.identify_count >= identifies
                and sum(
                    s.alive and s.conn is not None and s.conn.sent >= len(s.buffer)
                    for s in self.sessions.values()
                )
                >= sessions
            )

        async with self._gw_cond:
            try:
                async with asyncio.timeout(timeout):
                    await self._gw_cond.wait_for(connected)
            except TimeoutError:
                raise TimeoutError(
                    f"no connected gateway session within {timeout}s (resumes served: "
                    f"{self.resume_count}, wanted {resumes}; identifies: {self.identify_count},"
                    f" wanted {identifies})"
                ) from None

    # ------------------------------------------------------------------ gateway

    def _enqueue(
        self,
        event: str,
        data: dict[str, Any],
        *,
        guild_id: int | None = None,
        session: _Session | None = None,
        fresh_payload: bool = False,
        routed: bool = False,
    ) -> None:
        """Append a dispatch to live sessions' buffers (sequence assigned now) and wake writers.

        ``guild_id`` restricts it to sessions whose shard holds that guild; ``session`` to
        one session; ``routed`` with no ``guild_id`` to shard 0's sessions (a DM).
        ``fresh_payload`` means ``data`` is not shared and need not be copied.
        """
        if event == "INTERACTION_CREATE":
            token = data["token"]
            self.interactions.setdefault(
                token, InteractionRecord(int(data["id"]), token, copy.deepcopy(data))
            )
        targets = [session] if session is not None else list(self.sessions.values())
        for target in targets:
            if not target.alive or (
                (guild_id is not None or routed) and not target.wants_guild(guild_id)
            ):
                continue
            frame = {
                "op": 0,
                "t": event,
                "s": len(target.buffer) + 1,
                "d": data if fresh_payload else copy.deepcopy(data),
            }
            target.buffer.append(frame)
            if target.conn is not None:
                target.conn.wake.set()

    async def _wait_flushed(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109
        def flushed() -> bool:
            return all(
                s.conn is None or s.conn.sent >= len(s.buffer)
                for s in self.sessions.values()
                if s.alive
            )

        async with self._gw_cond:
            async with asyncio.timeout(timeout):
                await self._gw_cond.wait_for(flushed)

    async def _notify_gateway(self) -> None:
        async with self._gw_cond:
            self._gw_cond.notify_all()

    async def _handle_gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        conn = _Connection(ws=ws, transport=request.transport)
        self._connections.add(conn)
        _log.debug("gateway connection from %s (%s)", request.remote, request.query_string)
        conn.control.append({"op": 10, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}})
        conn.wake.set()
        writer = asyncio.create_task(self._write_loop(conn), name="loopback-gateway-writer")
        self._writers.add(writer)
        try:
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await self._on_gateway_frame(conn, json.loads(msg.data))
                else:
                    _log.warning("loopback gateway ignores %s frames", msg.type)
        finally:
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
            self._writers.discard(writer)
            self._connections.discard(conn)
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                if not conn.dropped and ws.close_code in (1000, 1001):
                    session.alive = False
            _log.debug("gateway connection closed with %s", ws.close_code)
            await self._notify_gateway()
        return ws

    async def _write_loop(self, conn: _Connection) -> None:
        """The only writer of a connection: buffer frames (replay first), then control frames."""
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
                    await conn.ws.send_str(json.dumps(frame))
                await self._notify_gateway()
        except ConnectionError as exc:
            _log.debug("gateway writer stopped: %s", exc)

    async def _on_gateway_frame(self, conn: _Connection, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        data = frame.get("d")
        if op == 1:
            conn.control.append({"op": 11})
            conn.wake.set()
        elif op == 2:
            await self._identify(conn, data or {})
        elif op == 6:
            await self._resume(conn, data or {})
        elif op in (3, 4, 8, 31):
            _log.debug("loopback gateway ignores op %s: %s", op, data)
        else:
            _log.warning("loopback gateway: unknown op %s", op)
            await conn.ws.close(code=4001, message=b"Unknown opcode")

    async def _identify(self, conn: _Connection, data: dict[str, Any]) -> None:
        if data.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated.")
            return
        shard = data.get("shard")
        if shard is not None and not (
            isinstance(shard, list)
            and len(shard) == 2
            and all(isinstance(n, int) for n in shard)
            and 0 <= shard[0] < shard[1]
        ):
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return
        session = _Session(
            session_id=secrets.token_hex(16),
            shard=(int(shard[0]), int(shard[1])) if shard else None,
            intents=int(data.get("intents", 0)),
        )
        self.sessions[session.session_id] = session
        self.identify_count += 1
        conn.session = session
        conn.sent = 0
        session.conn = conn
        guild_ids = [g for g in self.guilds if session.wants_guild(g)]
        ready: dict[str, Any] = {
            "v": 10,
            "user": self._bot_user() | {"verified": True, "mfa_enabled": False, "email": None},
            "guilds": [{"id": str(g), "unavailable": True} for g in guild_ids],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.app_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "_trace": ["loopback"],
        }
        if session.shard is not None:
            ready["shard"] = list(session.shard)
        self._enqueue("READY", ready, session=session, fresh_payload=True)
        for guild_id in guild_ids:
            payload = self._guild_create_payload(self.guilds[guild_id])
            self._enqueue("GUILD_CREATE", payload, session=session, fresh_payload=True)

    async def _resume(self, conn: _Connection, data: dict[str, Any]) -> None:
        if data.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        session = self.sessions.get(str(data.get("session_id")))
        seq = data.get("seq")
        if (
            session is None
            or not session.alive
            or seq is None
            or not 0 <= int(seq) <= len(session.buffer)
        ):
            _log.info("loopback gateway: RESUME of %s rejected", data.get("session_id"))
            conn.control.append({"op": 9, "d": False})
            conn.wake.set()
            return
        old = session.conn
        session.conn = conn
        conn.session = session
        conn.sent = int(seq)
        self.resume_count += 1
        conn.control.append({"op": 0, "t": "RESUMED", "s": None, "d": {"_trace": ["loopback"]}})
        conn.wake.set()
        if old is not None and old is not conn:  # Discord closes the superseded connection
            old.dropped = True
            await old.ws.close(code=4000, message=b"session resumed elsewhere")

    # ------------------------------------------------------------------ REST plumbing

    def _build_routes(self) -> list[_Route]:
        def route(
            method: str,
            template: str,
            handler: Callable[[_Call], Awaitable[_Reply]],
            auth: bool = True,
        ) -> _Route:
            return _Route(method, template, _template_regex(template), handler, auth)

        # Literal routes (e.g. @original) come before their {placeholder} siblings.
        return [
            route("GET", "/users/@me", self._get_me),
            route("POST", "/users/@me/channels", self._create_dm),
            route("GET", "/oauth2/applications/@me", self._get_application),
            route("GET", "/applications/@me", self._get_application),
            route("GET", "/gateway", self._get_gateway, auth=False),
            route("GET", "/gateway/bot", self._get_gateway_bot),
            route("GET", "/applications/{application_id}/commands", self._get_commands),
            route("PUT", "/applications/{application_id}/commands", self._put_commands),
            route(
                "GET",
                "/applications/{application_id}/guilds/{guild_id}/commands",
                self._get_commands,
            ),
            route(
                "PUT",
                "/applications/{application_id}/guilds/{guild_id}/commands",
                self._put_commands,
            ),
            route("POST", CALLBACK_ROUTE, self._interaction_callback, auth=False),
            route("POST", FOLLOWUP_ROUTE, self._post_followup, auth=False),
            route("GET", ORIGINAL_ROUTE, self._get_webhook_message, auth=False),
            route("PATCH", ORIGINAL_ROUTE, self._patch_webhook_message, auth=False),
            route("DELETE", ORIGINAL_ROUTE, self._delete_webhook_message, auth=False),
            route("GET", WEBHOOK_MESSAGE_ROUTE, self._get_webhook_message, auth=False),
            route("PATCH", WEBHOOK_MESSAGE_ROUTE, self._patch_webhook_message, auth=False),
            route("DELETE", WEBHOOK_MESSAGE_ROUTE, self._delete_webhook_message, auth=False),
            route("GET", "/channels/{channel_id}", self._get_channel),
            route("POST", "/channels/{channel_id}/typing", self._post_typing),
            route("GET", CHANNEL_MESSAGES_ROUTE, self._get_channel_messages),
            route("POST", CHANNEL_MESSAGES_ROUTE, self._post_channel_message),
            route("GET", CHANNEL_MESSAGE_ROUTE, self._get_channel_message),
            route("PATCH", CHANNEL_MESSAGE_ROUTE, self._patch_channel_message),
            route("DELETE", CHANNEL_MESSAGE_ROUTE, self._delete_channel_message),
            route("GET", "/guilds/{guild_id}", self._get_guild),
            route("GET", "/guilds/{guild_id}/channels", self._get_guild_channels),
            route("GET", "/guilds/{guild_id}/members/{user_id}", self._get_guild_member),
        ]

    def _match(self, method: str, path: str) -> tuple[_Route | None, dict[str, str]]:
        for candidate in self._routes:
            if candidate.method != method:
                continue
            match = candidate.pattern.fullmatch(path)
            if match:
                return candidate, match.groupdict()
        return None, {}

    async def _read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile], str | None]:
        """(body, files, problem): JSON or the ``payload_json`` part of multipart."""
        if not request.body_exists:
            return None, [], None
        if request.content_type == "multipart/form-data":
            body: Any = None
            files: list[UploadedFile] = []
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    return None, files, "nested multipart is not supported"
                raw = await part.read(decode=True)
                if part.name == "payload_json":
                    try:
                        body = json.loads(raw)
                    except ValueError as exc:
                        return None, files, f"payload_json is not JSON: {exc}"
                else:
                    files.append(
                        UploadedFile(
                            field_name=part.name or "",
                            filename=part.filename,
                            content_type=part.headers.get("Content-Type"),
                            data=bytes(raw),
                        )
                    )
            return body, files, None
        raw = await request.read()
        if not raw:
            return None, [], None
        try:
            return json.loads(raw), [], None
        except ValueError as exc:
            return None, [], f"body is not JSON: {exc}"

    def _take_fault(self, method: str, route: str) -> _Fault | None:
        for fault in self._faults:
            if fault.method == method and fault.route == route:
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self._faults.remove(fault)
                return fault
        return None

    async def _record(self, recorded: RecordedRequest) -> None:
        recorded.index = len(self.requests)
        self.requests.append(recorded)
        async with self._cond:
            self._cond.notify_all()

    def attachment(
        self,
        filename: str,
        data: bytes,
        *,
        content_type: str = "text/plain; charset=utf-8",
        size: int | None = None,
    ) -> dict[str, Any]:
        """An attachment a member sends with a command (an ATTACHMENT option's value, as
        Discord resolves it), its bytes served by the loopback as Discord's CDN serves
        them (`_serve_attachment`). `size` other than the bytes' tests a size check made
        before the download."""
        attachment_id = self.snowflake()
        self.uploads[attachment_id] = data
        url = f"http://127.0.0.1:{self.port}/attachments/{attachment_id}/{filename}"
        return {
            "id": str(attachment_id),
            "filename": filename,
            "size": len(data) if size is None else size,
            "url": url,
            "proxy_url": url,
            "content_type": content_type,
        }

    async def _serve_attachment(self, request: web.Request) -> web.StreamResponse:
        """GET of an attachment's URL (Discord's CDN): its bytes, or 404."""
        raw = request.match_info["attachment_id"]
        data = self.uploads.get(int(raw)) if raw.isdigit() else None
        if data is None:
            return web.Response(status=404)
        if self.attachment_gate is not None:
            await self.attachment_gate.wait()
        self.downloads.append(int(raw))
        return web.Response(body=data, content_type="application/octet-stream")

    async def _handle_stray(self, request: web.Request) -> web.StreamResponse:
        """Anything outside ``/api/v10`` and ``/gateway``: recorded as an unknown route."""
        entry = f"{request.method} {request.path}"
        _log.warning("loopback: request outside the API: %s", entry)
        self.unknown_routes.append(entry)
        await self._record(
            RecordedRequest(request.method, request.path, dict(request.query), None, 404, None)
        )
        return _json_reply(404, _error_payload(0, "404: Not Found"))

    async def _handle_rest(self, request: web.Request) -> web.StreamResponse:
        arrived = time.monotonic()
        method = request.method
        path = "/" + request.match_info["tail"]
        query = dict(request.query)
        headers = dict(request.headers)
        body, files, problem = await self._read_body(request)
        route, params = self._match(method, path)
        reply: _Reply
        if route is None:
            _log.warning("loopback: unknown route %s %s", method, path)
            self.unknown_routes.append(f"{method} {path}")
            reply = _Reply(404, _error_payload(0, "404: Not Found"))
        elif problem is not None:
            reply = _Reply(
                400,
                {"code": 50035, "message": "Invalid Form Body", "errors": {"_errors": [problem]}},
            )
        elif route.auth and headers.get("Authorization") != f"Bot {self.token}":
            reply = _Reply(401, _error_payload(0, "401: Unauthorized"))
        else:
            self._validate(method, path, body)
            if not await self._pass_gates(method, route.template):
                return _json_reply(503, _error_payload(0, "503: held by a drill gate"))
            fault = self._take_fault(method, route.template)
            if fault is not None:
                reply = _Reply(fault.status, copy.deepcopy(fault.body), dict(fault.headers))
            else:
                reply = await self._run_handler(
                    route, _Call(params, body, files, query), method, path
                )
        _log.debug("loopback REST %s %s -> %s", method, path, reply.status)
        await self._record(
            RecordedRequest(
                method=method,
                path=path,
                query=query,
                body=body,
                status=reply.status,
                route=route.template if route else None,
                headers=headers,
                files=files,
                response=copy.deepcopy(reply.payload),
                arrived=arrived,
            )
        )
        return _json_reply(reply.status, reply.payload, reply.headers)

    def _validate(self, method: str, path: str, body: Any) -> None:
        if self.validator is None:
            return
        if body is None and not self.validator.route_known(method, path):
            return
        for error in self.validator.validate(method, path, body):
            self.body_errors.append(f"{method} {path}: {error}")

    async def _run_handler(self, route: _Route, call: _Call, method: str, path: str) -> _Reply:
        try:
            return await route.handler(call)
        except _ApiError as exc:
            return _Reply(exc.status, _error_payload(exc.code, exc.message))
        except Exception as exc:  # a bug in the loopback: never answer 5xx (discord.py retries)
            _log.exception("loopback handler for %s %s failed", method, path)
            self.internal_errors.append(f"{method} {path}: {exc!r}")
            return _Reply(400, _error_payload(0, f"loopback internal error: {exc!r}"))

    # ------------------------------------------------------------------ REST handlers: app

    async def _get_me(self, call: _Call) -> _Reply:
        return _Reply(
            200,
            self._bot_user()
            | {"verified": True, "mfa_enabled": False, "email": None, "locale": "en-US"},
        )

    async def _get_application(self, call: _Call) -> _Reply:
        owner = self._public_user(_DEFAULT_OWNER_ID)
        return _Reply(
            200,
            {
                "id": str(self.app_id),
                "name": self.bot_name,
                "icon": None,
                "description": "tpquiz under test (loopback Discord)",
                "summary": "",
                "bot_public": False,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "flags": 0,
                "owner": owner,
                "team": None,
                "bot": self._bot_user(),
                "rpc_origins": [],
                "terms_of_service_url": None,
                "privacy_policy_url": None,
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
                "approximate_guild_count": len(self.guilds),
                "integration_types_config": {"0": {}},
            },
        )

    async def _get_gateway(self, call: _Call) -> _Reply:
        return _Reply(200, {"url": self.gateway_url.rstrip("/")})

    async def _get_gateway_bot(self, call: _Call) -> _Reply:
        return _Reply(
            200,
            {
                "url": self.gateway_url.rstrip("/"),
                "shards": self.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 86_400_000,
                    "max_concurrency": 1,
                },
            },
        )

    def _check_app(self, call: _Call) -> None:
        app = call.params.get("application_id") or call.params.get("webhook_id")
        if app is not None and app != str(self.app_id):
            raise _ApiError(404, 10002, "Unknown Application")

    @staticmethod
    def _command_scope(call: _Call) -> str | int:
        guild = call.params.get("guild_id")
        return int(guild) if guild is not None else "global"

    async def _get_commands(self, call: _Call) -> _Reply:
        self._check_app(call)
        return _Reply(200, copy.deepcopy(self.commands.get(self._command_scope(call), [])))

    async def _put_commands(self, call: _Call) -> _Reply:
        """Bulk overwrite: ids stay stable per (scope, type, name), like Discord's."""
        self._check_app(call)
        scope = self._command_scope(call)
        if isinstance(scope, int) and scope not in self.guilds:
            raise _ApiError(403, 50001, "Missing Access")
        if not isinstance(call.body, list):
            raise _ApiError(400, 50035, "Invalid Form Body")
        stored = []
        version = str(self.snowflake())
        for item in call.body:
            command_type = int(item.get("type", 1))
            key = (scope, command_type, item["name"])
            command_id = self._command_ids.setdefault(key, self.snowflake())
            command = {
                "id": str(command_id),
                "application_id": str(self.app_id),
                "version": version,
                "type": command_type,
                "name": item["name"],
                "description": item.get("description", ""),
                "default_member_permissions": item.get("default_member_permissions"),
                "nsfw": bool(item.get("nsfw", False)),
                "integration_types": item.get("integration_types") or [0],
                "contexts": item.get("contexts"),
                "name_localizations": item.get("name_localizations"),
                "description_localizations": item.get("description_localizations"),
            }
            if item.get("options"):
                command["options"] = copy.deepcopy(item["options"])
            if isinstance(scope, int):
                command["guild_id"] = str(scope)
            else:
                command["dm_permission"] = item.get("dm_permission", True)
            stored.append(command)
        self.commands[scope] = stored
        _log.info("loopback: synced %d commands to %s", len(stored), scope)
        return _Reply(200, copy.deepcopy(stored))

    # ------------------------------------------------------------------ REST handlers: interactions

    def _interaction_for(self, call: _Call) -> InteractionRecord:
        token = call.params["webhook_token"]
        self._check_app(call)
        record = self.interactions.get(token)
        if record is None:
            raise _ApiError(404, 10015, "Unknown Webhook")
        return record

    async def _interaction_callback(self, call: _Call) -> _Reply:
        record = self.interactions.get(call.params["interaction_token"])
        if record is None or str(record.id) != call.params["interaction_id"]:
            raise _ApiError(404, 10062, "Unknown interaction")
        if record.id in self._expired:
            raise _ApiError(404, 10062, "Unknown interaction")
        if record.response_type is not None:
            raise _ApiError(400, 40060, "Interaction has already been acknowledged.")
        body = call.body if isinstance(call.body, dict) else {}
        response_type = body.get("type")
        if response_type not in _CALLBACK_TYPES:
            raise _ApiError(400, 50035, "Invalid Form Body")
        data = body.get("data") or {}
        payload = record.payload
        component_message = payload.get("message")
        if response_type in (6, 7) and component_message is None:
            raise _ApiError(400, 50035, "Invalid Form Body: no message to update")
        flags = int(data.get("flags") or 0)
        resource: dict[str, Any] = {"type": response_type}
        record.response_type = response_type
        if response_type == 4:
            message = self._create_interaction_message(record, data, call.files)
            record.original_message_id = int(message["id"])
            resource["message"] = message
        elif response_type == 5:
            placeholder = {"content": "", "flags": (flags & _EPHEMERAL) | _LOADING}
            message = self._create_interaction_message(record, placeholder, [])
            record.original_message_id = int(message["id"])
            resource["message"] = message
        elif response_type in (6, 7):
            assert component_message is not None
            message_id = int(component_message["id"])
            record.original_message_id = message_id
            if response_type == 7:
                resource["message"] = self._edit_message(message_id, data, call.files)
        elif response_type == 8:
            record.choices = copy.deepcopy(data.get("choices", []))
        callback = {
            "id": str(record.id),
            "type": payload["type"],
            "response_message_id": (
                str(record.original_message_id) if record.original_message_id else None
            ),
            "response_message_loading": response_type == 5,
            "response_message_ephemeral": bool(flags & _EPHEMERAL),
        }
        return _Reply(200, {"interaction": callback, "resource": resource})

    def _create_interaction_message(
        self, record: InteractionRecord, data: dict[str, Any], files: list[UploadedFile]
    ) -> dict[str, Any]:
        payload = record.payload
        user = (payload.get("member") or {}).get("user") or payload.get("user") or {}
        metadata: dict[str, Any] = {
            "id": str(record.id),
            "type": payload["type"],
            "user": copy.deepcopy(user),
            "authorizing_integration_owners": copy.deepcopy(
                payload.get("authorizing_integration_owners", {})
            ),
        }
        if payload["type"] == _APPLICATION_COMMAND:
            metadata["name"] = payload["data"]["name"]
            metadata["command_type"] = payload["data"].get("type", 1)
        if "message" in payload:
            metadata["interacted_message_id"] = payload["message"]["id"]
        if record.original_message_id is not None:
            metadata["original_response_message_id"] = str(record.original_message_id)
        message = self._create_message(
            int(payload["channel_id"]),
            data,
            files,
            message_type=20 if payload["type"] == _APPLICATION_COMMAND else 0,
            extra={
                "webhook_id": str(self.app_id),
                "application_id": str(self.app_id),
                "interaction_metadata": metadata,
            },
        )
        return message

    def _webhook_message_id(self, call: _Call, record: InteractionRecord) -> int:
        raw = call.params.get("message_id")
        if raw is None:  # @original
            if record.original_message_id is None:
                raise _ApiError(404, 10008, "Unknown Message")
            return record.original_message_id
        try:
            return int(raw)
        except ValueError:
            raise _ApiError(404, 10008, "Unknown Message") from None

    async def _post_followup(self, call: _Call) -> _Reply:
        record = self._interaction_for(call)
        if not isinstance(call.body, dict):
            raise _ApiError(400, 50035, "Invalid Form Body")
        message = self._create_interaction_message(record, call.body, call.files)
        if call.query.get("wait", "").lower() in ("1", "true"):
            return _Reply(200, message)
        return _Reply(204)

    async def _get_webhook_message(self, call: _Call) -> _Reply:
        record = self._interaction_for(call)
        return _Reply(200, self._message(self._webhook_message_id(call, record)))

    async def _patch_webhook_message(self, call: _Call) -> _Reply:
        record = self._interaction_for(call)
        message_id = self._webhook_message_id(call, record)
        return _Reply(200, self._edit_message(message_id, call.body or {}, call.files))

    async def _delete_webhook_message(self, call: _Call) -> _Reply:
        record = self._interaction_for(call)
        self._delete_message(self._webhook_message_id(call, record))
        return _Reply(204)

    # ------------------------------------------------------------------ REST handlers: channels

    def _channel(self, call: _Call) -> dict[str, Any]:
        try:
            return self.channels[int(call.params["channel_id"])]
        except (KeyError, ValueError):
            raise _ApiError(404, 10003, "Unknown Channel") from None

    async def _create_dm(self, call: _Call) -> _Reply:
        """Open (or return) the DM channel with a known user, as Discord does."""
        body = call.body if isinstance(call.body, dict) else {}
        try:
            user_id = int(body["recipient_id"])
        except (KeyError, TypeError, ValueError):
            raise _ApiError(400, 50035, "Invalid Form Body") from None
        user = self.users.get(user_id)
        if user is None:
            raise _ApiError(404, 10013, "Unknown User")
        channel_id = self.dm_channels.get(user_id)
        if channel_id is None:
            channel_id = self.snowflake()
            self.dm_channels[user_id] = channel_id
            self.channels[channel_id] = {
                "id": str(channel_id),
                "type": 1,
                "flags": 0,
                "last_message_id": None,
                "recipients": [copy.deepcopy(user)],
                "guild_id": None,
            }
        channel = self.channels[channel_id]
        return _Reply(200, {k: copy.deepcopy(v) for k, v in channel.items() if k != "guild_id"})

    def _require(self, channel: dict[str, Any], needed: int) -> None:
        if channel.get("guild_id") is None:  # a DM: no permissions, only the recipient's say
            recipients = channel.get("recipients") or [{}]
            if needed & Perm.SEND_MESSAGES and int(recipients[0].get("id", 0)) in self.dms_closed:
                raise _ApiError(403, 50007, "Cannot send messages to this user")
            return
        have = self.permissions_for(int(channel["id"]), self.bot_user_id)
        if not have & Perm.VIEW_CHANNEL:
            raise _ApiError(403, 50001, "Missing Access")
        if have & needed != needed:
            raise _ApiError(403, 50013, "Missing Permissions")

    async def _get_channel(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        self._require(channel, Perm.VIEW_CHANNEL)
        return _Reply(200, copy.deepcopy(channel))

    async def _post_typing(self, call: _Call) -> _Reply:
        self._require(self._channel(call), Perm.SEND_MESSAGES)
        return _Reply(204)

    async def _get_channel_messages(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        self._require(channel, Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
        limit = int(call.query.get("limit", 50))
        before = int(call.query.get("before", 1 << 63))
        after = int(call.query.get("after", 0))
        found = sorted(
            (
                m
                for mid, m in self.messages.items()
                if m["channel_id"] == channel["id"]
                and after < mid < before
                and not m["flags"] & _EPHEMERAL
            ),
            key=lambda m: int(m["id"]),
            reverse=True,
        )
        return _Reply(200, copy.deepcopy(found[:limit]))

    async def _post_channel_message(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        self._require(channel, Perm.SEND_MESSAGES)
        body = call.body if isinstance(call.body, dict) else {}
        if not (
            body.get("content")
            or body.get("embeds")
            or body.get("components")
            or body.get("sticker_ids")
            or body.get("poll")
            or call.files
        ):
            raise _ApiError(400, 50006, "Cannot send an empty message")
        message = self._create_message(int(channel["id"]), body, call.files)
        return _Reply(200, message)

    def _channel_message(self, call: _Call) -> int:
        channel = self._channel(call)
        try:
            message_id = int(call.params["message_id"])
        except ValueError:
            raise _ApiError(404, 10008, "Unknown Message") from None
        message = self.messages.get(message_id)
        if (
            message is None
            or message["channel_id"] != channel["id"]
            or message["flags"] & _EPHEMERAL
        ):
            raise _ApiError(404, 10008, "Unknown Message")
        return message_id

    async def _get_channel_message(self, call: _Call) -> _Reply:
        self._require(self._channel(call), Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
        return _Reply(200, self._message(self._channel_message(call)))

    async def _patch_channel_message(self, call: _Call) -> _Reply:
        self._require(self._channel(call), Perm.VIEW_CHANNEL)
        message_id = self._channel_message(call)
        return _Reply(200, self._edit_message(message_id, call.body or {}, call.files))

    async def _delete_channel_message(self, call: _Call) -> _Reply:
        self._require(self._channel(call), Perm.VIEW_CHANNEL)
        self._delete_message(self._channel_message(call))
        return _Reply(204)

    # ------------------------------------------------------------------ REST handlers: guilds

    def _guild(self, call: _Call) -> _Guild:
        try:
            return self.guilds[int(call.params["guild_id"])]
        except (KeyError, ValueError):
            raise _ApiError(404, 10004, "Unknown Guild") from None

    async def _get_guild(self, call: _Call) -> _Reply:
        guild = self._guild(call)
        payload = self._guild_object(guild)
        if call.query.get("with_counts", "").lower() in ("1", "true"):
            payload["approximate_member_count"] = 1 + len(self.members)
            payload["approximate_presence_count"] = 1
        return _Reply(200, payload)

    async def _get_guild_channels(self, call: _Call) -> _Reply:
        guild = self._guild(call)
        return _Reply(200, [copy.deepcopy(self.channels[c]) for c in guild.channel_ids])

    async def _get_guild_member(self, call: _Call) -> _Reply:
        guild = self._guild(call)
        user_id = int(call.params["user_id"])
        if user_id == self.bot_user_id:
            return _Reply(200, self._bot_member(guild))
        member = self.members.get(user_id)
        if member is None:
            raise _ApiError(404, 10007, "Unknown Member")
        payload = copy.deepcopy(member)
        payload.pop("permissions", None)  # only interaction members carry permissions
        return _Reply(200, payload)

    # ------------------------------------------------------------------ messages

    def _message(self, message_id: int) -> dict[str, Any]:
        message = self.messages.get(message_id)
        if message is None:
            raise _ApiError(404, 10008, "Unknown Message")
        return copy.deepcopy(message)

    def _attachments(
        self, channel_id: int, specs: list[dict[str, Any]] | None, files: list[UploadedFile]
    ) -> list[dict[str, Any]]:
        """Attachment objects for uploaded ``files``, named per ``attachments`` in the body."""
        by_index: dict[str, UploadedFile] = {}
        for position, upload in enumerate(files):
            match = re.fullmatch(r"files\[(\d+)\]", upload.field_name)
            by_index[match.group(1) if match else str(position)] = upload
        described = {str(spec.get("id")): spec for spec in specs or [] if isinstance(spec, dict)}
        result = []
        for index, upload in by_index.items():
            spec = described.get(index, {})
            attachment_id = self.snowflake()
            filename = spec.get("filename") or upload.filename or f"file{index}"
            self.uploads[attachment_id] = upload.data
            url = f"https://cdn.discordapp.com/attachments/{channel_id}/{attachment_id}/{filename}"
            attachment: dict[str, Any] = {
                "id": str(attachment_id),
                "filename": filename,
                "size": len(upload.data),
                "url": url,
                "proxy_url": url.replace("cdn.discordapp.com", "media.discordapp.net"),
                "content_type": upload.content_type or "application/octet-stream",
            }
            if spec.get("description"):
                attachment["description"] = spec["description"]
            result.append(attachment)
        return result

    def _create_message(
        self,
        channel_id: int,
        data: dict[str, Any],
        files: list[UploadedFile],
        *,
        message_type: int = 0,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Store a new message by the bot and return a copy (Discord's message object)."""
        channel = self.channels[channel_id]
        message_id = self.snowflake()
        message: dict[str, Any] = {
            "id": str(message_id),
            "type": message_type,
            "channel_id": str(channel_id),
            "guild_id": channel["guild_id"],
            "author": self._bot_user(),
            "content": data.get("content") or "",
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "tts": bool(data.get("tts", False)),
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "mention_channels": [],
            "attachments": self._attachments(channel_id, data.get("attachments"), files),
            "embeds": copy.deepcopy(data.get("embeds") or []),
            "components": copy.deepcopy(data.get("components") or []),
            "reactions": [],
            "pinned": False,
            "flags": int(data.get("flags") or 0),
        }
        if data.get("nonce") is not None:
            message["nonce"] = data["nonce"]
        if data.get("poll") is not None:
            message["poll"] = copy.deepcopy(data["poll"])
        reference = data.get("message_reference")
        if isinstance(reference, dict) and reference.get("message_id") is not None:
            referenced = self.messages.get(int(reference["message_id"]))
            message["message_reference"] = {
                "type": reference.get("type", 0),
                "message_id": str(reference["message_id"]),
                "channel_id": str(reference.get("channel_id", channel_id)),
                "guild_id": str(reference.get("guild_id", channel["guild_id"])),
            }
            message["referenced_message"] = copy.deepcopy(referenced)
            if message_type == 0:
                message["type"] = 19  # REPLY
        message.update(extra or {})
        self.messages[message_id] = message
        if not message["flags"] & _EPHEMERAL:
            channel["last_message_id"] = str(message_id)
        return copy.deepcopy(message)

    def _edit_message(
        self, message_id: int, data: dict[str, Any], files: list[UploadedFile]
    ) -> dict[str, Any]:
        message = self.messages.get(message_id)
        if message is None:
            raise _ApiError(404, 10008, "Unknown Message")
        if "content" in data:
            message["content"] = data["content"] or ""
        if "embeds" in data:
            message["embeds"] = copy.deepcopy(data["embeds"] or [])
        if "components" in data:
            message["components"] = copy.deepcopy(data["components"] or [])
        if data.get("flags") is not None:
            message["flags"] = (message["flags"] & _EPHEMERAL) | (int(data["flags"]) & ~_EPHEMERAL)
        if "attachments" in data or files:
            kept_ids = {
                str(a.get("id")) for a in data.get("attachments") or [] if isinstance(a, dict)
            }
            kept = [a for a in message["attachments"] if a["id"] in kept_ids]
            if "attachments" not in data:
                kept = message["attachments"]
            message["attachments"] = kept + self._attachments(
                int(message["channel_id"]), data.get("attachments"), files
            )
        message["flags"] &= ~_LOADING
        message["edited_timestamp"] = _now_iso()
        return copy.deepcopy(message)

    def _delete_message(self, message_id: int) -> None:
        message = self.messages.pop(message_id, None)
        if message is None:
            raise _ApiError(404, 10008, "Unknown Message")
        self.deleted_messages[message_id] = message


def _find_component(components: list[dict[str, Any]], custom_id: str) -> dict[str, Any] | None:
    """Depth-first search through rows, containers, sections and accessories."""
    for component in components:
        if component.get("custom_id") == custom_id:
            return component
        children = list(component.get("components") or [])
        if isinstance(component.get("accessory"), dict):
            children.append(component["accessory"])
        if isinstance(component.get("component"), dict):
            children.append(component["component"])
        found = _find_component(children, custom_id)
        if found is not None:
            return found
    return None
