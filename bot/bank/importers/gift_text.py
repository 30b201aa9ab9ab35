"""GIFT's text layer: escaped control characters, format markers, HTML to plain text.

GIFT gives `~ = # { } :` a meaning and escapes them with a backslash when they are
text, so every search for a control character must skip escapes. The searches here are
regular expressions (the scan runs in C, once, left to right), so a long answer block
costs time in proportion to its length.

Moodle writes question text as `[html]<p>…</p>` with its own escapes inside the HTML.
Discord shows Markdown, not HTML, so `[html]` text is reduced to its words (paragraphs
and `<br>` become line breaks, entities are decoded); `[markdown]`, `[plain]` and
`[moodle]` text is kept as written.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Characters GIFT lets a backslash escape.
SPECIAL = "~=#{}:"
FORMAT_MARKER = re.compile(r"\s*\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_SPACE = re.compile(r"\s+")
_TOKENS: dict[str, re.Pattern[str]] = {}


def find(text: str, token: str, start: int = 0) -> int:
    """Index of the first `token` at or after `start` not escaped by a backslash, or -1."""
    pattern = _TOKENS.get(token)
    if pattern is None:
        pattern = _TOKENS[token] = re.compile(r"\\.|" + re.escape(token), re.DOTALL)
    for match in pattern.finditer(text, start):
        if match.group() == token:
            return match.start()
    return -1


def _resolve(match: re.Match[str]) -> str:
    char = match.group(1)
    if char in SPECIAL or char == "\\":
        return char
    if char == "n":
        return "\n"
    return match.group()


def unescape(raw: str) -> str:
    """GIFT text to plain text: whitespace runs become one space, escapes resolved."""
    return _ESCAPE.sub(_resolve, _SPACE.sub(" ", raw).strip()).strip()


def split_format(raw: str, default: str) -> tuple[str, str]:
    """(format, text without its leading `[format]` marker); `default` when unmarked."""
    marker = FORMAT_MARKER.match(raw)
    if marker is None:
        return default, raw
    return marker.group(1).lower(), raw[marker.end() :]


class _Words(HTMLParser):
    """Collects the text of an HTML fragment; notes whether it shows an image."""

    _BREAKS = frozenset({"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.has_image = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.has_image = True
        elif tag in self._BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._BREAKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_to_text(html: str) -> tuple[str, bool]:
    """(the words of an HTML fragment, one space between words and one line break per
    paragraph, whether it has an `<img>`)."""
    words = _Words()
    words.feed(html)
    words.close()
    lines = (_SPACE.sub(" ", line).strip() for line in "".join(words.parts).split("\n"))
    return "\n".join(line for line in lines if line), words.has_image


def render(raw: str, fmt: str) -> tuple[str, bool]:
    """(text of one GIFT piece in format `fmt`, whether it shows an image)."""
    text = unescape(raw)
    if fmt == "html":
        return html_to_text(text)
    return text, False
