"""What both importers share: arguments, ids that fit the limit, drafts validate flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.bank.importers import dump_yaml, import_aiken, import_gift
from bot.bank.importers.draft import LineIndex, default_prefix, gc_paused
from bot.bank.loader import MAX_ID_LENGTH, check_files

_ONE = "Q?\nA. a\nB. b\nANSWER: A\n"


def _aiken(count: int) -> str:
    return "\n".join([_ONE] * count)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"id_prefix": "Bad Prefix"}, "id prefix 'Bad Prefix' must be lowercase"),
        ({"id_prefix": ""}, "id prefix '' must be lowercase"),
        ({"id_prefix": "ok", "topic": "nope"}, "unknown topic 'nope'"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs: dict[str, str], message: str) -> None:
    for func in (import_aiken, import_gift):
        with pytest.raises(ValueError, match=message):
            func(_ONE, lang="en", source_file="x", **kwargs)


def test_a_prefix_that_fits_is_kept_to_the_last_character() -> None:
    prefix = "p" * (MAX_ID_LENGTH - 3)
    questions = import_aiken(_aiken(2), lang="en", source_file="x", id_prefix=prefix).questions
    assert [len(q["id"]) for q in questions] == [MAX_ID_LENGTH, MAX_ID_LENGTH]


def test_a_chosen_prefix_too_long_for_the_count_is_refused_with_the_length_that_fits() -> None:
    prefix = "p" * 36  # fits "-999", not "-1000"
    with pytest.raises(ValueError) as info:
        import_aiken(_aiken(1000), lang="en", source_file="x", id_prefix=prefix)
    assert str(info.value) == (
        f"id prefix '{prefix}' is 36 characters: with 1000 questions the last id ends in "
        "'-1000' and would be 41 characters, over the limit of 40; use a prefix of at most "
        "35 characters, or import the file in parts"
    )
    last = import_aiken(_aiken(999), lang="en", source_file="x", id_prefix=prefix).questions[-1]
    assert last["id"] == f"{prefix}-999" and len(last["id"]) == MAX_ID_LENGTH


def test_a_prefix_from_the_file_name_is_shortened_so_every_id_fits() -> None:
    name = "A Very Long Quiz File Name From Moodle Export.txt"
    assert default_prefix(name) == "a-very-long-quiz-file-name-from-moodl"  # 37 = 40 - "-NN"
    questions = import_aiken(_aiken(1200), lang="en", source_file=name).questions
    assert questions[-1]["id"] == "a-very-long-quiz-file-name-from-moo-1200"
    assert max(len(q["id"]) for q in questions) == MAX_ID_LENGTH
    assert len({q["id"] for q in questions}) == 1200


def test_a_file_name_without_letters_gives_imported() -> None:
    assert default_prefix("%%%.txt") == "imported"
    assert import_gift("Q {=a ~b}", lang="en", source_file="数学.gift").questions[0]["id"] == (
        "imported-01"
    )


def test_a_turkish_file_name_gives_its_ascii_letters() -> None:
    assert default_prefix("dir/Sınav Soruları - İleri Düzey Çalışma.gift") == (
        "sinav-sorulari-ileri-duzey-calisma"
    )


def test_line_index_maps_offsets_to_given_numbers() -> None:
    index = LineIndex("ab\ncd\n\nef", numbers=[3, 5, 6, 9])
    assert [index.line_at(i) for i in (0, 2, 3, 6, 7, 8)] == [3, 3, 5, 6, 9, 9]
    assert LineIndex("x\ny", first=10).line_at(2) == 11


def test_imported_draft_is_flagged_until_translated_and_completed(tmp_path: Path) -> None:
    """The other language is left out, so validate says exactly what is left to do."""
    questions = import_aiken(
        "Which collective adds partial sums?\nA. All-reduce\nB. Broadcast\nANSWER: A\n",
        lang="en",
        source_file="x",
        topic="collectives",
        id_prefix="imp",
    ).questions
    draft = tmp_path / "draft.yaml"
    draft.write_text(dump_yaml(questions), encoding="utf-8")
    _, problems = check_files([draft])
    assert sorted(p.field for p in problems) == [
        "choices[0].text.tr",
        "choices[1].feedback.en",
        "choices[1].feedback.tr",
        "choices[1].text.tr",
        "explanation.en",
        "explanation.tr",
        "source",
        "text.tr",
    ]
    assert any(p.message.startswith("missing language tr") for p in problems)

    q = questions[0]
    q["text"]["tr"] = "Hangi kolektif kısmi toplamları toplar?"
    q["choices"][0]["text"]["tr"] = "All-reduce"
    q["choices"][1]["text"]["tr"] = "Broadcast"
    q["choices"][1]["feedback"] = {"tr": "Yalnızca kopyalar.", "en": "It only copies."}
    q["explanation"] = {"tr": "All-reduce toplar.", "en": "All-reduce sums."}
    q["source"] = "Megatron-LM 3"
    draft.write_text(dump_yaml(questions), encoding="utf-8")
    bank, problems = check_files([draft])
    assert problems == [] and bank is not None and bank["imp-01"].correct_index == 0


def test_gc_paused_restores_the_collector_as_it_was() -> None:
    import gc

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError
    assert gc.isenabled()
