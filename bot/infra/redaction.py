"""A database URL with its password hidden, even when no URL parser accepts it.

Separate from bot/infra/config.py (which shows URLs in its errors through it) so that it has
no dependencies: anything that may print a URL can use it.
"""

from __future__ import annotations

import re

__all__ = ["REDACTED", "redact_url"]

#: What a redacted URL shows in place of the password.
REDACTED = "***"

#: The scheme and "//" of a URL; without "//", "tpq:pw@host" would read as scheme "tpq".
_URL_START = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*:)?//")
#: A `password=` query parameter's value (up to the next parameter).
_QUERY_PASSWORD = re.compile(r"[?&]password=([^&]*)")


def _secret_spans(url: str) -> list[tuple[int, int]]:
    """Where `url` may hold a password, as (start, end) offsets, merged and sorted.

    Found on the raw text, not on a parse: a password holding an unescaped `/`, `?`, `#`
    or `@` makes a URL parser end the user part early and show the rest as host or
    path. So everything between the first `:` of the user part and the LAST `@` counts
    as password, and so does the value of a `password=` parameter.
    """
    spans: list[tuple[int, int]] = []
    start = _URL_START.match(url)
    begin = start.end() if start else 0
    at = url.rfind("@", begin)
    if at != -1:
        colon = url.find(":", begin, at)
        if colon != -1:
            spans.append((colon + 1, at))
    spans += [m.span(1) for m in _QUERY_PASSWORD.finditer(url, begin)]
    merged: list[tuple[int, int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def redact_url(url: str) -> str:
    """`url` with its password (user part and ?password=) replaced by ***.

    Never shows what lies between `user:` and the last `@`, even in a URL no parser
    accepts (see `_secret_spans`).
    """
    pieces, done = [], 0
    for low, high in _secret_spans(url):
        pieces += [url[done:low], REDACTED]
        done = high
    pieces.append(url[done:])
    return "".join(pieces)
