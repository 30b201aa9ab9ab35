"""The eight questions of the original quiz, pinned verbatim.

questions/starting-quiz.yaml must carry the original quiz exactly as it was written: six
questions in Turkish (start-01..06) and two in English (start-07..08), with the original
stem and choices unchanged and in the original order. The other language is a translation
and is not pinned here; only its presence is checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

QUIZ = Path(__file__).resolve().parents[2] / "questions" / "starting-quiz.yaml"

# id -> (original language, stem, choices in original order, index of the correct choice)
ORIGINAL: dict[str, tuple[str, str, list[str], int]] = {
    "start-01": (
        "tr",
        "Tensör paralelliği GPU'lar arasında nasıl bölünür?",
        [
            "Tek bir katmandaki ağırlık matrisleri",
            "Katmanların tamamı ayrı GPU'lara yerleştirildi",
            "Farklı eğitim veri kümeleri",
            "Optimize edici öğrenme oranı",
        ],
        0,
    ),
    "start-02": (
        "tr",
        "Megatron tarzı MLP bölünmesinde, iletişimi en aza indirmek için iki ağırlık matrisi nasıl bölünür?",
        [
            "Her ikisi de sütun bazında",
            "İlk sütun bazında, ikinci satır bazında",
            "Her ikisi de satır bazında",
            "Hiçbir şekilde bölümlenmemişler",
        ],
        1,
    ),
    "start-03": (
        "tr",
        "Tensör paralelliği neden genellikle tek bir düğümde tutulur?",
        [
            "Düğümler GPU'ları çalıştıramaz",
            "Farklı düğümlerdeki GPU'lar farklı matematik kullanır",
            "En iyi NVLink tarafından sunulan, sık sık yüksek bant genişliğine sahip iletişime ihtiyaç duyar",
            "Bu yasal bir zorunluluktur",
        ],
        2,
    ),
    "start-04": (
        "tr",
        "Dikkat mekanizması tipik olarak tensör paralelliği altında nasıl paralelleştirilir?",
        [
            "Her GPU'ya yedekli olarak hesaplamanın tamamını vererek",
            "Dikkati tamamen atlayarak",
            "Dikkati bir evrişime dönüştürerek",
            "Dikkat kafaları arasında bölünerek her GPU bir alt kümeyi yönetir",
        ],
        3,
    ),
    "start-05": (
        "tr",
        "Hangi kolektif işlem genellikle kısmi sonuçları tensör paralelliğinde birleştirir?",
        [
            "Tamamen azaltılmış bir",
            "Bir dosya kopyası",
            "Veritabanı birleştirme",
            "DNS araması",
        ],
        0,
    ),
    "start-06": (
        "tr",
        "Tensör paralelliği tipik olarak '3 boyutlu paralelliğe' nasıl uyuyor?",
        [
            "Diğer tüm paralellik biçimlerinin yerini alır",
            "Boru hattı ve veri paralelliği ile birleştirilmiştir",
            "Yalnızca başka bir paralellik olmadan çalışır",
            "Yalnızca görüntü modelleri için kullanılır",
        ],
        1,
    ),
    "start-07": (
        "en",
        "After the row-wise partition of an MLP's second matrix, why must GPUs combine partial outputs?",
        [
            "The GPUs each hold a different optimizer",
            "The result is a vocabulary probability that must be sorted",
            "Each GPU computed a partial contribution to the same output, so the pieces must be summed",
            "The model needs to average separate datasets",
        ],
        2,
    ),
    "start-08": (
        "en",
        "Why can interconnect latency limit tensor-parallel scaling across distant nodes?",
        [
            "Tensor parallelism never communicates between GPUs",
            "The attention mask must be copied after every token",
            "Every GPU trains a separate model",
            "Collectives are required repeatedly within layers, so communication latency accumulates",
        ],
        3,
    ),
}

EXPECTED_TOPICS = {
    "start-01": "basics",
    "start-02": "mlp-split",
    "start-03": "comm-cost",
    "start-04": "attention-split",
    "start-05": "collectives",
    "start-06": "3d-parallelism",
    "start-07": "mlp-split",
    "start-08": "comm-cost",
}


@pytest.fixture(scope="module")
def quiz() -> dict[str, dict]:
    with QUIZ.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    assert isinstance(data, list)
    return {q["id"]: q for q in data}


def test_exactly_the_eight_starting_ids(quiz: dict[str, dict]) -> None:
    assert sorted(quiz) == sorted(ORIGINAL)
    assert len(quiz) == 8


def test_every_question_is_tagged_starting(quiz: dict[str, dict]) -> None:
    for qid, q in quiz.items():
        assert q.get("tags") == ["starting"], qid


def test_topics(quiz: dict[str, dict]) -> None:
    for qid, topic in EXPECTED_TOPICS.items():
        assert quiz[qid]["topic"] == topic, qid


@pytest.mark.parametrize("qid", sorted(ORIGINAL))
def test_original_text_is_verbatim(quiz: dict[str, dict], qid: str) -> None:
    lang, stem, _choices, _correct = ORIGINAL[qid]
    assert quiz[qid]["text"][lang] == stem


@pytest.mark.parametrize("qid", sorted(ORIGINAL))
def test_original_choices_are_verbatim_and_in_order(quiz: dict[str, dict], qid: str) -> None:
    lang, _stem, choices, _correct = ORIGINAL[qid]
    assert [c["text"][lang] for c in quiz[qid]["choices"]] == choices


@pytest.mark.parametrize("qid", sorted(ORIGINAL))
def test_correct_choice(quiz: dict[str, dict], qid: str) -> None:
    _lang, _stem, _choices, correct = ORIGINAL[qid]
    flags = [c.get("correct") is True for c in quiz[qid]["choices"]]
    assert flags.count(True) == 1, qid
    assert flags.index(True) == correct, qid


@pytest.mark.parametrize("qid", sorted(ORIGINAL))
def test_translation_explanation_and_feedback_present(quiz: dict[str, dict], qid: str) -> None:
    q = quiz[qid]
    for lang in ("tr", "en"):
        assert q["text"][lang].strip(), (qid, lang)
        assert q["explanation"][lang].strip(), (qid, lang)
        for c in q["choices"]:
            assert c["text"][lang].strip(), (qid, lang)
            if c.get("correct") is not True:
                assert c["feedback"][lang].strip(), (qid, lang)
    assert q["source"].strip()
    assert q["difficulty"] in (1, 2, 3)
