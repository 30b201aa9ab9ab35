"""Self-tests of the loopback Discord with a tiny, bare discord.py bot.

The bot here is deliberately not tpquiz: it proves that the *unmodified* discord.py client
can log in, sync commands, receive interactions, answer them, post and edit messages and
survive a dropped gateway against :class:`LoopbackDiscord`, so that failures in the bot's
own tests point at the bot rather than at the loopback.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.loopback.harness import make_intents, running
from tests.loopback.server import (
    CHANNEL_MESSAGE_ROUTE,
    CHANNEL_MESSAGES_ROUTE,
    FOLLOWUP_ROUTE,
    ORIGINAL_ROUTE,
    LoopbackDiscord,
    Perm,
    RecordedRequest,
)

GUILD_ID = 1_180_000_000_000_000_001
CHANNEL_ID = GUILD_ID + 1
OTHER_CHANNEL_ID = GUILD_ID + 2
ALICE_ID = 1_180_000_000_000_000_101
BOB_ID = 1_180_000_000_000_000_102
GUILD_COMMANDS = "/applications/{application_id}/guilds/{guild_id}/commands"
GLOBAL_COMMANDS = "/applications/{application_id}/commands"
TOPICS = ["tensor parallelism", "pipeline parallelism", "sequence parallelism"]


class AnswerButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"lbq:(?P<question>\d+):(?P<choice>[a-d])",
):
    """A persistent answer button: works after a restart because its state is its id."""

    def __init__(self, question: int, choice: str) -> None:
        super().__init__(
            discord.ui.Button(label=choice.upper(), custom_id=f"lbq:{question}:{choice}")
        )
        self.question = question
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> AnswerButton:
        return cls(int(match["question"]), match["choice"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(
            content=f"Q{self.question}: {interaction.user.display_name} answered {self.choice}",
            view=None,
        )


def quiz_group() -> app_commands.Group:
    """``/quiz ask|post|whois``: one subcommand per loopback feature under test."""
    group = app_commands.Group(name="quiz", description="Loopback self-test commands")

    @group.command(name="ask", description="Ask a question with answer buttons")
    async def ask(
        interaction: discord.Interaction[Any],
        topic: str,
        question: app_commands.Range[int, 1, 99] = 1,
    ) -> None:
        view = discord.ui.View(timeout=None)
        for choice in "ab":
            view.add_item(AnswerButton(question, choice))
        await interaction.response.send_message(f"Q{question} about {topic}", view=view)

    @ask.autocomplete("topic")
    async def ask_topic(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=t, value=t) for t in TOPICS if current.lower() in t]

    @group.command(name="post", description="Post to a channel, edit it, report back")
    async def post(
        interaction: discord.Interaction[Any], channel: discord.TextChannel, text: str
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            message = await channel.send(
                text, file=discord.File(io.BytesIO(b"notes for " + text.encode()), "notes.txt")
            )
            await message.edit(content=f"{text} (edited)")
        except discord.HTTPException as exc:
            await interaction.edit_original_response(content=f"cannot post: {exc.code}")
            return
        await interaction.edit_original_response(content=f"posted {message.id}")
        await interaction.followup.send("done", ephemeral=True)

    @group.command(name="whois", description="Describe a member")
    async def whois(interaction: discord.Interaction[Any], member: discord.Member) -> None:
        await interaction.response.send_message(
            f"{member.display_name} ({member.id})", ephemeral=True
        )

    return group


class LoopbackTestBot(commands.Bot):
    """A bare bot: guild-synced ``/quiz`` group, global ``/ping``, persistent buttons."""

    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=make_intents(),
            guild_ready_timeout=0.05,
        )
        self.resumed = asyncio.Event()
        self.joined: asyncio.Queue[discord.Guild] = asyncio.Queue()
        self.command_errors: list[BaseException] = []
        self.tree.on_error = self._on_tree_error  # type: ignore[method-assign]

    async def setup_hook(self) -> None:
        self.add_dynamic_items(AnswerButton)
        self.tree.add_command(quiz_group(), guild=discord.Object(GUILD_ID))

        @self.tree.command(name="ping", description="Answer pong")
        async def ping(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("pong")

        await self.tree.sync(guild=discord.Object(GUILD_ID))
        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Skip discord.py's 5 s pause before a non-initial IDENTIFY (see harness docs)."""

    async def on_resumed(self) -> None:
        self.resumed.set()

    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.joined.put(guild)

    async def _on_tree_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        self.command_errors.append(error)
        raise error


def setup_guild(loopback: LoopbackDiscord) -> dict[str, Any]:
    """The standard guild with two text channels and a member, Alice."""
    loopback.add_guild(GUILD_ID, channel_ids=(CHANNEL_ID, OTHER_CHANNEL_ID))
    return loopback.member(ALICE_ID, "alice")


def statuses(requests: list[RecordedRequest]) -> list[int]:
    return [r.status for r in requests]


async def test_login_sync_and_ready(loopback: LoopbackDiscord) -> None:
    """Start-up order, command sync with ids, and a guild discord.py can use."""
    setup_guild(loopback)
    bot = LoopbackTestBot()
    async with running(bot, loopback):
        guild = bot.get_guild(GUILD_ID)
        assert guild is not None and guild.me is not None
        assert {c.id for c in guild.text_channels} == {CHANNEL_ID, OTHER_CHANNEL_ID}
        channel = guild.get_channel(CHANNEL_ID)
        assert isinstance(channel, discord.TextChannel)
        assert channel.permissions_for(guild.me).send_messages
        assert bot.application_id == loopback.app_id and bot.user is not None
        assert bot.user.id == loopback.bot_user_id

    routes = [(r.method, r.route) for r in loopback.requests]
    assert routes[:4] == [
        ("GET", "/users/@me"),
        ("GET", "/oauth2/applications/@me"),
        ("PUT", GUILD_COMMANDS),
        ("PUT", GLOBAL_COMMANDS),
    ]
    (quiz,) = loopback.commands[GUILD_ID]
    assert quiz["name"] == "quiz" and quiz["guild_id"] == str(GUILD_ID)
    assert {"id", "version", "application_id"} <= quiz.keys()
    assert [o["name"] for o in quiz["options"]] == ["ask", "post", "whois"]
    assert [c["name"] for c in loopback.commands["global"]] == ["ping"]
    assert loopback.identify_count == 1


async def test_slash_subcommand_then_dynamic_button(loopback: LoopbackDiscord) -> None:
    """Type-4 response with components, then a DynamicItem click answered with type 7."""
    alice = setup_guild(loopback)
    bot = LoopbackTestBot()
    async with running(bot, loopback):
        payload = loopback.slash_command(
            GUILD_ID,
            CHANNEL_ID,
            alice,
            "quiz",
            "ask",
            {"topic": "tensor parallelism", "question": 7},
        )
        callback = await loopback.interact(payload)
        assert callback.status == 200 and callback.query == {"with_response": "1"}
        assert callback.body["type"] == 4
        assert callback.body["data"]["content"] == "Q7 about tensor parallelism"
        message_id = int(callback.response["resource"]["message"]["id"])
        stored = loopback.messages[message_id]
        assert stored["channel_id"] == str(CHANNEL_ID) and stored["type"] == 20
        buttons = stored["components"][0]["components"]
        assert [b["custom_id"] for b in buttons] == ["lbq:7:a", "lbq:7:b"]

        click = await loopback.interact(loopback.button_click(message_id, "lbq:7:b", alice))
        assert click.body["type"] == 7
        assert loopback.messages[message_id]["content"] == "Q7: alice answered b"
        assert loopback.messages[message_id]["components"] == []
        assert loopback.messages[message_id]["edited_timestamp"] is not None
    assert bot.command_errors == []


async def test_deferred_post_edit_original_and_followup(loopback: LoopbackDiscord) -> None:
    """Defer, multipart channel post, message edit, @original edit, ephemeral followup."""
    alice = setup_guild(loopback)
    bot = LoopbackTestBot()
    async with running(bot, loopback):
        payload = loopback.slash_command(
            GUILD_ID, CHANNEL_ID, alice, "quiz", "post", {"channel": OTHER_CHANNEL_ID, "text": "hi"}
        )
        assert payload["data"]["resolved"]["channels"][str(OTHER_CHANNEL_ID)]["type"] == 0
        callback = await loopback.interact(payload)
        assert callback.body == {"type": 5, "data": {"flags": 64}}
        followup = await loopback.wait_for(
            lambda r: r.route == FOLLOWUP_ROUTE, since=callback.index
        )

    post = loopback.find("POST", CHANNEL_MESSAGES_ROUTE)[0]
    assert post.path == f"/channels/{OTHER_CHANNEL_ID}/messages"
    assert post.body["content"] == "hi"
    assert [(f.field_name, f.filename) for f in post.files] == [("files[0]", "notes.txt")]
    posted_id = int(post.response["id"])
    posted = loopback.messages[posted_id]
    assert posted["content"] == "hi (edited)"
    assert [a["filename"] for a in posted["attachments"]] == ["notes.txt"]
    assert loopback.uploads[int(posted["attachments"][0]["id"])] == b"notes for hi"
    assert loopback.find("PATCH", CHANNEL_MESSAGE_ROUTE)[0].body["content"] == "hi (edited)"

    record = loopback.interaction(payload)
    assert record.original_message_id is not None
    original = loopback.messages[record.original_message_id]
    assert original["content"] == f"posted {posted_id}"
    assert original["flags"] == 64  # ephemeral, no longer "loading"
    assert loopback.find("PATCH", ORIGINAL_ROUTE)[0].status == 200
    assert followup.query["wait"] == "1" and followup.body["flags"] == 64
    assert loopback.messages[int(followup.response["id"])]["content"] == "done"


async def test_user_option_gets_resolved_member(loopback: LoopbackDiscord) -> None:
    alice = setup_guild(loopback)
    bob = loopback.member(BOB_ID, "bob", nick="Bobby")
    bot = LoopbackTestBot()
    async with running(bot, loopback):
        payload = loopback.slash_command(
            GUILD_ID, CHANNEL_ID, alice, "quiz", "whois", {"member": bob}
        )
        assert set(payload["data"]["resolved"]) == {"users", "members"}
        callback = await loopback.interact(payload)
    assert callback.body["data"]["content"] == f"Bobby ({BOB_ID})"
    assert callback.body["data"]["flags"] == 64
    message_id = int(callback.response["resource"]["message"]["id"])
    assert loopback.messages[message_id]["flags"] == 64


async def test_autocomplete(loopback: LoopbackDiscord) -> None:
    alice = setup_guild(loopback)
    bot = LoopbackTestBot()
    async with running(bot, loopback):
        payload = loopback.autocomplete(
            GUILD_ID, CHANNEL_ID, alice, "quiz", "ask", {"topic": "seq"}, focused="topic"
        )
        callback = await loopback.interact(payload)
    assert callback.body["type"] == 8
    expected = [{"name": "sequence parallelism", "value": "sequence parallelism"}]
    assert callback.body["data"]["choices"] == expected
    assert loopback.interaction(payload).choices == expected


async def test_fault_injection_and_permission_overwrites(loopback: LoopbackDiscord) -> None:
    """429 is retried by discord.py itself; 403 (injected or from an overwrite) reaches the bot."""
    alice = setup_guild(loopback)
    bot = LoopbackTestBot()

    async def post(channel_id: int) -> str:
        payload = loopback.slash_command(
            GUILD_ID, CHANNEL_ID, alice, "quiz", "post", {"channel": channel_id, "text": "x"}
        )
        callback = await loopback.interact(payload)
        await loopback.wait_for(lambda r: r.route == ORIGINAL_ROUTE, since=callback.index)
        record = loopback.interaction(payload)
        assert record.original_message_id is not None
        return str(loopback.messages[record.original_message_id]["content"])

    async with running(bot, loopback):
        loopback.fail_next("POST", CHANNEL_MESSAGES_ROUTE, 429)
        assert (await post(OTHER_CHANNEL_ID)).startswith("posted ")
        assert statuses(loopback.find("POST", CHANNEL_MESSAGES_ROUTE)) == [429, 200]

        loopback.fail_next(
            "POST", CHANNEL_MESSAGES_ROUTE, 403, {"code": 50013, "message": "Missing Permissions"}
        )
        assert await post(OTHER_CHANNEL_ID) == "cannot post: 50013"

        loopback.set_channel_permissions(
            OTHER_CHANNEL_ID, loopback.bot_user_id, deny=Perm.SEND_MESSAGES
        )
        payload = loopback.slash_command(
            GUILD_ID, OTHER_CHANNEL_ID, alice, "quiz", "whois", {"member": alice}
        )
        assert not int(payload["app_permissions"]) & Perm.SEND_MESSAGES
        assert await post(OTHER_CHANNEL_ID) == "cannot post: 50013"
        guild = bot.get_guild(GUILD_ID)
        assert guild is not None
        channel = guild.get_channel(OTHER_CHANNEL_ID)
        assert channel is not None and not channel.permissions_for(guild.me).send_messages
    assert statuses(loopback.find("POST", CHANNEL_MESSAGES_ROUTE)) == [429, 200, 403, 403]


@pytest.mark.parametrize("abort", [False, True], ids=["close-4000", "tcp-abort"])
async def test_drop_and_resume_replays_missed_events(
    loopback: LoopbackDiscord, abort: bool
) -> None:
    alice = setup_guild(loopback)
    bot = LoopbackTestBot()
    async with running(bot, loopback):
        await loopback.drop_connections(abort=abort)
        # Dispatched while the bot is disconnected: buffered and replayed on RESUME.
        callback = await loopback.interact(
            loopback.slash_command(GUILD_ID, CHANNEL_ID, alice, "ping")
        )
        assert callback.body["data"]["content"] == "pong"
        await loopback.wait_connected(resumes=1)
        async with asyncio.timeout(5):
            await bot.resumed.wait()
    assert (loopback.identify_count, loopback.resume_count) == (1, 1)


async def test_invalidated_session_reidentifies(loopback: LoopbackDiscord) -> None:
    alice = setup_guild(loopback)
    bot = LoopbackTestBot()
    async with running(bot, loopback):
        loopback.invalidate_sessions()
        await loopback.drop_connections()
        await loopback.wait_connected()
        callback = await loopback.interact(
            loopback.slash_command(GUILD_ID, CHANNEL_ID, alice, "ping")
        )
        assert callback.body["data"]["content"] == "pong"
    assert (loopback.identify_count, loopback.resume_count) == (2, 0)


async def test_rest_reads_parse_in_discord_py(loopback: LoopbackDiscord) -> None:
    """GET guild/channel/member/messages and DELETE answer in shapes discord.py parses."""
    setup_guild(loopback)
    bot = LoopbackTestBot()
    async with running(bot, loopback):
        guild = await bot.fetch_guild(GUILD_ID)
        assert guild.name == "Test Guild" and guild.owner_id is not None
        channel = await bot.fetch_channel(CHANNEL_ID)
        assert isinstance(channel, discord.TextChannel) and channel.guild.id == GUILD_ID
        member = await guild.fetch_member(ALICE_ID)
        assert member.name == "alice"
        with pytest.raises(discord.NotFound):
            await guild.fetch_member(BOB_ID)
        sent = await channel.send("first", embed=discord.Embed(title="Q1", description="?"))
        fetched = await channel.fetch_message(sent.id)
        assert fetched.embeds[0].title == "Q1" and fetched.author.id == loopback.bot_user_id
        assert [m.id async for m in channel.history(limit=5)] == [sent.id]
        await fetched.delete()
        with pytest.raises(discord.NotFound):
            await channel.fetch_message(sent.id)
    assert sent.id in loopback.deleted_messages and sent.id not in loopback.messages


async def test_real_validator_catches_misspelt_keys(loopback: LoopbackDiscord) -> None:
    """The fixture wires the OpenAPI validator in (skipped when the spec is absent)."""
    if loopback.validator is None:
        pytest.skip("Discord's OpenAPI spec is absent; body validation is off")
    setup_guild(loopback)
    async with aiohttp.ClientSession(headers={"Authorization": f"Bot {loopback.token}"}) as session:
        async with session.post(
            f"{loopback.rest_base}/channels/{CHANNEL_ID}/messages", json={"contnet": "typo"}
        ) as response:
            assert response.status == 400  # empty message (the typo hid the content)
    assert any("contnet" in error for error in loopback.body_errors), loopback.body_errors
    loopback.body_errors.clear()  # provoked on purpose; the fixture fails on any


async def test_restarted_bot_handles_buttons_of_the_first(loopback: LoopbackDiscord) -> None:
    """State persists across bots: a second bot handles a click on the first bot's message."""
    alice = setup_guild(loopback)
    async with running(LoopbackTestBot(), loopback):
        callback = await loopback.interact(
            loopback.slash_command(GUILD_ID, CHANNEL_ID, alice, "quiz", "ask", {"topic": "tp"})
        )
    message_id = int(callback.response["resource"]["message"]["id"])

    async with running(LoopbackTestBot(), loopback):
        click = await loopback.interact(loopback.button_click(message_id, "lbq:1:a", alice))
    assert click.body["type"] == 7
    assert loopback.messages[message_id]["content"] == "Q1: alice answered a"
    assert loopback.identify_count == 2
    # Same command ids after the second sync, as on Discord.
    ids = {r.response[0]["id"] for r in loopback.find("PUT", GUILD_COMMANDS)}
    assert len(ids) == 1


async def test_guild_added_while_connected(loopback: LoopbackDiscord) -> None:
    setup_guild(loopback)
    bot = LoopbackTestBot()
    async with running(bot, loopback):
        loopback.add_guild(GUILD_ID + 100, name="Second")
        async with asyncio.timeout(5):
            guild = await bot.joined.get()
        assert (guild.id, guild.name) == (GUILD_ID + 100, "Second")
        assert guild.get_channel(GUILD_ID + 101) is not None


async def test_wrong_token_is_rejected(loopback: LoopbackDiscord) -> None:
    with pytest.raises(discord.LoginFailure):
        async with running(LoopbackTestBot(), loopback, token="not-the-token"):
            pass
    assert statuses(loopback.requests) == [401]


async def test_rest_edge_cases(loopback: LoopbackDiscord) -> None:
    """Exact content type, unknown routes, non-JSON bodies, unknown interactions."""
    auth = {"Authorization": f"Bot {loopback.token}"}
    async with aiohttp.ClientSession(headers=auth) as session:
        async with session.get(f"{loopback.rest_base}/users/@me") as response:
            assert response.headers["Content-Type"] == "application/json"
            assert (await response.json())["bot"] is True
        async with session.get(f"{loopback.rest_base}/no/such/route") as response:
            assert response.status == 404 and (await response.json())["code"] == 0
        async with session.post(
            f"{loopback.rest_base}/channels/1/messages",
            data=b"{not json",
            headers={"Content-Type": "application/json"},
        ) as response:
            assert response.status == 400 and (await response.json())["code"] == 50035
        async with session.post(
            f"{loopback.rest_base}/interactions/1/nope/callback", json={"type": 4, "data": {}}
        ) as response:
            assert response.status == 404 and (await response.json())["code"] == 10062
    assert loopback.unknown_routes == ["GET /no/such/route"]
    assert statuses(loopback.requests) == [200, 404, 400, 404]
    loopback.unknown_routes.clear()  # provoked on purpose; the fixture fails on any

    with pytest.raises(TimeoutError, match="no matching request"):
        await loopback.wait_for(lambda r: r.method == "DELETE", timeout=0.01)


class _RejectEverything:
    """A validator stub: proves each body (and payload_json) reaches the validator."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, Any]] = []

    def route_known(self, method: str, path: str) -> bool:
        return True

    def validate(self, method: str, path: str, body: Any) -> list[str]:
        self.seen.append((method, path, body))
        return [] if body is None else ["rejected by stub"]


async def test_bodies_are_validated() -> None:
    validator = _RejectEverything()
    server = LoopbackDiscord(validator=validator)
    await server.start()
    try:
        auth = {"Authorization": f"Bot {server.token}"}
        server.add_guild(GUILD_ID, channel_ids=(CHANNEL_ID,))
        form = aiohttp.FormData()
        form.add_field("payload_json", json.dumps({"content": "multipart"}))
        form.add_field("files[0]", b"data", filename="a.txt")
        async with aiohttp.ClientSession(headers=auth) as session:
            url = f"{server.rest_base}/channels/{CHANNEL_ID}/messages"
            async with session.post(url, json={"content": "json"}) as response:
                assert response.status == 200  # invalid bodies are still answered normally
            async with session.post(url, data=form) as response:
                assert response.status == 200
    finally:
        await server.close()
    assert [body for _, _, body in validator.seen] == [
        {"content": "json"},
        {"content": "multipart"},
    ]
    assert server.body_errors == [
        f"POST /channels/{CHANNEL_ID}/messages: rejected by stub",
        f"POST /channels/{CHANNEL_ID}/messages: rejected by stub",
    ]


async def test_wait_connected_can_wait_for_the_next_identify(loopback: LoopbackDiscord) -> None:
    """A bot started again identifies anew; `identifies=` waits for exactly that."""
    alice = setup_guild(loopback)
    async with running(LoopbackTestBot(), loopback):
        await loopback.wait_connected(identifies=1)
        with pytest.raises(TimeoutError, match="wanted 2"):
            await loopback.wait_connected(0.05, identifies=2)
    async with running(LoopbackTestBot(), loopback):
        await loopback.wait_connected(identifies=2)
        callback = await loopback.interact(
            loopback.slash_command(GUILD_ID, CHANNEL_ID, alice, "ping")
        )
        assert callback.body["data"]["content"] == "pong"
