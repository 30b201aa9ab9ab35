"""`report_error`: what a member is told, and what is logged, when a write fails (issue 10,
item 6): a plain "not saved, click again later" and one warning line, no traceback."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest

from bot.i18n import t
from bot.services.quiz import AnswerNotSaved
from bot.storage.errors import WriteFailed
from bot.ui.responses import report_error


class _Response:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def is_done(self) -> bool:
        return False

    async def send_message(self, **kwargs: Any) -> None:
        self.sent.append(kwargs)


def _interaction(locale: str) -> Any:
    return SimpleNamespace(id=77, locale=locale, response=_Response())


@pytest.mark.parametrize(
    ("locale", "text"),
    [
        (
            "en-US",
            "⚠️ Your answer was **not** saved: the bot cannot write to its database right "
            "now. Please click again in a few minutes.",
        ),
        (
            "tr",
            "⚠️ Cevabın **kaydedilmedi**: bot şu anda veritabanına yazamıyor. Birkaç dakika "
            "sonra tekrar tıkla.",
        ),
    ],
)
async def test_an_answer_that_was_not_saved_says_so_plainly(
    locale: str, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    interaction = _interaction(locale)
    caplog.set_level(logging.WARNING, logger="bot.ui.responses")
    await report_error(interaction, AnswerNotSaved("database or disk is full (SQLITE_FULL)"))
    assert interaction.response.sent == [{"content": text, "ephemeral": True}]
    assert [(r.levelno, r.getMessage(), r.exc_info) for r in caplog.records] == [
        (
            logging.WARNING,
            "interaction 77: answer not saved: database or disk is full (SQLITE_FULL)",
            None,
        )
    ]
    assert "never lost" not in text


async def test_any_other_write_that_failed_is_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    interaction = _interaction("en-GB")
    caplog.set_level(logging.WARNING, logger="bot.ui.responses")
    await report_error(interaction, WriteFailed("database is locked (SQLITE_BUSY)"))
    assert interaction.response.sent == [{"content": t("write_failed", "en"), "ephemeral": True}]
    assert [(r.getMessage(), r.exc_info) for r in caplog.records] == [
        ("interaction 77: nothing saved: database is locked (SQLITE_BUSY)", None)
    ]
