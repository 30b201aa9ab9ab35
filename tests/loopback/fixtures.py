"""Pytest fixtures for tests that run the bot against the loopback Discord.

Use them from a ``conftest.py`` (``from tests.loopback.fixtures import loopback``) or by
importing them into a test module. ``tests/loopback/conftest.py`` does so for this folder.
"""

from __future__ import annotations

import importlib
import logging
import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.loopback.server import BodyValidator, LoopbackDiscord

__all__ = ["load_body_validator", "loopback"]

_log = logging.getLogger(__name__)


def load_body_validator() -> BodyValidator | None:
    """The OpenAPI body validator from ``tests/loopback/openapi.py``, or ``None`` with a warning.

    The warning (shown in pytest's summary) makes a skipped schema check visible: without
    the spec the loopback still records bodies but cannot tell if Discord would accept them.
    """
    try:
        openapi: Any = importlib.import_module("tests.loopback.openapi")
    except ModuleNotFoundError as exc:
        if exc.name != "tests.loopback.openapi":
            raise
        warnings.warn(
            "tests/loopback/openapi.py is missing: REST bodies are NOT checked against "
            "Discord's OpenAPI spec",
            stacklevel=2,
        )
        return None
    validator = openapi.load_validator()
    if validator is None:
        warnings.warn(
            "Discord's OpenAPI spec was not found (see openapi.py): REST bodies are NOT "
            "checked against it",
            stacklevel=2,
        )
    return validator


@pytest.fixture
async def loopback() -> AsyncIterator[LoopbackDiscord]:
    """A started :class:`LoopbackDiscord`; on teardown, fails on any unknown route,
    schema-invalid body or loopback handler bug recorded during the test.

    A test that provokes those on purpose must clear the list it asserted on.
    """
    server = LoopbackDiscord(validator=load_body_validator())
    await server.start()
    try:
        yield server
    finally:
        await server.close()
    problems = []
    if server.unknown_routes:
        problems.append(f"requests to routes the loopback does not know: {server.unknown_routes}")
    if server.body_errors:
        problems.append(
            "request bodies Discord's spec rejects:\n  " + "\n  ".join(server.body_errors)
        )
    if server.internal_errors:
        problems.append(f"loopback handler errors: {server.internal_errors}")
    assert not problems, "\n".join(problems)
