"""Checking DISCORD_API_BASE and DISCORD_GATEWAY_URL when the settings are read.

A proxy or test address that is not an http(s):// (REST) or ws(s):// (gateway) URL used
to fail deep inside aiohttp at login, as a traceback; here it is one sentence, exit 2.
"""

from __future__ import annotations

from collections.abc import Sequence

import yarl


def _shown(value: str, limit: int = 80) -> str:
    text = value if len(value) <= limit else value[: limit - 1] + "…"
    return repr(text)


def endpoint_problem(
    name: str, value: str | None, schemes: Sequence[str], example: str
) -> str | None:
    """Why `value` cannot be the URL setting `name`, or None (also when it is unset)."""
    if value is None:
        return None
    wanted = "a URL starting with " + " or ".join(f"{s}://" for s in schemes)
    if any(c.isspace() or not c.isprintable() for c in value):
        return f"{name} contains spaces or control characters: set {wanted}, such as {example}"
    try:
        url = yarl.URL(value)
    except ValueError as exc:
        return f"{name} is not a valid URL ({exc}): set {wanted}, such as {example}"
    if url.scheme not in schemes or not url.host:
        return f"{name} must be {wanted}, such as {example}, not {_shown(value)}"
    return None
