"""`tpquiz questions report` and `tpquiz reports [resolve]` on PostgreSQL (issue 15).

The simulated answers of tests/test_cli_itemstats.py (a planted wrong key among sound
questions) are copied from their SQLite file into a real PostgreSQL database
(`bot.storage.copy.copy_from_sqlite`); the report printed with TPQUIZ_DATABASE_URL
set must be the one printed from the SQLite file, figure for figure, and the reports
commands must read and change the PostgreSQL database, not the file. The same holds for
a server's own questions (issue 27, tests/test_cli_itemstats_own.py's data): `--guild`
reports them marked as its own, each version apart, read from PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from bot.bank.loader import load_bank
from bot.cli.main import main
from bot.storage.copy import copy_from_sqlite
from bot.storage.pg.db import PgDatabase
from bot.storage.pg.executor import PgExecutor
from bot.storage.records import Report
from bot.storage.stores.reports import ReportStore
from tests.itemsim import simulate, wrong_key_chooser
from tests.test_cli_itemstats_own import OURS, fill

BIG, SMALL = 9, 8


@pytest.fixture(scope="module")
def sqlite_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bank = load_bank()
    planted = bank["attention-split-01"]
    sound = [q for q in bank if q.id.startswith("3d-parallelism-")][:5]
    path = tmp_path_factory.mktemp("itemstats_pg") / "quiz.sqlite3"
    choose = wrong_key_chooser(planted, sound)
    asyncio.run(simulate(path, guild_id=BIG, members=range(60), questions=[*sound, planted],
                         choose=choose))  # fmt: skip
    asyncio.run(simulate(path, guild_id=SMALL, members=range(20), questions=[planted],
                         choose=lambda m, a, q: q.correct_index))  # fmt: skip
    return path


async def test_questions_report_and_reports_on_postgresql(
    sqlite_db: Path, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    for name in ("TPQUIZ_QUESTIONS", "TPQUIZ_DB", "TPQUIZ_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TPQUIZ_DB", str(sqlite_db))
    pg = await PgDatabase.open(pg_url)
    try:
        await copy_from_sqlite(sqlite_db, pg)
    finally:
        await pg.close()

    async def run(*argv: str) -> tuple[int, str, str]:
        status = await asyncio.to_thread(main, list(argv))  # main runs its own loop
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    report = ("questions", "report", "--json", "--min-answers", "1")
    on_sqlite = [await run(*report), await run(*report, "--guild", str(SMALL))]
    monkeypatch.setenv("TPQUIZ_DATABASE_URL", pg_url)
    on_pg = [await run(*report), await run(*report, "--guild", str(SMALL))]
    for (s_status, s_out, _), (p_status, p_out, p_err) in zip(on_sqlite, on_pg, strict=True):
        assert (s_status, p_status) == (0, 0), p_err
        assert json.loads(p_out) == json.loads(s_out)
    rows = json.loads(on_pg[0][1])
    assert rows[0]["question_id"] == "attention-split-01" and rows[0]["answers"] == 80
    assert [f["flag"] for f in rows[0]["flags"]][:2] == ["wrong_key", "top_prefers"]

    pg = await PgDatabase.open(pg_url)
    try:
        filed = await ReportStore(PgExecutor(pg)).add(
            guild_id=BIG, user_id=1, question_id="attention-split-01", language="en",
            reason="wrong_answer", body="the key is D", now_ms=1_700_000_000_000,
        )  # fmt: skip
    finally:
        await pg.close()
    assert isinstance(filed, Report)
    status, out, _ = await run(*report)
    assert status == 0 and json.loads(out)[0]["open_reports"] == 1
    status, out, _ = await run("reports", "--open", "--json")
    assert status == 0 and [r["id"] for r in json.loads(out)] == [filed.id]
    status, out, err = await run("reports", "resolve", str(filed.id), "--note", "checked")
    assert (status, out) == (0, f"#{filed.id} resolved: checked\n"), err
    status, out, _ = await run("reports", "--open", "--json")
    assert (status, json.loads(out)) == (0, [])
    status, _, err = await run("reports", "resolve", "999999", "--note", "x")
    assert (status, err) == (1, "tpquiz reports resolve: there is no report #999999\n")
    with sqlite3.connect(sqlite_db) as conn:  # the file was never written
        assert conn.execute("SELECT COUNT(*) FROM reports").fetchone()[0] == 0


async def test_a_servers_own_questions_in_its_report_on_postgresql(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    path = tmp_path / "own.sqlite3"
    await fill(path)
    monkeypatch.chdir(tmp_path)
    for name in ("TPQUIZ_QUESTIONS", "TPQUIZ_DB", "TPQUIZ_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    pg = await PgDatabase.open(pg_url)
    try:
        await copy_from_sqlite(path, pg)
    finally:
        await pg.close()
    path.unlink()  # whatever is read now is PostgreSQL's
    monkeypatch.setenv("TPQUIZ_DATABASE_URL", pg_url)

    async def run(*argv: str) -> str:
        status = await asyncio.to_thread(main, list(argv))
        captured = capsys.readouterr()
        assert status == 0, captured.err
        return captured.out

    report = ("questions", "report", "--min-answers", "1", "--guild", str(OURS))
    by_id = {r["question_id"]: r for r in json.loads(await run(*report, "--json"))}
    assert set(by_id) == {"our-01@1", "our-01@2", "basics-01"}
    assert [by_id[q]["own"] for q in ("our-01@1", "our-01@2", "basics-01")] == [True, True, False]
    assert (by_id["our-01@1"]["answers"], by_id["our-01@1"]["facility"]) == (40, 0.5)
    assert (by_id["our-01@2"]["answers"], by_id["our-01@2"]["facility"]) == (5, 1.0)
    table = await run(*report)
    line = next(x for x in table.splitlines() if "our-01@2" in x)
    assert line.rstrip().endswith("this server's own")
    every = json.loads(await run("questions", "report", "--json", "--min-answers", "1"))
    assert [r["question_id"] for r in every] == ["basics-01"]  # no server's own without --guild
