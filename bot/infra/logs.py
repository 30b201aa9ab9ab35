"""Logging set-up: one line per event on stdout, text or JSON, with secrets redacted.

The token is removed from every record, including tracebacks, by a filter on the
handler, so even a failed login that echoes its headers cannot leak it. So are the
per-interaction secrets discord.py puts in the URLs it logs at DEBUG: the token in
`/interactions/<id>/<token>/callback` and in `/webhooks/<app>/<token>` (followups and
edits of a reply; anyone holding one can post as the bot in that channel for 15 min),
and any `"token": "..."` field of a logged payload.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from types import TracebackType

REDACTED = "[REDACTED]"

#: Per-interaction secrets inside logged text, redacted whatever the configured secrets.
_TOKEN_PATTERNS = (
    # /interactions/<id>/<token>/callback and /webhooks/<application>/<token>[/messages/..]
    re.compile(r"(/(?:interactions|webhooks)/[^/\s?#]+/)[^/\s?#'\"]+"),
    # "token": "..." in a JSON payload, 'token': '...' in a dict's repr
    re.compile(r"""(["']token["']\s*:\s*["'])[^"']+"""),
)


def redact_tokens(text: str) -> str:
    """`text` with interaction and webhook tokens replaced by `[REDACTED]`."""
    for pattern in _TOKEN_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


class RedactingFilter(logging.Filter):
    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # bad %-args: logging would print msg and args raw to stderr
            message = f"{record.msg!s} (unformattable log arguments: {record.args!r})"
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg, record.args = self.redact(message), None
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return redact_tokens(text)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info or record.exc_text:
            entry["exc"] = record.exc_text or self.formatException(record.exc_info)  # type: ignore[arg-type]
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False)


def setup_logging(level: str = "INFO", fmt: str = "text", secrets: Iterable[str] = ()) -> None:
    handler = logging.StreamHandler(sys.stdout)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-8s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # discord.py's gateway chatter is noise at INFO.
    logging.getLogger("discord.gateway").setLevel(max(logging.getLevelName(level), logging.WARNING))
    # Warnings and uncaught exceptions would otherwise go to stderr raw, past the redaction
    # (a traceback of a failed login can hold the token): route them through the handler.
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_uncaught_in_thread


def _log_uncaught(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    if issubclass(exc_type, KeyboardInterrupt):
        sys.__excepthook__(exc_type, exc, tb)
        return
    logging.getLogger("tpquiz").critical("uncaught exception", exc_info=(exc_type, exc, tb))


def _log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is None:
        return
    name = args.thread.name if args.thread else "?"
    logging.getLogger("tpquiz").critical(
        "uncaught exception in thread %s",
        name,
        exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
    )
