"""`tpquiz validate` as an author runs it (`tpquiz import`: tests/test_cli_import.py).

One validate case per kind of mistake (the broken fixtures), asserting the exact
`file:line: question-id: field:` prefix an editor or CI would jump to, plus the
statistics printed for a good bank and the exit codes.
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from bot.cli import bank as bank_commands
from bot.cli.bank import main, register
from tests.quiz.test_loader import (
    FIXTURES,
    Expectation,
    broken_fixtures,
    broken_multi_fixtures,
)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths in messages are relative to here, so expected prefixes are exact."""
    monkeypatch.chdir(FIXTURES)


@pytest.mark.parametrize("case", broken_fixtures(), ids=lambda c: Path(c.path).stem)
def test_validate_reports_each_kind_of_mistake(case: Expectation) -> None:
    code, out, err = run("validate", case.path)
    assert code == 1
    assert out == ""
    lines = err.splitlines()
    assert any(line.startswith(case.prefix) and case.fragment in line for line in lines), (
        f"want {case.prefix!r}…{case.fragment!r} in:\n{err}"
    )
    assert lines[-1].endswith("in 1 file")


@pytest.mark.parametrize(
    ("directory", "case"), broken_multi_fixtures(), ids=lambda x: str(x).split("/")[-1]
)
def test_validate_reports_cross_file_mistakes(directory: str, case: Expectation) -> None:
    code, _, err = run("validate", directory)
    assert code == 1
    assert any(line.startswith(case.prefix) for line in err.splitlines()), err


def test_validate_lists_every_problem_on_its_own_line() -> None:
    code, _, err = run("validate", "broken/topic-unknown.yaml", "broken/not-a-list.yaml")
    assert code == 1
    assert err.splitlines() == [
        "broken/topic-unknown.yaml:5: fx-topic: topic: unknown topic 'mlp-splt'; did you mean "
        "'mlp-split'? topics: basics, mlp-split, attention-split, collectives, comm-cost, "
        "embeddings, sequence-parallel, memory, 3d-parallelism, vs-other-parallelism, "
        "practice, overlap, rng-and-dropout, inference, context-parallel, moe-parallel, fp8, "
        "dtensor, checkpoint-resharding, determinism",
        "broken/not-a-list.yaml:4: -: -: the file must be a YAML list of questions, got a "
        "mapping; start each question with '- id: ...'",
        "2 problems in 2 files",
    ]


GOOD_COUNTS = """\
OK: 3 questions in 2 files
by topic:
  basics                          0
  mlp-split                       1
  attention-split                 0
  collectives                     1
  comm-cost                       0
  embeddings                      0
  sequence-parallel               0
  memory                          1
  3d-parallelism                  0
  vs-other-parallelism            0
  practice                        0
  overlap                         0
  rng-and-dropout                 0
  inference                       0
  context-parallel                0
  moe-parallel                    0
  fp8                             0
  dtensor                         0
  checkpoint-resharding           0
  determinism                     0
by difficulty:
  1 (recall)                      1
  2 (understanding)               1
  3 (worked numbers / subtle)     1
by language:
  tr                              3 questions, 22 strings, 993 characters
  en                              3 questions, 22 strings, 1039 characters
"""


def test_validate_good_files_prints_counts_and_exits_0() -> None:
    code, out, err = run("validate", "good")
    assert (code, err) == (0, "")
    assert out == GOOD_COUNTS


def test_validate_accepts_files_and_directories_together() -> None:
    code, out, _ = run("validate", "good/sample-basics.yaml", "good/sample-memory.yaml")
    assert code == 0 and out == GOOD_COUNTS


def test_validate_without_paths_checks_the_bundled_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    good = sorted((FIXTURES / "good").glob("*.yaml"))
    monkeypatch.setattr(bank_commands, "_bundled", lambda: good)
    code, out, _ = run("validate")
    assert code == 0 and out == GOOD_COUNTS


def test_validate_with_no_question_files_fails(tmp_path: Path) -> None:
    code, _, err = run("validate", str(tmp_path))
    assert code == 1
    assert "no question files (*.yaml) found" in err


def test_register_works_on_the_leads_parser() -> None:
    """bot/cli/main.py builds its own parser; register() must only add subcommands to it."""
    parser = argparse.ArgumentParser(prog="tpquiz")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run")
    register(sub)
    args = parser.parse_args(["validate", "good"])
    assert args.func is bank_commands.run_validate
    assert args.func(args) == 0  # streams default to the process's own
    args = parser.parse_args(["import", "gift", "x.gift", "--lang", "tr", "--topic", "memory"])
    assert (args.func, args.format, args.lang, args.topic) == (
        bank_commands.run_import,
        "gift",
        "tr",
        "memory",
    )
