"""A server's upload (issue 27, bot/bank/own_upload.py): the bank's checks at the uploaded
file's lines, one-language questions, GIFT and Aiken, the limits, look-alikes of the
bundled bank as warnings, and the export that uploads back to the same questions."""

from __future__ import annotations

import json

from bot.bank.loader import load_bank
from bot.bank.own_upload import check_upload, export_yaml, guess_format
from bot.quiz.own_questions import MAX_UPLOAD_BYTES, OwnQuestion, runtime_id

GOOD_EN = """\
- id: our-01
  topic: practice
  difficulty: 2
  text:
    en: "Our cluster has 4 GPUs per node joined by PCIe only. Where should the tensor-parallel group sit?"
  choices:
    - text: {en: "Within one node, with a tensor-parallel size of 4 at most"}
      correct: true
    - text: {en: "Across two nodes, to spread the all-reduce over both networks"}
      feedback: {en: "Each all-reduce would then cross the slower inter-node link."}
    - text: {en: "Across all nodes, so each GPU holds the smallest weight slice"}
      feedback: {en: "The per-layer all-reduces would all cross the network; too slow."}
  explanation:
    en: "Tensor parallelism all-reduces activations in every layer, so it belongs on the fastest links: inside a node."
  source: "Our reading group, session 3 (Megatron-LM 3)"
"""

BOTH = """\
- id: our-02
  topic: basics
  difficulty: 1
  text:
    tr: "Okuma grubumuzda tensör paralelliği hangi kaynağı böler?"
    en: "In our reading group, which resource does tensor parallelism divide?"
  choices:
    - text: {tr: "Her katmanın ağırlıklarını", en: "Each layer's weights"}
      correct: true
    - text: {tr: "Veri kümesinin örneklerini", en: "The data set's samples"}
      feedback: {tr: "Bu veri paralelliğidir.", en: "That is data parallelism."}
    - text: {tr: "Modelin ardışık katmanlarını", en: "The model's consecutive layers"}
      feedback: {tr: "Bu pipeline paralelliğidir.", en: "That is pipeline parallelism."}
  explanation:
    tr: "Tensör paralelliği her katmanın matrislerini GPU'lara böler."
    en: "Tensor parallelism splits each layer's matrices over the GPUs."
  source: "Shoeybi et al. 2019, Megatron-LM (arXiv:1909.08053), 3"
"""


def _own(check_questions, guild: int = 1) -> list[OwnQuestion]:
    return [OwnQuestion(guild, q.id, 1, langs, q, 0) for q, langs in check_questions]


def test_a_good_one_language_question_passes_with_its_language() -> None:
    check = check_upload(GOOD_EN.encode(), "ours.yaml")
    assert check.ok, [str(p) for p in check.problems]
    [(question, languages)] = check.questions
    assert (question.id, languages) == ("our-01", ("en",))
    assert question.text.tr == question.text.en


def test_both_languages_and_one_file_of_two() -> None:
    check = check_upload((GOOD_EN + "\n" + BOTH).encode(), "ours.yaml")
    assert check.ok, [str(p) for p in check.problems]
    assert [(q.id, langs) for q, langs in check.questions] == [
        ("our-01", ("en",)),
        ("our-02", ("tr", "en")),
    ]


def test_an_error_names_file_line_field_and_reason_and_stores_nothing() -> None:
    broken = GOOD_EN.replace('  source: "Our reading group, session 3 (Megatron-LM 3)"\n', "")
    broken = broken.replace("difficulty: 2", "difficulty: 7")
    check = check_upload((BOTH + "\n" + broken).encode(), "ours.yaml")
    assert not check.ok and check.questions == ()
    lines = [str(p) for p in check.problems]
    assert any(s.startswith("ours.yaml:21: our-01: difficulty:") for s in lines), lines
    assert any(": our-01: source: missing required field source" in s for s in lines), lines


def test_texts_of_one_question_in_different_languages_are_refused() -> None:
    mixed = BOTH.replace(
        '    tr: "Tensör paralelliği her katmanın matrislerini GPU\'lara böler."\n', ""
    )
    check = check_upload(mixed.encode(), "mixed.yaml")
    assert [p.field for p in check.problems] == ["text"]
    assert "same languages" in check.problems[0].message


def test_a_bundled_look_alike_is_a_warning_not_an_error() -> None:
    bank = load_bank()
    source = next(q for q in bank if q.id == "basics-01")
    copy = BOTH.replace(
        '    en: "In our reading group, which resource does tensor parallelism divide?"',
        f"    en: {json.dumps(source.text.en)}",
    )
    check = check_upload(copy.encode(), "ours.yaml", bundled=bank)
    assert check.ok, [str(p) for p in check.problems]
    assert any("basics-01" in w.message and w.field == "text.en" for w in check.warnings)


def test_the_servers_own_look_alike_warns_unless_it_is_the_one_replaced() -> None:
    first = check_upload(BOTH.encode(), "ours.yaml")
    own = _own(first.questions)
    again = check_upload(BOTH.encode(), "ours.yaml", own=own)
    assert again.ok and again.warnings == ()
    renamed = check_upload(BOTH.replace("our-02", "our-03").encode(), "ours.yaml", own=own)
    assert renamed.ok
    assert any("our-02 (this server's)" in w.message for w in renamed.warnings)


def test_limits_of_size_and_count() -> None:
    big = check_upload(b"#" * (MAX_UPLOAD_BYTES + 1), "big.yaml")
    assert "over the limit" in big.problems[0].message
    many = "\n".join(BOTH.replace("our-02", f"our-{i}") for i in range(501))
    check = check_upload(many.encode(), "many.yaml")
    assert not check.ok and "over 500 questions" in check.problems[0].message


def test_not_utf8_is_one_problem_at_its_line() -> None:
    check = check_upload(b"- id: a\n- id: \xff\n", "latin.yaml")
    assert [(p.line, p.file) for p in check.problems] == [(2, "latin.yaml")]
    assert "not UTF-8" in check.problems[0].message


GIFT = """\
// our quiz
::q1:: Where should the tensor-parallel group of a PCIe-only node sit? {
=Within one node #Right: the fastest links.
~Across two nodes #Each all-reduce would cross the network.
~Across all nodes #Every layer's all-reduce would cross the network.
####Tensor parallelism all-reduces in every layer, so it belongs inside a node.
}

::q2:: Which resource does tensor parallelism divide? {
=Each layer's weights
~The data set's samples #That is data parallelism.
~The model's consecutive layers
}
"""


def test_gift_problems_are_at_the_gift_files_lines() -> None:
    assert guess_format("ours.gift") == "gift" and guess_format("a.txt") == "aiken"
    check = check_upload(GIFT.encode(), "ours.gift", lang="en", topic="practice")
    assert not check.ok
    where = {(p.line, p.field) for p in check.problems}
    # GIFT has no source line, and q2's last wrong choice has no feedback.
    assert (2, "source") in where and (9, "source") in where
    assert (9, "choices[2].feedback.en") in where
    assert all(p.file == "ours.gift" for p in check.problems)


def test_aiken_is_read_in_the_language_given() -> None:
    aiken = "Which resource does tensor parallelism divide?\nA. Weights\nB. Samples\nANSWER: A\n"
    check = check_upload(aiken.encode(), "ours.txt", lang="tr")
    assert not check.ok
    assert {p.line for p in check.problems} == {1}
    assert any(p.field.endswith(".tr") for p in check.problems)


def test_an_export_uploads_back_to_the_same_questions() -> None:
    first = check_upload((GOOD_EN + "\n" + BOTH).encode(), "ours.yaml")
    stored = [
        OwnQuestion(1, q.id, 3, langs, q.__class__(**{**_fields(q), "id": runtime_id(q.id, 3)}), 0)
        for q, langs in first.questions
    ]
    exported = export_yaml(stored)
    again = check_upload(exported.encode(), "export.yaml")
    assert again.ok, [str(p) for p in again.problems]
    assert [(q.id, langs) for q, langs in again.questions] == [
        (q.id, langs) for q, langs in first.questions
    ]
    for (a, _), (b, _) in zip(first.questions, again.questions, strict=True):
        assert _fields(a, line=False) == _fields(b, line=False)


def _fields(q, *, line: bool = True) -> dict:
    names = ["id", "topic", "difficulty", "text", "choices", "explanation", "source", "tags"]
    if line:
        names += ["file", "line"]
    return {name: getattr(q, name) for name in names}


def test_a_figure_alt_in_both_languages_on_an_english_question_is_one_problem() -> None:
    """Texts in en only but a figure's alt in tr and en: one clear problem, no crash (a
    clue in tr named a field the question lacks: KeyError before)."""
    mixed = GOOD_EN.replace(
        '"Within one node, with a tensor-parallel size of 4 at most"',
        '"Inside one node of our cluster, at most 4 ways"',  # a stem-word clue, in both
    ) + (
        "  explanation_figure:\n    name: grid-3d\n    alt:\n"
        '      tr: "Dört GPU\'lu düğümler"\n      en: "Nodes of four GPUs"\n'
    )
    check = check_upload(mixed.encode(), "ours.yaml")
    assert not check.ok and check.questions == ()
    assert [str(p) for p in check.problems] == [
        "ours.yaml:1: our-01: text: every text of a question must be in the same languages"
        " (some have en only); write them all in tr, all in en, or all in both"
    ]
