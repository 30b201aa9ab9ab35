"""`tpquiz validate --stats`: the bank-wide choice-balance figures (issue 9 1).

Per language, over the questions beyond the starting eight: the share whose key is at
least as long as every other choice (target <= 30 %), the median key / mean distractor
ratio (0.85-1.15) and the count over 1.5x the longest distractor (0), each with its
target and whether it is met.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot.bank.loader import load_bank
from bot.bank.stats import balance
from bot.cli.bank import main
from tests.quiz.test_clues import BALANCED, question
from tests.quiz.test_loader import FIXTURES
from tests.quiz.test_rank_stats import TEMPLATE  # the key is always the 2nd smallest


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
rank strategies (tr, questions beyond the starting eight):
  by length: always the shortest: 50% of 2  target <= 32%  NOT MET
  by words: always the fewest words: 33% of 2  target <= 32%  NOT MET
  by value (numeric choices): always the smallest: 100% of 1  target <= 32%  NOT MET
rank strategies (en, questions beyond the starting eight):
  by length: always the shortest: 50% of 2  target <= 32%  NOT MET
  by words: always the fewest words: 33% of 2  target <= 32%  NOT MET
  by value (numeric choices): always the smallest: 100% of 1  target <= 32%  NOT MET
  (a tie among m choices counts 1/m for each tied rank: the strategy's expected score)
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
    bank = load_bank()
    figures = balance(bank)
    assert [f.lang for f in figures] == ["tr", "en"]
    for f in figures:
        assert f.questions == len(bank) - 8  # every question beyond the starting eight
        assert f.longest_met and f.median_met and f.over_met, f
    code, out, err = run("validate", "--stats")
    assert (code, err) == (0, "")  # no warning either: no template sits at one rank > 60 %
    balance_lines = out[out.index("choice balance (tr") : out.index("rank strategies (tr")]
    assert "NOT MET" not in balance_lines and balance_lines.count(" met\n") == 6
    templates = out[out.index("rank strategies (templates") :].splitlines()
    assert re.fullmatch(
        r"rank strategies \(templates, \d+ x 300 draws, by value; a shape by its product\):",
        templates[0],
    )
    assert templates[1].startswith("  pooled: always the ") and templates[1].endswith(
        "target <= 32%  met"
    )
    assert templates[2].startswith("  worst: tpl-") and templates[2].endswith("target <= 40%  met")


def test_no_rank_strategy_beats_the_target_on_the_fixed_questions() -> None:
    """Issue 28 1: by length, by words and by value, in each language, no "always pick
    rank k" strategy scores over 32 % on the questions beyond the starting eight."""
    out = run("validate", "--stats")[1]
    fixed = out[out.index("rank strategies (tr") : out.index("rank strategies (templates")]
    assert "NOT MET" not in fixed
    assert fixed.count("target <= 32%  met") == 6, fixed


def test_a_template_whose_key_sits_at_one_rank_is_warned_about_and_misses_its_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key is always the second smallest: a warning at the template's line (the exit
    status stays 0, as for every warning), and --stats names it as the worst."""
    monkeypatch.chdir(tmp_path)
    Path("q.yaml").write_text(question(("Bir reduce-scatter", "A reduce-scatter"), BALANCED))
    Path("templates").mkdir()
    Path("templates/t.yaml").write_text(TEMPLATE.replace("MORE\n", ""), encoding="utf-8")
    code, out, err = run("validate", "q.yaml")
    assert code == 0
    assert (
        "templates/t.yaml:2: tpl-fixed: distractors: warning: the key is the 2nd smallest"
        " value in 100% of 300 draws (more than 60%): a member who always picks that rank"
        " beats chance; add mistakes on the other side of the key"
    ) in err.splitlines()
    assert "rank strategies" not in out
    code, out, _ = run("validate", "--stats", "q.yaml")
    assert code == 0
    assert out.endswith(
        "rank strategies (templates, 1 x 300 draws, by value; a shape by its product):\n"
        "  pooled: always the 2nd smallest: 100% of 300  target <= 32%  NOT MET\n"
        "  worst: tpl-fixed: always the 2nd smallest: 100% of 300  target <= 40%  NOT MET\n"
        "  (a tie among m choices counts 1/m for each tied rank: the strategy's expected score)\n"
    )
