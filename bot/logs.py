"""Logging set-up: one line per event on stdout, text or JSON, with secrets redacted.

The token is removed from every record, including tracebacks, by a filter on the
handler, so even a failed login that echoes its headers cannot leak it.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from types import TracebackType

REDACTED = "[REDACTED]"


class RedactingFilter(logging.Filter):
    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # bad %-args: logging would print msg and args raw to stderr
            message = f"{record.msg!s} (unformattable log arguments: {record.args!r})"
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        for secret in self.secrets:
            message = message.replace(secret, REDACTED)
            if record.exc_text:
                record.exc_text = record.exc_text.replace(secret, REDACTED)
            if record.stack_info:
                record.stack_info = record.stack_info.replace(secret, REDACTED)
        record.msg, record.args = message, None
        return True


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
