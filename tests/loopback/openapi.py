"""Check REST request bodies against Discord's own OpenAPI description (v10).

The loopback Discord and the tests use this to prove that every request the bot makes
through discord.py would be accepted by the real API, instead of trusting hand-written
fakes. The spec lives outside the project (``../shared/discord-api-spec/openapi.json``,
overridable with ``DISCORD_API_SPEC``) and is never copied in; callers get ``None`` from
:func:`load_validator` when it is absent and must say that they skipped the check.

The published spec is both too loose and, in a few places, too strict for that purpose,
so it is adjusted once, in memory, before use (see ``/work/shared/discord-api-spec/README.md``):

* ``SnowflakeType`` accepts integers as well as digit strings: discord.py sends some ids
  (``allowed_mentions.users``, attachment ids in ``payload_json``) as integers.
* Keys that discord.py 2.7 sends but the spec omits are declared: ``nsfw`` on command
  bodies, ``tts`` on message/webhook edits and on the type-7 callback, ``flags`` on embeds.
* Every object schema that declares ``properties`` is closed so a misspelt key fails instead
  of being ignored: with ``unevaluatedProperties: false`` where the schema composes others,
  and with the equivalent (there) but much cheaper ``additionalProperties: false`` where it
  does not. ``unevaluatedProperties`` sees the keys of the in-place subschemas that
  *passed*, but a closed ``allOf`` member never sees its siblings' keys, so members of
  compositions are replaced by open copies and the composing schema is closed instead.
* Query strings are never validated (discord.py sends ``1``/``0`` for booleans).

Error strings name the operation, a JSON path into the body and the problem, e.g.
``POST /interactions/{interaction_id}/{interaction_token}/callback: data.embeds[0].title:
'xxxx...' is too long: 300 characters (maxLength 256)``. Unions (``anyOf``/``oneOf``) are
reported through the branch selected by the body's ``type`` discriminator, so a bad button
label is reported at the label rather than as "not valid under any of the given schemas".
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry
from referencing.jsonschema import DRAFT202012

__all__ = ["SPEC_PATH", "OpenAPIValidator", "load_validator"]

#: Environment variable that points at another copy of ``openapi.json``.
SPEC_ENV_VAR = "DISCORD_API_SPEC"

_DEFAULT_SPEC_PATH = (
    Path(__file__).resolve().parents[3] / "shared" / "discord-api-spec" / "openapi.json"
)


def _spec_path_from_env() -> Path:
    """Where the spec is expected: ``$DISCORD_API_SPEC`` if set, else the shared copy."""
    override = os.environ.get(SPEC_ENV_VAR)
    return Path(override).expanduser() if override else _DEFAULT_SPEC_PATH


#: The spec location as resolved at import time (used in skip messages).
SPEC_PATH: Path = _spec_path_from_env()

# Base URI under which the (adjusted) spec document is registered for ``$ref`` resolution.
_SPEC_URI = "urn:discord-api-spec:openapi.json"

# Marks each component schema with its name so error messages can say "not in RichEmbed".
_NAME_KEY = "x-tpquiz-schema-name"

_NULLABLE_BOOL: dict[str, Any] = {"type": ["boolean", "null"]}

#: Keys discord.py 2.7 sends that the spec does not declare (schema name -> properties).
#: Discord accepts and ignores them; without these, closing the schemas would reject them.
EXTRA_PROPERTIES: dict[str, dict[str, dict[str, Any]]] = {
    # app_commands.Command/Group/ContextMenu.to_dict() always include "nsfw".
    "ApplicationCommandCreateRequest": {"nsfw": _NULLABLE_BOOL},
    "ApplicationCommandUpdateRequest": {"nsfw": _NULLABLE_BOOL},
    "ApplicationCommandPatchRequestPartial": {"nsfw": _NULLABLE_BOOL},
    # http.handle_message_parameters() always sets "tts" (also for edits) ...
    "MessageEditRequestPartial": {"tts": _NULLABLE_BOOL},
    "IncomingWebhookUpdateRequestPartial": {"tts": _NULLABLE_BOOL},
    # ... and so does interaction_message_response_params() for the type-7 callback.
    "IncomingWebhookUpdateForInteractionCallbackRequestPartial": {"tts": _NULLABLE_BOOL},
    # Embed.to_dict() always includes "flags".
    "RichEmbed": {"flags": {"type": ["integer", "null"], "minimum": 0}},
}

# Keywords whose value is a subschema / a list of subschemas / a name -> subschema map.
_SCHEMA_KEYWORDS = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "contentSchema",
)
_SCHEMA_LIST_KEYWORDS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "dependentSchemas", "$defs")
_IN_PLACE_APPLICATORS = (
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "$ref",
    "$dynamicRef",
    "dependentSchemas",
)
_OPENNESS_KEYWORDS = ("additionalProperties", "patternProperties", "unevaluatedProperties")

# Media types tried, in order, when the caller does not name one.
_MEDIA_PREFERENCE = ("application/json", "multipart/form-data", "application/x-www-form-urlencoded")

_HTTP_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_API_PREFIX = re.compile(r"^/api(?:/v\d+)?(?=/)")

# Outcome of _kind(): whether an object schema can be closed with unevaluatedProperties.
_CLOSABLE = "closable"  # declares properties and nothing lets extra keys in
_FREE = "free"  # deliberately open (additionalProperties, a bare {"type": "object"}, ...)
_NONE = "none"  # not an object schema


@dataclass(frozen=True)
class _Route:
    """One path template of the spec, compiled for matching concrete request paths."""

    template: str
    pattern: re.Pattern[str]
    # One entry per segment: 0 for a literal segment, 1 for a parameter. Lower sorts first,
    # so "/messages/@original" wins over "/messages/{message_id}" like Discord's router.
    specificity: tuple[int, ...]
    methods: frozenset[str]


@dataclass(frozen=True)
class _BodyCheck:
    """The cached validator for one operation's request body."""

    validator: Draft202012Validator
    pointer: str
    media: str


@dataclass(frozen=True)
class _UnionPlan:
    """How to check one ``anyOf``/``oneOf`` quickly and explain its failure precisely.

    ``enum``: every branch is a const (``ButtonStyleTypes`` and friends); ``tagged``: every
    non-null branch pins ``type`` to disjoint values (Discord's discriminated unions);
    ``nullable``: ``[{"type": "null"}, X]``; ``generic``: anything else.
    """

    kind: str
    values: tuple[Any, ...] = ()  # enum: the accepted values
    by_tag: dict[tuple[bool, Any], int] = field(default_factory=dict)  # tagged: tag -> branch
    target: int = -1  # nullable: the index of the non-null branch
    expected: str = ""  # enum/tagged: what would have been accepted, for messages


class _UnionError(ValidationError):
    """A union failure whose message is already final (raised by the dispatching keyword)."""


class OpenAPIValidator:
    """Route matching and request-body validation against an (adjusted) OpenAPI document.

    Build it with :func:`load_validator`; the constructor takes ownership of ``spec`` and
    modifies it in place (relaxations and closing of object schemas). Body validators are
    built lazily, once per (method, path template, media type), because compiling all ~150
    operations up front would cost time that most test runs do not need.

    ``anyOf``/``oneOf`` are replaced by a dispatching implementation: a discriminated union
    is checked against the one branch its ``type`` selects (the others would fail on
    ``type`` anyway, so the result is the same), a nullable reference against the non-null
    branch, and a union of consts by membership. Stock jsonschema evaluates every branch of
    every ``oneOf`` (``oneOf`` must prove the others fail), which made a command-sync body
    take ~35 ms; with dispatch it is a few milliseconds and the errors come straight from
    the selected branch.
    """

    def __init__(self, spec: dict[str, Any], *, source: str = "<dict>") -> None:
        self.source = source
        self._doc = spec
        self.notes: list[str] = []  # relaxations that could not be applied (spec drift)
        _apply_relaxations(spec, self.notes)
        _close_object_schemas(spec)
        self._registry: Registry[Any] = Registry().with_resource(
            _SPEC_URI, DRAFT202012.create_resource(spec)
        )
        self._routes = _compile_routes(spec.get("paths", {}))
        self._checks: dict[tuple[str, str, str | None], _BodyCheck | None] = {}
        self._plans: dict[int, _UnionPlan] = {}
        keywords = Draft202012Validator.VALIDATORS
        self._validator_class = validators.extend(
            Draft202012Validator,
            validators={
                "anyOf": self._union_keyword(keywords["anyOf"]),
                "oneOf": self._union_keyword(keywords["oneOf"]),
            },
        )

    # -- routes ---------------------------------------------------------------------------

    def route_template(self, method: str, path: str) -> str | None:
        """The spec's path template for ``method path``, or ``None`` if there is none.

        ``path`` is a concrete path such as ``/channels/123/messages``; a leading
        ``/api/v10`` and a query string are tolerated and ignored. Among matching templates
        that offer ``method``, the one with literal segments earliest wins.
        """
        wanted = method.lower()
        segments = _normalise_path(path)
        best: _Route | None = None
        for route in self._routes.get(segments.count("/"), ()):
            if wanted in route.methods and route.pattern.fullmatch(segments):
                if best is None or route.specificity < best.specificity:
                    best = route
        return best.template if best else None

    def route_known(self, method: str, path: str) -> bool:
        """Whether Discord documents ``method`` on ``path`` (see :meth:`route_template`)."""
        return self.route_template(method, path) is not None

    # -- bodies ---------------------------------------------------------------------------

    def validate(
        self, method: str, path: str, body: Any, *, content_type: str | None = None
    ) -> list[str]:
        """Problems with ``body`` as the request body of ``method path``; ``[]`` if none.

        ``body`` is the decoded JSON (for a multipart request: the decoded ``payload_json``
        part). It is checked against the operation's ``application/json`` schema unless
        ``content_type`` names another media type the operation accepts, e.g.
        ``multipart/form-data`` (in this spec: the JSON schema plus ``files[n]`` fields, in
        an ``allOf``). ``None`` is fine for operations without a JSON body; a body sent to
        an operation that takes none is an error, and so is an unknown route.
        """
        verb = method.upper()
        template = self.route_template(method, path)
        if template is None:
            return [f"{verb} {path}: no such route in Discord's OpenAPI spec"]
        label = f"{verb} {template}"
        check = self._body_check(verb, template, content_type)
        if check is None:
            if body is None:
                return []
            return [f"{label}: (body): this operation takes no request body, got {_short(body)}"]
        if body is None:
            # Only a JSON body can be absent by mistake; a form upload has no JSON to check.
            if check.media != "application/json" or check.validator.is_valid(None):
                return []
            return [f"{label}: (body): missing request body"]
        lines: list[str] = []
        for error in check.validator.iter_errors(body):
            for where, problem in self._explain(error):
                line = f"{label}: {where}: {problem}"
                if line not in lines:
                    lines.append(line)
        return lines

    def _body_check(self, verb: str, template: str, content_type: str | None) -> _BodyCheck | None:
        """The (cached) validator for an operation's body; ``None`` if it takes none."""
        operation = self._doc["paths"][template][verb.lower()]
        content: dict[str, Any] = (operation.get("requestBody") or {}).get("content") or {}
        media = _pick_media_type(content, content_type)
        key = (verb, template, media)
        if key not in self._checks:
            check: _BodyCheck | None = None
            if media is not None:
                pointer = _pointer(
                    "paths", template, verb.lower(), "requestBody", "content", media, "schema"
                )
                ref = f"{_SPEC_URI}#{quote(pointer, safe='/~')}"
                validator = self._validator_class({"$ref": ref}, registry=self._registry)
                check = _BodyCheck(validator=validator, pointer=pointer, media=media)
            self._checks[key] = check
        return self._checks[key]

    # -- unions -----------------------------------------------------------------------------

    def _union_keyword(
        self, standard: Callable[..., Iterator[ValidationError]]
    ) -> Callable[..., Iterator[ValidationError]]:
        """Wrap jsonschema's ``anyOf``/``oneOf`` with dispatch on the union's plan."""

        def keyword(
            validator: Any, branches: list[Any], instance: Any, schema: dict[str, Any]
        ) -> Iterator[ValidationError]:
            plan = self._plan(branches)
            if plan.kind == "enum":
                if not any(_json_equal(instance, value) for value in plan.values):
                    yield _UnionError(f"{_short(instance)} is not one of {plan.expected}")
                return
            if plan.kind == "tagged" and isinstance(instance, dict):
                if "type" not in instance:  # every tagged branch requires it
                    yield _UnionError(f"missing required key 'type' (expected {plan.expected})")
                    return
                tag_key = _tag_key(instance["type"])
                index = plan.by_tag.get(tag_key) if tag_key is not None else None
                if index is None:
                    tag = _short(instance["type"])
                    message = f"{tag} is not a valid type here; expected {plan.expected}"
                    yield _UnionError(message, path=("type",))
                    return
                yield from validator.descend(instance, branches[index], schema_path=index)
                return
            if plan.kind == "nullable" and instance is not None:
                yield from validator.descend(
                    instance, branches[plan.target], schema_path=plan.target
                )
                return
            yield from standard(validator, branches, instance, schema)

        return keyword

    def _plan(self, branches: list[Any]) -> _UnionPlan:
        """Classify a union once (memoised by identity; the lists live in the document)."""
        plan = self._plans.get(id(branches))
        if plan is None:
            plan = self._plans[id(branches)] = _make_plan(self._doc, branches)
        return plan

    # -- error reporting ------------------------------------------------------------------

    def _explain(self, error: ValidationError) -> list[tuple[str, str]]:
        """Turn one jsonschema error into (JSON path, message) pairs a human can act on."""
        where = _format_path(error.absolute_path)
        keyword = error.validator
        if isinstance(error, _UnionError):
            return [(where, error.message)]
        if keyword in ("anyOf", "oneOf"):
            if not error.context:  # a oneOf that matched several branches
                return [(where, f"matches more than one alternative of the {keyword} union")]
            index = self._pick_branch(error)
            out: list[tuple[str, str]] = []
            for sub in error.context:
                if sub.relative_schema_path and sub.relative_schema_path[0] == index:
                    out.extend(self._explain(sub))
            return out or [(where, error.message)]
        if (
            keyword in ("unevaluatedProperties", "additionalProperties")
            and not error.validator_value
        ):
            return self._explain_extra_keys(error, where)
        return [(where, _describe(error))]

    def _pick_branch(self, error: ValidationError) -> int:
        """The union branch whose errors are worth reporting when dispatch did not decide.

        That happens for unions without a discriminator (the webhook execute body is
        ``anyOf[IncomingWebhookRequestPartial, IncomingWebhookUpdateRequestPartial]``) or
        for a body that lacks ``type``: prefer the branch whose errors got deepest into the
        document (it matched the most), then the one with the fewest errors, then the first.
        """
        plan = self._plan(error.validator_value)
        candidates = [plan.target] if plan.kind == "nullable" else range(len(error.validator_value))
        depth: dict[int, int] = {}
        count: dict[int, int] = {}
        for sub in error.context or ():
            index = sub.relative_schema_path[0] if sub.relative_schema_path else None
            if isinstance(index, int):
                depth[index] = max(depth.get(index, 0), len(sub.absolute_path))
                count[index] = count.get(index, 0) + 1
        return min(candidates, key=lambda i: (-depth.get(i, 0), count.get(i, 0), i))

    def _explain_extra_keys(self, error: ValidationError, where: str) -> list[tuple[str, str]]:
        """One message per unexpected key, naming the schema and suggesting a spelling.

        Keys that some member of the schema declares are not reported: they only show up as
        "unevaluated" because that member failed for another reason, reported on its own.
        (Limitation: beside an *undiscriminated* union next to ``properties``, a key declared
        only by a branch that did not match is not reported either; the Discord spec has no
        such schema.)
        """
        instance = error.instance
        known = _known_properties(self._doc, error.schema, instance)
        extras = [k for k in instance if k not in known] if isinstance(instance, dict) else []
        name = error.schema.get(_NAME_KEY) if isinstance(error.schema, dict) else None
        owner = f" in {name}" if name else ""
        out = []
        for key in extras:
            close = difflib.get_close_matches(str(key), sorted(known), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            allowed = (
                f"; allowed: {', '.join(sorted(known))}" if not close and len(known) <= 25 else ""
            )
            path = _format_path([*error.absolute_path, key])
            out.append((path, f"unexpected key {key!r} (not allowed{owner}{hint}{allowed})"))
        return out


# -- loading ---------------------------------------------------------------------------------


def load_validator(path: Path | None = None) -> OpenAPIValidator | None:
    """The validator for the spec at ``path`` (default: ``$DISCORD_API_SPEC`` or the shared
    copy), or ``None`` when the file is absent so the caller can print a visible skip.

    Parsing and adjusting the 1.2 MB document takes a noticeable fraction of a second, so one
    instance per resolved path is cached for the whole test session.
    """
    target = (path if path is not None else _spec_path_from_env()).expanduser().resolve()
    if not target.is_file():
        return None
    return _load_cached(target)


@functools.cache
def _load_cached(path: Path) -> OpenAPIValidator:
    with path.open(encoding="utf-8") as handle:
        spec = json.load(handle)
    return OpenAPIValidator(spec, source=str(path))


# -- spec adjustment -------------------------------------------------------------------------


def _apply_relaxations(spec: dict[str, Any], notes: list[str]) -> None:
    """Apply the documented differences between the spec and what Discord accepts."""
    schemas: dict[str, Any] = spec.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in schemas.items():
        if isinstance(schema, dict):
            schema[_NAME_KEY] = name
    snowflake = schemas.get("SnowflakeType")
    if isinstance(snowflake, dict):
        # "pattern" only constrains strings and "minimum" only numbers, so one schema
        # covers both shapes and keeps error messages simple.
        snowflake["type"] = ["string", "integer"]
        snowflake.setdefault("minimum", 0)
    else:
        notes.append("SnowflakeType not found; snowflakes not relaxed")
    for name, extra in EXTRA_PROPERTIES.items():
        schema = schemas.get(name)
        if not isinstance(schema, dict) or "properties" not in schema:
            notes.append(f"{name} not found; cannot allow {sorted(extra)}")
            continue
        for key, subschema in extra.items():
            schema["properties"].setdefault(key, dict(subschema))


def _close_object_schemas(spec: dict[str, Any]) -> None:
    """Forbid undeclared keys wherever that catches misspelt keys without rejecting valid ones.

    Phase one classifies every schema and rewrites compositions (``allOf``, or
    ``anyOf``/``oneOf`` next to ``properties``): their object members become open copies and
    the composing schema is the one that gets closed (or stays open, when a member is
    free-form), because ``unevaluatedProperties`` sees the annotations of passing in-place
    subschemas while a closed member never sees its siblings' keys. Phase two closes every
    remaining closable schema. A bare ``{"$ref": ...}`` is never closed itself: its target
    is closed where it is defined.
    """
    kinds: dict[int, str] = {}
    open_ids: set[int] = set()
    roots = list(_schema_roots(spec))
    for schema in _walk(roots):
        if _kind(spec, schema, kinds) == _NONE:
            continue
        for keyword in _composition_keywords(schema):
            members = schema[keyword]
            for index, member in enumerate(members):
                if _kind(spec, member, kinds) == _CLOSABLE:
                    members[index] = _open_copy(spec, member, kinds, open_ids)
    for schema in _walk(roots):
        # A bare {"$ref": ...} is left alone: its target is closed where it is defined.
        if id(schema) in open_ids or "$ref" in schema or kinds.get(id(schema)) != _CLOSABLE:
            continue
        if any(k in schema for k in _OPENNESS_KEYWORDS):
            continue
        # Without in-place applicators both keywords mean the same thing, and jsonschema
        # checks additionalProperties far faster (unevaluatedProperties builds and throws
        # away an error per key, every time). Compositions need unevaluatedProperties.
        if any(k in schema for k in _IN_PLACE_APPLICATORS):
            schema["unevaluatedProperties"] = False
        else:
            schema["additionalProperties"] = False


def _composition_keywords(schema: dict[str, Any]) -> list[str]:
    """Applicators whose members share the instance's keys with ``schema`` itself."""
    keywords = ["allOf"] if "allOf" in schema else []
    if "properties" in schema:
        keywords += [k for k in ("anyOf", "oneOf") if k in schema]
    return keywords


def _open_copy(
    spec: dict[str, Any], member: dict[str, Any], kinds: dict[int, str], open_ids: set[int]
) -> dict[str, Any]:
    """A shallow copy of ``member`` (``$ref`` followed) that will not be closed itself."""
    target = _deref(spec, member)
    copy = {k: v for k, v in target.items() if k != "unevaluatedProperties"}
    for keyword in _composition_keywords(copy):
        copy[keyword] = [
            _open_copy(spec, m, kinds, open_ids) if _kind(spec, m, kinds) == _CLOSABLE else m
            for m in copy[keyword]
        ]
    kinds[id(copy)] = _CLOSABLE
    open_ids.add(id(copy))
    return copy


def _kind(spec: dict[str, Any], schema: Any, kinds: dict[int, str]) -> str:
    """Classify ``schema`` (memoised by identity) as closable, free-form, or non-object."""
    if not isinstance(schema, dict):
        return _NONE
    key = id(schema)
    if key in kinds:
        return kinds[key]
    kinds[key] = _NONE  # provisional, guards against recursive schemas
    target = _deref(spec, schema)
    if target is not schema:
        result = _kind(spec, target, kinds)
    elif any(k in schema for k in _OPENNESS_KEYWORDS):
        result = _FREE
    else:
        member_kinds = [
            _kind(spec, m, kinds) for kw in _composition_keywords(schema) for m in schema[kw]
        ]
        types = schema.get("type")
        is_object = types == "object" or (isinstance(types, list) and "object" in types)
        if _FREE in member_kinds:
            result = _FREE
        elif "properties" in schema or _CLOSABLE in member_kinds:
            result = _CLOSABLE
        else:
            result = _FREE if is_object else _NONE
    kinds[key] = result
    return result


def _schema_roots(spec: dict[str, Any]) -> Iterator[Any]:
    """Every top-level schema: components and request/response bodies of operations."""
    yield from spec.get("components", {}).get("schemas", {}).values()
    for path_item in spec.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in _HTTP_METHODS or not isinstance(operation, dict):
                continue
            bodies = [operation.get("requestBody") or {}]
            bodies += list((operation.get("responses") or {}).values())
            for body in bodies:
                for media in (body.get("content") or {}).values():
                    if isinstance(media, dict) and "schema" in media:
                        yield media["schema"]


def _walk(roots: list[Any]) -> Iterator[dict[str, Any]]:
    """Depth-first over all subschemas reachable without following ``$ref`` (each once)."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        schema = stack.pop()
        if not isinstance(schema, dict) or id(schema) in seen:
            continue
        seen.add(id(schema))
        yield schema
        for keyword in _SCHEMA_KEYWORDS:
            if keyword in schema:
                stack.append(schema[keyword])
        for keyword in _SCHEMA_LIST_KEYWORDS:
            stack.extend(schema.get(keyword) or ())
        for keyword in _SCHEMA_MAP_KEYWORDS:
            stack.extend((schema.get(keyword) or {}).values())


# -- helpers ---------------------------------------------------------------------------------


def _deref(spec: dict[str, Any], schema: Any) -> Any:
    """Follow local ``$ref`` chains ("#/components/schemas/X") to the schema they name."""
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 32:
        ref: str = schema["$ref"]
        if ref.startswith(_SPEC_URI):
            ref = ref[len(_SPEC_URI) :]
        if not ref.startswith("#/"):
            return schema
        node: Any = spec
        for part in _split_pointer(ref[1:]):
            node = node[int(part)] if isinstance(node, list) else node[part]
        schema = node
        seen += 1
    return schema


def _split_pointer(pointer: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]


def _pointer(*parts: str) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _normalise_path(path: str) -> str:
    path = path.split("?", 1)[0].split("#", 1)[0]
    path = _API_PREFIX.sub("", path)
    if len(path) > 1:
        path = path.rstrip("/")
    return path if path.startswith("/") else "/" + path


def _compile_routes(paths: dict[str, Any]) -> dict[int, list[_Route]]:
    """Index path templates by segment count, each compiled to an anchored regex."""
    routes: dict[int, list[_Route]] = {}
    for template, item in paths.items():
        methods = frozenset(m for m in item if m in _HTTP_METHODS)
        segments = template.split("/")[1:]
        parts = []
        for segment in segments:
            pieces = re.split(r"(\{[^}]+\})", segment)
            parts.append(
                "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in pieces if p)
            )
        route = _Route(
            template=template,
            pattern=re.compile("/" + "/".join(parts)),
            specificity=tuple(1 if "{" in s else 0 for s in segments),
            methods=methods,
        )
        routes.setdefault(template.count("/"), []).append(route)
    return routes


def _pick_media_type(content: dict[str, Any], requested: str | None) -> str | None:
    if not content:
        return None
    if requested:
        wanted = requested.split(";", 1)[0].strip().lower()
        if wanted in content:
            return wanted
    for media in _MEDIA_PREFERENCE:
        if media in content:
            return media
    return next(iter(content))


def _is_null_only(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"


# Keys a const branch of an enum-like union may carry without constraining anything else.
_ENUM_BRANCH_KEYS = frozenset(
    {"const", "enum", "title", "description", "type", "format", _NAME_KEY}
)


def _make_plan(spec: dict[str, Any], raw_branches: list[Any]) -> _UnionPlan:
    """Decide how a union can be dispatched (see :class:`_UnionPlan`)."""
    branches = [_deref(spec, b) for b in raw_branches]
    if not branches or not all(isinstance(b, dict) for b in branches):
        return _UnionPlan("generic")
    if all(("const" in b or "enum" in b) and set(b) <= _ENUM_BRANCH_KEYS for b in branches):
        accepted = tuple(v for b in branches for v in _enum_values(b))
        return _UnionPlan("enum", values=accepted, expected=", ".join(map(_enum_label, branches)))
    typed = [i for i, b in enumerate(branches) if not _is_null_only(b)]
    tags = {i: _discriminator_values(spec, branches[i]) for i in typed}
    if typed and all(values for values in tags.values()):
        by_tag: dict[tuple[bool, Any], int] = {}
        for i, values in tags.items():
            for value in values or ():
                key = _tag_key(value)
                if key is None or key in by_tag:  # unhashable or ambiguous: no dispatch
                    return _UnionPlan("generic")
                by_tag[key] = i
        expected = ", ".join(
            f"{'/'.join(map(repr, values or ()))} ({_schema_name(branches[i], raw_branches[i])})"
            for i, values in sorted(tags.items(), key=lambda item: _order_key(item[1] or []))
        )
        return _UnionPlan("tagged", by_tag=by_tag, expected=expected)
    if len(typed) == 1 and len(branches) > 1:
        return _UnionPlan("nullable", target=typed[0])
    return _UnionPlan("generic")


def _discriminator_values(spec: dict[str, Any], branch: Any) -> list[Any] | None:
    """The ``type`` values a union branch accepts (its const/enum), if it declares any."""
    if not isinstance(branch, dict):
        return None
    prop = _deref(spec, (branch.get("properties") or {}).get("type"))
    if not isinstance(prop, dict) or "type" not in (branch.get("required") or ()):
        return None
    values = _enum_values(prop)
    return values or None


def _enum_values(schema: dict[str, Any]) -> list[Any]:
    if "const" in schema:
        return [schema["const"]]
    enum = schema.get("enum")
    return list(enum) if isinstance(enum, list) else []


def _tag_key(value: Any) -> tuple[bool, Any] | None:
    """A dict key for a discriminator value that keeps ``True`` apart from ``1``."""
    try:
        hash(value)
    except TypeError:
        return None
    return (isinstance(value, bool), value)


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0`` but ``True != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _order_key(values: list[Any]) -> tuple[str, str, float]:
    """Sort discriminator lists by their first value, numbers numerically."""
    first = values[0] if values else ""
    if isinstance(first, int | float) and not isinstance(first, bool):
        return ("0", "", float(first))
    return ("1", repr(first), 0.0)


def _enum_label(schema: dict[str, Any]) -> str:
    text = "/".join(repr(v) for v in _enum_values(schema))
    return f"{text} ({schema['title']})" if "title" in schema else text


def _schema_name(resolved: Any, original: Any) -> str:
    if isinstance(resolved, dict) and _NAME_KEY in resolved:
        return str(resolved[_NAME_KEY])
    if isinstance(original, dict) and "$ref" in original:
        return str(original["$ref"]).rsplit("/", 1)[-1]
    return "inline schema"


def _known_properties(spec: dict[str, Any], schema: Any, instance: Any, depth: int = 0) -> set[str]:
    """Keys declared by ``schema`` and by the members it composes, for error messages.

    Every ``allOf`` member counts; of a union next to ``properties`` only the branches whose
    ``type`` matches the instance count (all of them when no branch is discriminated).
    """
    schema = _deref(spec, schema)
    if not isinstance(schema, dict) or depth > 8:
        return set()
    keys = set(schema.get("properties") or {})
    for keyword in _composition_keywords(schema):
        members = schema[keyword]
        if keyword != "allOf" and isinstance(instance, dict) and "type" in instance:
            tag = instance["type"]
            matching = [
                m
                for m in members
                if any(
                    _json_equal(tag, v) for v in _discriminator_values(spec, _deref(spec, m)) or ()
                )
            ]
            members = matching or members
        for member in members:
            keys |= _known_properties(spec, member, instance, depth + 1)
    return keys


def _format_path(parts: Any) -> str:
    """``data.embeds[0].title`` style; ``(body)`` for the document itself."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.fullmatch(str(part)):
            out += f".{part}" if out else str(part)
        else:
            out += f"[{json.dumps(part)}]"
    return out or "(body)"


def _short(value: Any, limit: int = 40) -> str:
    """A bounded repr: long strings and containers are cut so messages stay one line."""
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else repr(value[: limit - 8] + "...")
    text = json.dumps(value, default=repr, ensure_ascii=False)
    return text if len(text) <= limit + 20 else text[: limit + 10] + "...(truncated)"


def _type_names(expected: Any) -> str:
    return " or ".join(map(str, expected)) if isinstance(expected, list) else str(expected)


def _describe(error: ValidationError) -> str:
    """A message for a single-keyword failure that shows the value and the limit broken."""
    keyword, limit, value = str(error.validator), error.validator_value, error.instance
    size = len(value) if isinstance(value, str | list | dict) else None
    shown = _short(value)
    if keyword == "maxLength":
        return f"{shown} is too long: {size} characters (maxLength {limit})"
    if keyword == "minLength":
        return f"{shown} is too short: {size} characters (minLength {limit})"
    if keyword in ("maxItems", "minItems"):
        return f"has {size} items ({keyword} {limit})"
    if keyword in ("maxProperties", "minProperties"):
        return f"has {size} keys ({keyword} {limit})"
    if keyword == "maximum":
        return f"{shown} is greater than the maximum {limit}"
    if keyword == "minimum":
        return f"{shown} is less than the minimum {limit}"
    if keyword == "type":
        return f"{shown} is not of type {_type_names(limit)}"
    if keyword == "enum":
        return f"{shown} is not one of {', '.join(map(repr, limit))}"
    if keyword == "const":
        return f"{shown} is not {limit!r}"
    if keyword == "pattern":
        return f"{shown} does not match pattern {limit!r}"
    if keyword == "uniqueItems":
        return "has duplicate items (uniqueItems)"
    if keyword == "required" and isinstance(value, dict):
        missing = [k for k in limit if k not in value]
        plural = "s" if len(missing) > 1 else ""
        return f"missing required key{plural} {', '.join(map(repr, missing))}"
    return error.message
