"""The database fails under the running bot (issue 10, items 2 and 6): real process,
real faults, the loopback Discord.

A full disk (a tiny tmpfs, filled; skipped without root) and the database file deleted
under the bot. In both the member is told plainly that the answer was not saved and to
click again later, the log has one line per failure and no traceback for it, and no
click that was answered as saved is missing. After the disk is freed the same click is
recorded; after the file is deleted, a restart refuses to begin an empty database.
"""

from __future__ import annotations

import re

from bench.botproc import BotProcess, bot_env
from bot.i18n import t
from tests.drills.conftest import Drill, answer_rows, click_key
from tests.mounts import fill, tmpfs

EPHEMERAL = 64
NOT_SAVED = t("answer_not_saved", "en")


def _interaction_tracebacks(log: str) -> list[str]:
    """Tracebacks logged for the answer path. The one other writer that may meet the
    fault is the heartbeat's probe every 15 s (cogs/health.py), which logs one line
    without a traceback when it starts failing; so every traceback counts here."""
    generic = re.findall(r"interaction \d+ failed", log)
    return generic + ["Traceback"] * log.count("Traceback")


async def test_a_full_disk_tells_the_member_and_the_click_works_once_there_is_room(
    drill: Drill,
) -> None:
    with tmpfs(drill.workdir / "small", size_kib=2048) as mount:
        drill.db_path = mount / "tpquiz.sqlite3"
        bot = await drill.start_bot()
        try:
            posts = [await drill.post_question()]
            (click,) = drill.clicks(posts, 1)
            filler = fill(mount)
            reply = await drill.loopback.interact(click, timeout=10)
            assert reply.status == 200 and reply.body["type"] == 4
            assert reply.body["data"]["content"] == NOT_SAVED
            assert reply.body["data"]["flags"] & EPHEMERAL
            assert answer_rows(drill) == {}
            filler.unlink()
            (again,) = [
                drill.loopback.button_click(
                    int(click["message"]["id"]), click["data"]["custom_id"], click["member"]
                )
            ]
            saved = await drill.loopback.interact(again, timeout=10)
            assert saved.body["data"]["embeds"][0]["title"] in ("✅ Correct!", "❌ Wrong.")
            assert answer_rows(drill) == {click_key(drill, click): 1}
            drill.assert_consistent()
        finally:
            await bot.stop()
        log = bot.log_text()
    assert log.count("answer not saved: database or disk is full (SQLITE_FULL)") == 1, log
    assert _interaction_tracebacks(log) == []


async def test_a_deleted_database_is_noticed_and_a_restart_refuses_to_start_empty(
    drill: Drill,
) -> None:
    bot = await drill.start_bot()
    posts = [await drill.post_question()]
    first, second, third = drill.clicks(posts, 3)
    saved = await drill.loopback.interact(first, timeout=10)
    assert saved.body["data"]["embeds"][0]["title"] in ("✅ Correct!", "❌ Wrong.")
    assert answer_rows(drill) == {click_key(drill, first): 1}
    drill.db_path.unlink()  # an operator's `rm`, or a clean-up script

    for click in (second, third):
        reply = await drill.loopback.interact(click, timeout=10)
        assert reply.status == 200 and reply.body["data"]["content"] == NOT_SAVED
    await bot.terminate()
    log = bot.log_text()
    lost = (
        f"the database file {drill.db_path} was deleted while the bot was running: answers "
        "are no longer saved; stop the bot, put the database back (tpquiz restore BACKUP) "
        "and start it again"
    )
    assert log.count(lost) == 3, log  # the error once, then one warning per click
    assert [line for line in log.splitlines() if "ERROR" in line and lost in line] != []
    assert _interaction_tracebacks(log) == []
    assert not drill.db_path.exists()

    restart = BotProcess(
        bot_env(
            rest_base=drill.loopback.rest_base,
            gateway_url=drill.loopback.gateway_url,
            token=drill.loopback.token,
            db_path=drill.workdir / "tpquiz.sqlite3",
        ),
        drill.workdir,
        log_name="restart.log",
    )
    await restart.start()
    assert await restart.wait(20) == 2
    lock = drill.workdir / "tpquiz.sqlite3.lock"
    assert restart.log_text() == (
        f"tpquiz: no database at {drill.workdir / 'tpquiz.sqlite3'}, but {lock} shows a bot "
        "ran on it before: the database was deleted or moved; restore the latest backup "
        f"(tpquiz restore BACKUP), or delete {lock} to start again with an empty database\n"
    )
    assert not (drill.workdir / "tpquiz.sqlite3").exists()
