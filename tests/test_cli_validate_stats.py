"""`tpquiz validate --stats`: the bank-wide choice-balance figures (issue 9 §1).

Per language, over the questions beyond the starting eight: the share whose key is at
least as long as every other choice (target <= 30 %), the median key / mean distractor
ratio (0.85-1.15) and the count over 1.5x the longest distractor (0), each with its
target and whether it is met.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.bank_commands import main
from bot.quiz.bank_stats import balance
from bot.quiz.loader import load_bank
from tests.quiz.test_clues import BALANCED, question
from tests.quiz.test_loader import FIXTURES


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


GOOD_BALANCE = """\
choice balance (tr, 2 questions beyond the starting eight):
  key at least as long as every other choice     0 (0%)  target <= 30%     met
  median key / mean distractor length              0.82  target 0.85-1.15  NOT MET
  key over 1.5x the longest distractor                0  target 0          met
choice balance (en, 2 questions beyond the starting eight):
  key at least as long as every other choice     0 (0%)  target <= 30%     met
  median key / mean distractor length              0.87  target 0.85-1.15  met
  key over 1.5x the longest distractor                0  target 0          met
"""


def test_stats_follow_the_counts_for_the_good_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    code, out, err = run("validate", "--stats", "good")
    assert (code, err) == (0, "")
    _, plain, _ = run("validate", "good")
    assert out == plain + GOOD_BALANCE  # per-topic/difficulty counts first, as without --stats


def test_without_stats_no_balance_is_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    assert "choice balance" not in run("validate", "good")[1]


def test_a_bank_where_the_key_is_always_longest_misses_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    body = question(("Bir reduce-scatter'ı", "A reduce-scatter op"), BALANCED)
    Path("q.yaml").write_text(body, encoding="utf-8")
    code, out, _ = run("validate", "--stats", "q.yaml")
    assert code == 0
    assert (
        "  key at least as long as every other choice   1 (100%)  target <= 30%     NOT MET\n"
        in out
    )


def test_the_bundled_bank_meets_every_target_in_both_languages() -> None:
    figures = balance(load_bank())
    assert [f.lang for f in figures] == ["tr", "en"]
    for f in figures:
        assert f.questions == 90
        assert f.longest_met and f.median_met and f.over_met, f
    code, out, _ = run("validate", "--stats")
    assert code == 0 and "NOT MET" not in out
    assert out.count(" met\n") == 6
