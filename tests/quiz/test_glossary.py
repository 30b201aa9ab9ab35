"""The Turkish glossary check (issue 9 3): one source of truth, enforced by validate.

questions/glossary/turkish.yaml is the source; docs/glossary.md's table must be its
rendering, every ruled-out variant in a Turkish text is an error at its line, the pinned
original stems and choices of start-01..06 are exempt, and the bundled bank passes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.bank.glossary import PINNED_TURKISH, load_terms, render_table, ruled_out_in
from bot.bank.loader import bundled_question_files, check_files, load_bank
from tests.quiz.test_loader import _question

DOC = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"


def test_the_documents_table_is_rendered_from_the_yaml() -> None:
    """Regenerate with `python -m bot.bank.glossary` after editing the YAML."""
    table = DOC.read_text(encoding="utf-8").split("## Terms\n\n", 1)[1]
    assert table == render_table(load_terms())


def test_every_term_has_a_form_and_ruled_out_forms_are_unique() -> None:
    terms = load_terms()
    assert len(terms) >= 41
    forms = [v.casefold() for t in terms for v in t.ruled_out]
    assert len(forms) == len(set(forms))
    assert all(t.english and t.turkish for t in terms)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("İki Mikro-Batch arasında", ["Mikro-Batch"]),
        ("DİKKAT MEKANİZMASI head'lere bölünür", ["DİKKAT MEKANİZMA"]),
        ("Korthikanti ve ark. 2022", ["ve ark."]),
        ("kafaların sayısı", ["kafa"]),
        ("`--micro-batch-size` ve micro-batch", []),  # the bank's form and a code name
        ("dikkatli olun", []),  # plain Turkish "dikkat" stays a word
        ("yakafa", []),  # only at the start of a word
    ],
)
def test_variants_are_found_case_folded_at_word_start(text: str, found: list[str]) -> None:
    assert [v.found for v in ruled_out_in(text)] == found


def test_a_ruled_out_variant_fails_validate_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    body = _question(tr="Her mikro-batch neyi böler?")
    Path("q.yaml").write_text(body, encoding="utf-8")
    bank, problems = check_files(["q.yaml"])
    assert bank is None
    assert [str(p) for p in problems] == [
        "q.yaml:5: q-1: text.tr: 'mikro-batch' is a form docs/glossary.md rules out for "
        "'micro-batch'; write 'micro-batch'"
    ]


def test_feedback_and_explanations_are_checked_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    body = (
        _question()
        .replace("Yanlış.", "Bu öz-dikkat değil.")
        .replace("Açıklama.", "Bkz. Takeaway #1")
    )
    Path("q.yaml").write_text(body, encoding="utf-8")
    _, problems = check_files(["q.yaml"])
    assert [(p.line, p.field) for p in problems] == [
        (11, "choices[1].feedback.tr"),
        (12, "explanation.tr"),
    ]


def test_the_original_turkish_of_start_01_to_06_is_exempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """start-01's original choice "Optimize edici öğrenme oranı" is pinned verbatim."""
    monkeypatch.chdir(tmp_path)
    body = _question(qid="start-01", choice_tr="Optimize edici").replace(
        "  difficulty: 1\n", "  difficulty: 1\n  tags: [starting]\n"
    )
    Path("q.yaml").write_text(body, encoding="utf-8")
    assert check_files(["q.yaml"])[1] == []
    # its feedback is not pinned, so it follows the glossary
    Path("q.yaml").write_text(body.replace("Yanlış.", "Optimize edici yanlış."), encoding="utf-8")
    assert [p.field for p in check_files(["q.yaml"])[1]] == ["choices[1].feedback.tr"]
    assert PINNED_TURKISH == {f"start-0{i}" for i in range(1, 7)}


def test_the_bundled_bank_passes_the_glossary() -> None:
    _, problems = check_files(bundled_question_files())
    assert problems == []


def test_the_exemption_is_what_lets_the_pinned_originals_pass() -> None:
    """start-01's "Optimize edici" and start-04's "Dikkat mekanizması" are ruled out forms."""
    bank = load_bank()
    assert ruled_out_in(bank["start-01"].choices[3].text.tr)
    assert ruled_out_in(bank["start-04"].text.tr)
