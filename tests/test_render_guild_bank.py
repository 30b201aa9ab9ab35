"""The reply to `/tpquiz-admin bank upload` (bot/ui/render_guild_bank.py): problems and
warnings within Discord's 2,000 characters, or all of them in a text attachment."""

from __future__ import annotations

from bot.bank.own_upload import UploadCheck
from bot.bank.problems import Problem
from bot.quiz.own_questions import PutResult
from bot.services.guild_bank import Upload
from bot.ui.render_guild_bank import MESSAGE_LIMIT, upload_reply
from tests.factories import make_question


def _problem(line: int, message: str = "is empty; write the text") -> Problem:
    return Problem("ours.yaml", line, "our-01", "explanation.en", message)


def test_warnings_alone_follow_what_was_stored() -> None:
    check = UploadCheck(((make_question("our-01"), ("en",)),), (), (_problem(3, "a clue"),))
    content, attached = upload_reply(
        Upload(check, PutResult(added=("our-01",))), "ours.yaml", 1, "en"
    )
    assert attached is None
    assert content.splitlines() == [
        "✅ **ours.yaml**: 1 added, 0 replaced (a new version). The server has 1 questions in use.",
        "Added: `our-01`",
        "```",
        "⚠️ 1 warning(s) (they do not stop the upload):",
        "ours.yaml:3: our-01: explanation.en: a clue",
        "```",
    ]


def test_many_problems_go_in_a_file_and_the_message_stays_within_the_limit() -> None:
    problems = tuple(_problem(n, "x" * 150) for n in range(1, 61))
    content, attached = upload_reply(
        Upload(UploadCheck((), problems, ()), None), "ours.yaml", 0, "en"
    )
    assert len(content) <= MESSAGE_LIMIT and content.endswith(
        "The whole list is in the attached file."
    )
    assert attached is not None and attached.filename == "problems.txt"
    assert attached.fp.read().decode().count("\n") == 59


def test_a_full_server_stores_nothing_and_says_the_limit() -> None:
    check = UploadCheck(((make_question("our-01"), ("en",)),), (), ())
    content, _ = upload_reply(Upload(check, PutResult(refused_total=2001)), "ours.yaml", 2000, "en")
    assert content.startswith("❌ Nothing was stored: the server would have 2001 questions,")


def test_markdown_and_mentions_in_a_file_name_are_shown_as_written() -> None:
    check = UploadCheck((), (_problem(1),), ())
    content, _ = upload_reply(Upload(check, None), "@everyone_**x**.yaml", 0, "en")
    assert content.startswith("❌ **@\u200beveryone\\_\\*\\*x\\*\\*.yaml**")
