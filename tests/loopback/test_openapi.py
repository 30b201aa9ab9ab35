"""Tests for the OpenAPI request-body validator used by the loopback Discord.

The positive cases are built by discord.py 2.7 itself (``Embed.to_dict``,
``View.to_components``, ``CommandTree.sync`` and the payload builders that
``InteractionResponse``, ``Webhook.send``, ``Messageable.send`` and ``Message.edit`` call), so
they show that what the bot really sends is accepted by Discord's published schemas once the
documented relaxations are applied. The negative cases show that the closed schemas catch
what Discord would reject with a 400, and that the messages point at the offending key.

Tests that need the spec skip, with the reason shown by ``-ra``, when it is absent; the
tests of the schema-closing logic use small inline specs and always run.
"""

from __future__ import annotations

import copy
import io
import json
import secrets
import time
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.app_commands import Choice, locale_str
from discord.http import handle_message_parameters
from discord.utils import MISSING
from discord.webhook.async_ import (
    interaction_message_response_params,
    interaction_response_params,
)

from tests.loopback.openapi import SPEC_PATH, OpenAPIValidator, load_validator

APPLICATION_ID = 1_100_000_000_000_000_001
GUILD_ID = 1_100_000_000_000_000_002
CHANNEL_ID = 1_100_000_000_000_000_003
MESSAGE_ID = 1_100_000_000_000_000_004
USER_ID = 1_100_000_000_000_000_005
INTERACTION_ID = 1_100_000_000_000_000_006
TOKEN = "aW50ZXJhY3Rpb246MTEwMDAwMDAwMDAwMDAwMDAwNjp0b2tlbg"

CALLBACK = f"/interactions/{INTERACTION_ID}/{TOKEN}/callback"
FOLLOWUP = f"/webhooks/{APPLICATION_ID}/{TOKEN}"
ORIGINAL = f"/webhooks/{APPLICATION_ID}/{TOKEN}/messages/@original"
CHANNEL_MESSAGES = f"/channels/{CHANNEL_ID}/messages"
CHANNEL_MESSAGE = f"/channels/{CHANNEL_ID}/messages/{MESSAGE_ID}"
CALLBACK_TEMPLATE = "POST /interactions/{interaction_id}/{interaction_token}/callback"

EPHEMERAL = 64


@pytest.fixture(scope="module")
def validator() -> OpenAPIValidator:
    """The validator for the shared spec; skips (visibly, via ``-ra``) when it is absent."""
    loaded = load_validator()
    if loaded is None:
        pytest.skip(
            f"Discord OpenAPI spec not found at {SPEC_PATH} (set DISCORD_API_SPEC to point "
            "at openapi.json): request bodies are NOT checked against Discord's schemas"
        )
    return loaded


def assert_valid(validator: OpenAPIValidator, method: str, path: str, body: Any) -> None:
    """Fail with every problem listed, so a broken payload is fixed in one go."""
    errors = validator.validate(method, path, body)
    assert errors == [], "\n".join(errors)


# -- bodies built by discord.py --------------------------------------------------------------


def quiz_embed(title: str = "Question 3/10: column-parallel linear") -> discord.Embed:
    """An embed shaped like the quiz question the bot posts."""
    embed = discord.Embed(
        title=title,
        description="In Megatron-LM's MLP, which weight is split by columns?",
        colour=discord.Colour.blurple(),
        url="https://example.com/tp/mlp",
        timestamp=discord.utils.utcnow(),
    )
    embed.set_author(name="tpquiz", icon_url="https://example.com/icon.png")
    embed.add_field(name="Topic", value="Tensor parallelism", inline=True)
    embed.add_field(name="Difficulty", value="medium", inline=True)
    embed.set_footer(text="Answer within 60 s", icon_url="https://example.com/clock.png")
    embed.set_thumbnail(url="https://example.com/thumb.png")
    return embed


def answer_view(*, disabled: bool = False, label: str = "A") -> discord.ui.View:
    """Answer buttons, a link button and a select, like a quiz question message."""
    view = discord.ui.View(timeout=None)
    styles = [discord.ButtonStyle.primary] + [discord.ButtonStyle.secondary] * 3
    for text, style in zip([label, "B", "C", "D"], styles, strict=True):
        view.add_item(
            discord.ui.Button(
                label=text, style=style, custom_id=f"quiz:answer:{text[:8]}", disabled=disabled
            )
        )
    view.add_item(discord.ui.Button(label="Explain", url="https://example.com/tp", emoji="📖"))
    view.add_item(
        discord.ui.Select(
            custom_id="quiz:topic",
            placeholder="Pick a topic",
            options=[
                discord.SelectOption(label="Megatron", value="megatron", default=True),
                discord.SelectOption(label="Sequence parallel", value="sp", emoji="🧵"),
            ],
            disabled=disabled,
        )
    )
    return view


def callback_type4() -> dict[str, Any]:
    """What ``InteractionResponse.send_message(embed=, view=, ephemeral=True)`` posts."""
    flags = discord.MessageFlags._from_value(0)
    flags.ephemeral = True
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.channel_message.value,
        content="Here is your question:",
        embeds=[quiz_embed()],
        view=answer_view(),
        flags=flags,
        allowed_mentions=discord.AllowedMentions.none(),
        previous_allowed_mentions=None,
    )
    assert params.payload is not None
    return params.payload


class QuizTranslator(app_commands.Translator):
    """Provides a few French and German strings so the sync body carries localizations."""

    TABLE: dict[discord.Locale, dict[str, str]] = {
        discord.Locale.french: {"quiz": "quiz", "start": "commencer", "Start a quiz": "Lancer"},
        discord.Locale.german: {"quiz": "quiz", "start": "starten", "Start a quiz": "Starten"},
    }

    async def translate(
        self,
        string: locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        return self.TABLE.get(locale, {}).get(string.message)


async def synced_commands(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Run the real ``CommandTree.sync()`` and capture the PUT body it would send."""
    client = discord.Client(intents=discord.Intents.default(), application_id=APPLICATION_ID)
    tree = app_commands.CommandTree(client)
    await tree.set_translator(QuizTranslator())

    quiz = app_commands.Group(
        name=locale_str("quiz"),
        description=locale_str("Tensor parallelism quizzes"),
        default_permissions=discord.Permissions(manage_guild=True),
        guild_only=True,
        nsfw=False,
    )

    @quiz.command(name=locale_str("start"), description=locale_str("Start a quiz"))
    @app_commands.describe(topic="What to be quizzed on", questions="How many questions")
    @app_commands.choices(
        topic=[Choice(name="Megatron MLP", value="mlp"), Choice(name="Attention", value="attn")]
    )
    async def start(
        interaction: discord.Interaction,
        topic: str,
        questions: app_commands.Range[int, 1, 20] = 5,
    ) -> None:
        """Never invoked; only its signature matters."""

    @quiz.command(name="stop", description="Stop the running quiz")
    async def stop(interaction: discord.Interaction, channel: discord.TextChannel) -> None:
        """Never invoked; only its signature matters."""

    board = app_commands.Group(name="board", description="Leaderboards", parent=quiz)

    @board.command(name="show", description="Show the leaderboard")
    async def show(
        interaction: discord.Interaction, user: discord.Member | None = None, top: float = 10.0
    ) -> None:
        """Never invoked; only its signature matters."""

    @app_commands.command(name="daily", description="Today's question", nsfw=False)
    @app_commands.allowed_contexts(guilds=True, dms=True)
    async def daily(interaction: discord.Interaction) -> None:
        """Never invoked; only its signature matters."""

    @app_commands.context_menu(name="Quiz stats")
    async def stats(interaction: discord.Interaction, member: discord.Member) -> None:
        """Never invoked; only its signature matters."""

    tree.add_command(quiz)
    tree.add_command(daily)
    tree.add_command(stats)

    captured: list[list[dict[str, Any]]] = []

    async def bulk_upsert(application_id: int, payload: list[dict[str, Any]]) -> list[Any]:
        assert application_id == APPLICATION_ID
        captured.append(payload)
        return []

    monkeypatch.setattr(client.http, "bulk_upsert_global_commands", bulk_upsert)
    await tree.sync()
    await client.close()
    assert len(captured) == 1
    return captured[0]


# -- positive cases --------------------------------------------------------------------------


async def test_command_sync_put_body_validates(
    validator: OpenAPIValidator, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = await synced_commands(monkeypatch)
    quiz = next(c for c in body if c["name"] == "quiz")
    # The body really exercises what the brief asks for: nsfw, permissions, localizations,
    # a subcommand group, and options nested three levels deep.
    assert quiz["nsfw"] is False
    assert quiz["default_member_permissions"] == discord.Permissions(manage_guild=True).value
    assert quiz["name_localizations"] == {"fr": "quiz", "de": "quiz"}
    start = next(o for o in quiz["options"] if o["name"] == "start")
    assert start["name_localizations"] == {"fr": "commencer", "de": "starten"}
    assert {o["type"] for o in quiz["options"]} == {1, 2}
    assert_valid(validator, "PUT", f"/applications/{APPLICATION_ID}/commands", body)
    guild_path = f"/applications/{APPLICATION_ID}/guilds/{GUILD_ID}/commands"
    assert_valid(validator, "PUT", guild_path, body)
    # One command on its own is a valid create (POST) body too.
    assert_valid(validator, "POST", f"/applications/{APPLICATION_ID}/commands", quiz)


def test_callback_type4_with_embeds_components_and_ephemeral_flag(
    validator: OpenAPIValidator,
) -> None:
    body = callback_type4()
    assert body["type"] == 4
    assert body["data"]["flags"] == EPHEMERAL
    assert body["data"]["embeds"][0]["flags"] == 0  # sent by Embed.to_dict, not in the spec
    assert_valid(validator, "POST", CALLBACK, body)


@pytest.mark.parametrize("ephemeral", [True, False])
def test_callback_type5_deferred(validator: OpenAPIValidator, ephemeral: bool) -> None:
    # InteractionResponse.defer() builds exactly this: data only when ephemeral/thinking.
    data = {"flags": EPHEMERAL} if ephemeral else None
    params = interaction_response_params(
        type=discord.InteractionResponseType.deferred_channel_message.value, data=data
    )
    assert_valid(validator, "POST", CALLBACK, params.payload)


def test_callback_type6_deferred_update(validator: OpenAPIValidator) -> None:
    params = interaction_response_params(
        type=discord.InteractionResponseType.deferred_message_update.value
    )
    assert_valid(validator, "POST", CALLBACK, params.payload)


def test_callback_type7_update_message(validator: OpenAPIValidator) -> None:
    # What InteractionResponse.edit_message(embed=, view=) posts; it carries "tts".
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.message_update.value,
        content="Answer locked in.",
        embed=quiz_embed(),
        view=answer_view(disabled=True),
        previous_allowed_mentions=discord.AllowedMentions.none(),
    )
    body = params.payload
    assert body is not None
    assert body["data"]["tts"] is False
    assert_valid(validator, "POST", CALLBACK, body)


def test_followup_webhook_post(validator: OpenAPIValidator) -> None:
    # Webhook.send() as used by Interaction.followup.send(embed=, view=, ephemeral=True).
    flags = discord.MessageFlags._from_value(0)
    flags.ephemeral = True
    with handle_message_parameters(
        content="Time is up!",
        username=MISSING,
        avatar_url=MISSING,
        tts=False,
        embeds=[quiz_embed("Results")],
        flags=flags,
        view=answer_view(disabled=True),
        thread_name=MISSING,
        allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=USER_ID)]),
        previous_allowed_mentions=discord.AllowedMentions.none(),
        applied_tags=MISSING,
        poll=MISSING,
    ) as params:
        body = params.payload
    assert body is not None
    assert body["allowed_mentions"]["users"] == [USER_ID]  # an int snowflake
    assert validator.route_template("POST", FOLLOWUP) == "/webhooks/{webhook_id}/{webhook_token}"
    assert_valid(validator, "POST", FOLLOWUP, body)


def test_followup_with_file_payload_json(validator: OpenAPIValidator) -> None:
    # With a file, discord.py sends multipart with the JSON in the payload_json part and
    # integer attachment ids (0, 1, ...) that only the relaxed SnowflakeType accepts.
    chart = discord.File(io.BytesIO(b"\x89PNG fake"), filename="chart.png", description="Scores")
    with handle_message_parameters(content="Scores", file=chart, tts=False) as params:
        assert params.payload is None and params.multipart
        part = params.multipart[0]
        assert part["name"] == "payload_json"
        payload_json = json.loads(part["value"])
    assert payload_json["attachments"][0]["id"] == 0
    assert_valid(validator, "POST", FOLLOWUP, payload_json)
    errors = validator.validate(
        "POST", FOLLOWUP, payload_json, content_type="multipart/form-data; boundary=x"
    )
    assert errors == []


def test_edit_original_response_patch_with_tts(validator: OpenAPIValidator) -> None:
    # Interaction.edit_original_response(): handle_message_parameters always adds "tts".
    with handle_message_parameters(
        content="Final answer: B",
        attachments=MISSING,
        embed=quiz_embed("Solution"),
        view=None,
        allowed_mentions=MISSING,
        previous_allowed_mentions=discord.AllowedMentions.none(),
    ) as params:
        body = params.payload
    assert body is not None
    assert body["tts"] is False
    assert body["components"] == []
    assert (
        validator.route_template("PATCH", ORIGINAL)
        == "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
    )
    assert_valid(validator, "PATCH", ORIGINAL, body)


def test_channel_message_post(validator: OpenAPIValidator) -> None:
    # Messageable.send(embed=, view=, allowed_mentions=, reference=, mention_author=False).
    reference = discord.MessageReference(
        message_id=MESSAGE_ID, channel_id=CHANNEL_ID, guild_id=GUILD_ID, fail_if_not_exists=False
    )
    with handle_message_parameters(
        content=f"<@{USER_ID}> today's question is up",
        tts=False,
        embeds=[quiz_embed(), quiz_embed("Hint")],
        nonce=secrets.randbits(64),
        allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
        message_reference=reference.to_message_reference_dict(),
        previous_allowed_mentions=discord.AllowedMentions.none(),
        mention_author=False,
        view=answer_view(),
    ) as params:
        body = params.payload
    assert body is not None
    assert set(body) >= {"embeds", "components", "allowed_mentions", "message_reference"}
    assert_valid(validator, "POST", CHANNEL_MESSAGES, body)


def test_channel_message_patch(validator: OpenAPIValidator) -> None:
    # Message.edit(embed=, view=): also carries "tts", which MessageEditRequestPartial lacks.
    with handle_message_parameters(
        content=None,
        embed=quiz_embed("Question closed"),
        attachments=MISSING,
        view=answer_view(disabled=True),
        allowed_mentions=MISSING,
        previous_allowed_mentions=None,
    ) as params:
        body = params.payload
    assert body is not None
    assert body["tts"] is False
    assert_valid(validator, "PATCH", CHANNEL_MESSAGE, body)


def test_multipart_schema_composition_accepts_real_payload(validator: OpenAPIValidator) -> None:
    # The multipart schema is allOf[MessageCreateRequest, {files[n]}]: the closure must sit on
    # the allOf, or MessageCreateRequest's own keys and the files[n] keys would fight.
    with handle_message_parameters(content="hi", embed=quiz_embed(), view=answer_view()) as p:
        body = p.payload
    assert body is not None
    multipart = "multipart/form-data"
    assert validator.validate("POST", CHANNEL_MESSAGES, body, content_type=multipart) == []
    with_file_key = {**body, "files[0]": "binary"}
    assert validator.validate("POST", CHANNEL_MESSAGES, with_file_key, content_type=multipart) == []
    misspelt = {**body, "embedz": []}
    errors = validator.validate("POST", CHANNEL_MESSAGES, misspelt, content_type=multipart)
    assert len(errors) == 1 and "embedz: unexpected key" in errors[0], errors
    assert "did you mean 'embeds'" in errors[0]


# -- negative cases --------------------------------------------------------------------------


def test_misspelt_embed_key_is_rejected(validator: OpenAPIValidator) -> None:
    body = callback_type4()
    embed = body["data"]["embeds"][0]
    embed["titel"] = embed.pop("title")
    errors = validator.validate("POST", CALLBACK, body)
    assert errors == [
        f"{CALLBACK_TEMPLATE}: data.embeds[0].titel: unexpected key 'titel' "
        "(not allowed in RichEmbed; did you mean 'title'?)"
    ]


def test_embed_title_over_256_is_rejected(validator: OpenAPIValidator) -> None:
    body = callback_type4()
    body["data"]["embeds"] = [quiz_embed("x" * 300).to_dict()]
    errors = validator.validate("POST", CALLBACK, body)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{CALLBACK_TEMPLATE}: data.embeds[0].title: 'xxx")
    assert errors[0].endswith("is too long: 300 characters (maxLength 256)")


def test_button_label_over_80_is_rejected_at_the_label(validator: OpenAPIValidator) -> None:
    body = callback_type4()
    body["data"]["components"] = answer_view(label="L" * 81).to_components()
    errors = validator.validate("POST", CALLBACK, body)
    # The row and the button are picked by their "type", so the message names the label
    # instead of "not valid under any of the given schemas" or a select menu's errors.
    assert len(errors) == 1, errors
    assert "data.components[0].components[0].label: 'LLL" in errors[0]
    assert "(maxLength 80)" in errors[0]


def test_wrong_callback_type_is_rejected(validator: OpenAPIValidator) -> None:
    body = callback_type4()
    body["type"] = 42
    errors = validator.validate("POST", CALLBACK, body)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{CALLBACK_TEMPLATE}: type: 42 is not a valid type here")
    assert "4/5 (CreateMessageInteractionCallbackRequest)" in errors[0]


def test_callback_data_is_checked_against_the_branch_its_type_selects(
    validator: OpenAPIValidator,
) -> None:
    body = callback_type4()
    body["type"] = 9  # a modal: message data lacks custom_id/title and has foreign keys
    errors = validator.validate("POST", CALLBACK, body)
    assert f"{CALLBACK_TEMPLATE}: data: missing required keys 'custom_id', 'title'" in errors
    assert any("data.embeds: unexpected key 'embeds'" in e for e in errors), errors
    assert not any("Autocomplete" in e or "Pong" in e for e in errors), errors


def test_wrong_value_types_and_enums(validator: OpenAPIValidator) -> None:
    body = callback_type4()
    body["data"]["content"] = 5
    body["data"]["components"][0]["components"][0]["style"] = 9
    body["data"]["allowed_mentions"] = {"users": ["not-a-snowflake"]}
    errors = validator.validate("POST", CALLBACK, body)
    assert f"{CALLBACK_TEMPLATE}: data.content: 5 is not of type string or null" in errors
    assert any(
        e.startswith(f"{CALLBACK_TEMPLATE}: data.components[0].components[0].style: 9 is not")
        and "5 (LINK)" in e
        for e in errors
    ), errors
    assert any(
        "data.allowed_mentions.users[0]: 'not-a-snowflake' does not match" in e for e in errors
    )


def test_relaxations_are_scoped(validator: OpenAPIValidator) -> None:
    # "nsfw" is only allowed on commands and "tts" only where discord.py sends it.
    with handle_message_parameters(content="x") as params:
        body = params.payload
    assert body is not None
    errors = validator.validate("PATCH", CHANNEL_MESSAGE, {**body, "nsfw": False})
    assert len(errors) == 1, errors
    assert errors[0].startswith(
        "PATCH /channels/{channel_id}/messages/{message_id}: nsfw: unexpected key 'nsfw' "
        "(not allowed in MessageEditRequestPartial; allowed: "
    )
    assert "tts" in errors[0]  # the relaxation is listed among the allowed keys
    # Snowflakes may be integers now, but not negative ones or non-digit strings.
    mentions = {"allowed_mentions": {"users": [USER_ID, str(USER_ID), -1, "01"]}}
    assert validator.validate("POST", CHANNEL_MESSAGES, mentions) == [
        "POST /channels/{channel_id}/messages: allowed_mentions.users[2]: "
        "-1 is less than the minimum 0",
        "POST /channels/{channel_id}/messages: allowed_mentions.users[3]: "
        "'01' does not match pattern '^(0|[1-9][0-9]*)$'",
    ]
    assert validator.notes == []  # every relaxation found its schema


def test_unknown_routes_and_bodyless_operations(validator: OpenAPIValidator) -> None:
    assert validator.route_known("POST", CHANNEL_MESSAGES)
    assert validator.route_known("post", f"/api/v10{CHANNEL_MESSAGES}?wait=1")
    assert not validator.route_known("POST", f"/channels/{CHANNEL_ID}/mesages")
    assert not validator.route_known("GET", "/totally/unknown")
    assert not validator.route_known("DELETE", CALLBACK)  # known path, unknown method
    assert validator.route_template("GET", f"/channels/{CHANNEL_ID}/messages/pins") == (
        "/channels/{channel_id}/messages/pins"
    )
    errors = validator.validate("POST", "/totally/unknown", {})
    assert errors == ["POST /totally/unknown: no such route in Discord's OpenAPI spec"]
    typing = f"/channels/{CHANNEL_ID}/typing"
    assert validator.validate("POST", typing, None) == []
    assert validator.validate("POST", typing, {"x": 1}) == [
        "POST /channels/{channel_id}/typing: (body): this operation takes no request body, "
        'got {"x": 1}'
    ]
    # Sticker upload is multipart-only: with no JSON body there is nothing to check.
    assert validator.validate("POST", f"/guilds/{GUILD_ID}/stickers", None) == []
    assert validator.validate("POST", CALLBACK, None) == [
        f"{CALLBACK_TEMPLATE}: (body): missing request body"
    ]


async def test_validation_is_fast_and_cached(
    validator: OpenAPIValidator, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_validator() is validator
    cases = [
        ("POST", CALLBACK, callback_type4()),
        ("PUT", f"/applications/{APPLICATION_ID}/commands", await synced_commands(monkeypatch)),
    ]
    for method, path, body in cases:
        assert validator.validate(method, path, body) == []  # builds and caches the validator
        # Best of five batches, so a busy machine does not make the test flaky.
        batches = []
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(5):
                validator.validate(method, path, body)
            batches.append((time.perf_counter() - started) * 1000 / 5)
        assert min(batches) < 10, f"{method} {path}: {min(batches):.1f} ms per validation"


# -- the schema-closing logic, on small inline specs (no shared spec needed) -----------------


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "post": {
            "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}
        }
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _tagged(tag: str, **props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"type": {"type": "string", "const": tag}, **props},
        "required": ["type"],
    }


TOY_SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/base": _body(_ref("Base")),
        "/composed": _body(
            {
                "allOf": [
                    _ref("Base"),
                    {"type": "object", "properties": {"extra": {"type": "string"}}},
                ]
            }
        ),
        "/nested": _body(_ref("Composed")),
        "/mixed": _body(
            {
                "type": "object",
                "properties": {"common": {"type": "string"}},
                "anyOf": [_ref("A"), _ref("B")],
            }
        ),
        "/union": _body({"anyOf": [_ref("A"), _ref("B")]}),
        "/free": _body({"allOf": [_ref("Base"), {"type": "object", "additionalProperties": True}]}),
        "/map": _body({"type": "object", "additionalProperties": {"type": "integer"}}),
        "/things/{thing_id}": _body(_ref("Base")),
        "/things/special": _body(_ref("A")),
    },
    "components": {
        "schemas": {
            "Base": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "inner": _ref("Inner")},
                "required": ["name"],
            },
            "Inner": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "Composed": {"allOf": [_ref("Base"), _ref("Inner")]},
            "A": _tagged("a", a={"type": "integer"}),
            "B": _tagged("b", b={"type": "string", "maxLength": 3}),
        }
    },
}


@pytest.fixture(scope="module")
def toy() -> OpenAPIValidator:
    return OpenAPIValidator(copy.deepcopy(TOY_SPEC), source="toy")


def test_plain_object_schema_is_closed(toy: OpenAPIValidator) -> None:
    assert toy.validate("POST", "/base", {"name": "n", "inner": {"x": 1}}) == []
    assert toy.validate("POST", "/base", {"name": "n", "nmae": "n"}) == [
        "POST /base: nmae: unexpected key 'nmae' (not allowed in Base; did you mean 'name'?)"
    ]
    assert toy.validate("POST", "/base", {"name": "n", "inner": {"y": 1}}) == [
        "POST /base: inner.y: unexpected key 'y' (not allowed in Inner; allowed: x)"
    ]


def test_allof_is_closed_at_the_composition_not_at_its_members(toy: OpenAPIValidator) -> None:
    # Closing Base inside the allOf would reject "extra"; closing nothing would accept typos.
    assert toy.validate("POST", "/composed", {"name": "n", "extra": "e"}) == []
    assert toy.validate("POST", "/composed", {"name": "n", "extr": "e"}) == [
        "POST /composed: extr: unexpected key 'extr' (not allowed; did you mean 'extra'?)"
    ]
    # Objects nested inside a composed member stay closed.
    errors = toy.validate("POST", "/composed", {"name": "n", "inner": {"y": 1}})
    assert errors == [
        "POST /composed: inner.y: unexpected key 'y' (not allowed in Inner; allowed: x)"
    ]
    # Base is still closed where it is used on its own.
    assert toy.validate("POST", "/base", {"name": "n", "extra": "e"})
    # A named schema made of refs only is closed as a whole, and still requires Base's keys.
    assert toy.validate("POST", "/nested", {"name": "n", "x": 2}) == []
    assert toy.validate("POST", "/nested", {"x": 2}) == [
        "POST /nested: (body): missing required key 'name'"
    ]
    assert toy.validate("POST", "/nested", {"name": "n", "z": 2}) == [
        "POST /nested: z: unexpected key 'z' (not allowed in Composed; allowed: inner, name, x)"
    ]


def test_union_next_to_properties_is_closed_at_the_parent(toy: OpenAPIValidator) -> None:
    assert toy.validate("POST", "/mixed", {"common": "c", "type": "a", "a": 1}) == []
    assert toy.validate("POST", "/mixed", {"common": "c", "type": "b", "b": "xy"}) == []
    errors = toy.validate("POST", "/mixed", {"common": "c", "type": "a", "b": "xy"})
    assert errors and all("b: unexpected key 'b'" in e for e in errors), errors


def test_union_errors_follow_the_type_discriminator(toy: OpenAPIValidator) -> None:
    assert toy.validate("POST", "/union", {"type": "b", "b": "abcd"}) == [
        "POST /union: b: 'abcd' is too long: 4 characters (maxLength 3)"
    ]
    assert toy.validate("POST", "/union", {"type": "c"}) == [
        "POST /union: type: 'c' is not a valid type here; expected 'a' (A), 'b' (B)"
    ]


def test_free_form_objects_stay_open(toy: OpenAPIValidator) -> None:
    assert toy.validate("POST", "/free", {"name": "n", "anything": 1}) == []
    assert toy.validate("POST", "/map", {"en-US": 1, "fr": 2}) == []
    assert toy.validate("POST", "/map", {"fr": "x"}) == [
        "POST /map: fr: 'x' is not of type integer"
    ]


def test_literal_segments_win_over_parameters(toy: OpenAPIValidator) -> None:
    assert toy.route_template("POST", "/things/special") == "/things/special"
    assert toy.route_template("POST", "/things/123") == "/things/{thing_id}"
    assert toy.route_template("POST", "/things/123/") == "/things/{thing_id}"
    assert toy.route_template("GET", "/things/123") is None


def test_missing_spec_gives_none(tmp_path: Path) -> None:
    assert load_validator(tmp_path / "absent.json") is None
