"""`tpquiz questions report` and `tpquiz reports` on simulated answers (issue #13).

The database is filled through the bot's own recording code (tests/itemsim.py): 60
members of graded ability in one server answer five sound questions of the bundled bank
and one planted question whose key is wrong; 20 members of another server answer the
planted one rightly. The commands run in-process through `bot.cli.main.main`.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from bot.bank.loader import load_bank
from bot.cli.main import main
from bot.storage.records import Report
from bot.storage.sqlite.reports import add_report
from tests.itemsim import simulate, wrong_key_chooser

BIG, SMALL = 9, 8


@pytest.fixture(scope="module")
def bank():
    return load_bank()


@pytest.fixture(scope="module")
def planted(bank):
    return bank["attention-split-01"]


@pytest.fixture(scope="module")
def sound(bank):
    return [q for q in bank if q.id.startswith("3d-parallelism-")][:5]


@pytest.fixture(scope="module")
def db(tmp_path_factory, planted, sound) -> Path:
    path = tmp_path_factory.mktemp("itemstats") / "quiz.sqlite3"
    choose = wrong_key_chooser(planted, sound)
    asyncio.run(simulate(path, guild_id=BIG, members=range(60), questions=[*sound, planted],
                         choose=choose))  # fmt: skip
    asyncio.run(simulate(path, guild_id=SMALL, members=range(20), questions=[planted],
                         choose=lambda m, a, q: q.correct_index))  # fmt: skip
    return path


@pytest.fixture
def run(db: Path, tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    for name in ("TPQUIZ_QUESTIONS", "TPQUIZ_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TPQUIZ_DB", str(db))

    def invoke(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return invoke


def test_the_planted_wrong_key_is_flagged_first_with_its_file_and_line(run, planted) -> None:
    status, out, err = run("questions", "report")
    assert status == 0, err
    lines = out.splitlines()
    assert "flagged) from 380 first answers in every server" in lines[0]
    first = lines[2]
    assert first.startswith("! attention-split-01")
    assert first.rstrip().endswith(f"{Path(planted.file).name}:{planted.line}")
    assert "Likely wrong key or ambiguous: discrimination -" in lines[3]
    assert "the top third picks D (75%) more than the key C (10%) (20 members)" in out
    assert "computed in" in err


def test_json_gives_the_figures_and_the_reasons(run, planted, sound) -> None:
    status, out, _ = run("questions", "report", "--json", "--min-answers", "1")
    assert status == 0
    rows = {r["question_id"]: r for r in json.loads(out)}
    assert set(rows) == {planted.id, *(q.id for q in sound)}  # the others have no answers
    p = rows[planted.id]
    # 60 + 20 first answers; right: the 20 of SMALL and the 10 weak odd members of BIG (m % 6 == 1).
    assert (p["answers"], p["correct"], p["key"]) == (80, 30, "C")
    assert p["discrimination"] < 0
    assert [f["flag"] for f in p["flags"]][:2] == ["wrong_key", "top_prefers"]
    assert (
        p["top_third"]["D"] > p["top_third"]["C"]
        and p["file"].endswith(Path(planted.file).name)
        and p["line"] == planted.line
    )


def test_one_server_only_and_too_few_answers_there(run, planted) -> None:
    status, out, _ = run(
        "questions", "report", "--guild", str(SMALL), "--json", "--min-answers", "1"
    )
    assert status == 0
    [row] = json.loads(out)
    # 20 first answers, all right: no flag yet (too easy would need 30).
    assert (row["question_id"], row["answers"], row["facility"], row["flags"]) == (
        planted.id, 20, 1.0, [])  # fmt: skip


def test_flagged_and_min_answers_filter(run, planted) -> None:
    status, out, _ = run("questions", "report", "--flagged", "--json")
    assert status == 0
    assert [r["question_id"] for r in json.loads(out)] == [planted.id]
    status, out, _ = run("questions", "report", "--min-answers", "81", "--json")
    assert (status, json.loads(out)) == (0, [])


def test_csv_has_one_row_per_question_with_the_reasons(run, planted) -> None:
    status, out, _ = run("questions", "report", "--csv", "--min-answers", "1")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 6 and rows[0]["question_id"] == planted.id
    assert rows[0]["flags"].split()[:2] == ["wrong_key", "top_prefers"]
    assert float(rows[0]["top_D"]) > float(rows[0]["top_C"]) and rows[0]["line"] == str(
        planted.line
    )


def test_each_row_names_its_topic_the_slug_kept_for_scripts(run, planted, sound) -> None:
    """Issue 32: the table shows the topic's name; JSON and CSV carry the slug and both
    names."""
    status, out, _ = run("questions", "report")
    assert status == 0
    head, first = out.splitlines()[1:3]
    assert head.split()[:3] == ["question", "topic", "key"]
    assert first.startswith("! attention-split-01") and " Splitting attention " in first
    status, out, _ = run("questions", "report", "--json", "--min-answers", "1")
    rows = {r["question_id"]: r for r in json.loads(out)}
    assert (rows[planted.id]["topic"], rows[planted.id]["topic_name"]) == (
        "attention-split", {"tr": "Attention'ın bölünmesi", "en": "Splitting attention"})  # fmt: skip
    assert rows[sound[0].id]["topic_name"]["tr"] == "3D paralellik"
    status, out, _ = run("questions", "report", "--csv", "--min-answers", "1")
    first_row = next(csv.DictReader(io.StringIO(out)))
    assert (first_row["topic"], first_row["topic_en"], first_row["topic_tr"]) == (
        "attention-split", "Splitting attention", "Attention'ın bölünmesi")  # fmt: skip


def test_a_missing_database_and_a_bad_option_are_one_sentence(run, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TPQUIZ_DB", str(tmp_path / "nothing.sqlite3"))
    status, out, err = run("questions", "report")
    assert status == 2 and out == "" and err.count("\n") == 1 and "nothing.sqlite3" in err
    with pytest.raises(SystemExit) as exit_:
        run("questions", "report", "--min-answers", "-3")
    assert exit_.value.code == 2


def _report(db: Path, qid: str, user: int, body: str) -> Report:
    with sqlite3.connect(db, isolation_level=None) as conn:
        found = add_report(conn, guild_id=BIG, user_id=user, question_id=qid, language="en",
                           reason="wrong_answer", body=body, now_ms=1_700_000_000_000)  # fmt: skip
    assert isinstance(found, Report)
    return found


def test_reports_list_resolve_and_flag(run, db, sound) -> None:
    qid = sound[0].id  # sound, 60 answers: two open reports flag it
    first = _report(db, qid, 1, "the key is wrong\x1b[31m red\nsecond line")
    _report(db, qid, 2, "agree")
    status, out, _ = run("questions", "report", "--json", "--flagged")
    flagged = {r["question_id"]: r for r in json.loads(out)}
    assert "reported" in [f["flag"] for f in flagged[qid]["flags"]]
    status, out, _ = run("reports")
    assert status == 0 and f"#{first.id} open" in out
    assert "\x1b" not in out and "the key is wrong\ufffd[31m red⏎second line" in out
    status, out, _ = run("reports", "--json")
    assert {r["body"] for r in json.loads(out)} >= {"agree"}
    status, out, err = run(
        "reports", "resolve", str(first.id), "--note", "key checked: it is right"
    )
    assert (status, out) == (0, f"#{first.id} resolved: key checked: it is right\n"), err
    status, out, _ = run("reports", "--open", "--json")
    assert first.id not in [r["id"] for r in json.loads(out)]
    status, out, _ = run("questions", "report", "--json", "--flagged")
    assert qid not in {r["question_id"] for r in json.loads(out)}  # one open report left
    status, out, err = run("reports", "resolve", "999999", "--note", "x")
    assert (status, err) == (1, "tpquiz reports resolve: there is no report #999999\n")
