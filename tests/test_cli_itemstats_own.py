"""`tpquiz questions report --guild ID` with a server's own questions (issue 27): they are
in that server's report, marked as its own, each version counted apart (a new version's
figures start afresh), and in no other report. tests/test_cli_itemstats_pg.py runs the
same data on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from bot.bank.loader import load_bank
from bot.cli.main import main
from bot.storage.sqlite import Storage
from tests.factories import make_question
from tests.itemsim import simulate

OURS, OTHER = 11, 12


async def fill(path: Path) -> None:
    storage = await Storage.open(path)
    try:
        question = replace(make_question("our-01"), topic="practice")
        await storage.guild_bank.put(OURS, [(question, ("en",))], now_ms=1)
        own = await storage.guild_bank.get(OURS, "our-01")
        assert own is not None
    finally:
        await storage.close()
    bundled = load_bank()["basics-01"]
    await simulate(path, guild_id=OURS, members=range(40), questions=[own.question, bundled],
                   choose=lambda m, a, q: q.correct_index if m % 2 else (q.correct_index + 1) % 4)  # fmt: skip
    await simulate(path, guild_id=OTHER, members=range(10), questions=[bundled],
                   choose=lambda m, a, q: q.correct_index)  # fmt: skip
    # A new version of our-01 (another key): five first answers of its own, all right.
    storage = await Storage.open(path)
    try:
        fixed = replace(make_question("our-01", correct=1), topic="practice")
        await storage.guild_bank.put(OURS, [(fixed, ("en",))], now_ms=2)
        second = await storage.guild_bank.get(OURS, "our-01")
        assert second is not None and second.version == 2
    finally:
        await storage.close()
    await simulate(path, guild_id=OURS, members=range(100, 105), questions=[second.question],
                   choose=lambda m, a, q: q.correct_index, now_ms=1_700_000_100_000)  # fmt: skip


@pytest.fixture
def run(tmp_path: Path, monkeypatch, capsys):
    path = tmp_path / "quiz.sqlite3"
    asyncio.run(fill(path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TPQUIZ_QUESTIONS", raising=False)
    monkeypatch.setenv("TPQUIZ_DB", str(path))

    def invoke(*argv: str) -> list[dict[str, object]]:
        status = main(list(argv))
        captured = capsys.readouterr()
        assert status == 0, captured.err
        return json.loads(captured.out)

    return invoke


def test_the_servers_report_marks_its_own_questions(run) -> None:
    rows = run("questions", "report", "--guild", str(OURS), "--json", "--min-answers", "1")
    by_id = {r["question_id"]: r for r in rows}
    assert set(by_id) == {"our-01@1", "our-01@2", "basics-01"}
    assert by_id["our-01@1"]["own"] is True and by_id["basics-01"]["own"] is False
    assert by_id["our-01@1"]["answers"] == 40 and by_id["our-01@1"]["facility"] == 0.5
    assert by_id["our-01@2"]["own"] is True
    assert by_id["our-01@2"]["answers"] == 5 and by_id["our-01@2"]["facility"] == 1.0


def test_no_other_report_holds_them(run) -> None:
    other = run("questions", "report", "--guild", str(OTHER), "--json", "--min-answers", "1")
    assert [r["question_id"] for r in other] == ["basics-01"]
    every = run("questions", "report", "--json", "--min-answers", "1")
    assert [r["question_id"] for r in every] == ["basics-01"]
    assert every[0]["answers"] == 50


def test_the_table_says_whose(run, capsys) -> None:
    status = main(["questions", "report", "--guild", str(OURS), "--min-answers", "1"])
    out = capsys.readouterr().out
    assert status == 0
    line = next(x for x in out.splitlines() if "our-01@1" in x)
    assert line.rstrip().endswith("this server's own")
