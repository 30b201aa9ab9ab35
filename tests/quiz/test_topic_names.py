"""Topic names members read (issue 32): every topic has one in both languages, from one
source (questions/glossary/topics.yaml), rendered into docs/glossary.md, in the glossary's
Turkish; the slug stays the key.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.bank.files import bundled_dir
from bot.bank.glossary import ruled_out_in
from bot.bank.loader import load_bank
from bot.bank.template_files import load_templates
from bot.bank.topic_names import (
    load_topic_names,
    missing_names,
    render_table,
    topic_list,
    topic_name,
    topic_text,
)
from bot.i18n import t
from bot.quiz.model import LANGS, TOPICS, Text, in_topic_order

DOC = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"
#: Discord's limit on a choice's name, in every locale.
CHOICE_NAME = 100


def _used_topics() -> set[str]:
    """Every topic the bundled question files and templates name, read from the YAML
    itself (not through the loaders, which would refuse an unknown one)."""
    used: set[str] = set()
    for path in [*bundled_dir().glob("*.yaml"), *(bundled_dir() / "templates").glob("*.yaml")]:
        for entry in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            if isinstance(entry, dict) and "topic" in entry:
                used.add(str(entry["topic"]))
    return used


def test_every_topic_has_a_name_in_both_languages() -> None:
    used = _used_topics()
    assert used >= {"attention-split", "rng-and-dropout", "vs-other-parallelism"}
    assert missing_names([*TOPICS, *sorted(used - set(TOPICS))]) == []
    # The loaders agree on what is used: every topic of the bank and the templates.
    loaded = {q.topic for q in load_bank()} | {tpl.topic for tpl in load_templates()}
    assert loaded == used


def test_a_topic_without_a_name_in_one_language_is_reported(tmp_path: Path) -> None:
    """What makes the test above fail when a topic is added without its names."""
    path = tmp_path / "topics.yaml"
    path.write_text(
        '- slug: basics\n  en: "Basics"\n  tr: ""\n- slug: memory\n  en: "Memory"\n',
        encoding="utf-8",
    )
    assert missing_names(["basics", "memory", "overlap"], path) == [
        "basics (tr)",
        "memory (tr)",
        "overlap (tr)",
        "overlap (en)",
    ]


def test_the_names_are_exactly_the_topics_and_distinct() -> None:
    names = load_topic_names()
    assert list(names) == list(TOPICS)  # no stale slug, in the teaching order
    for lang in LANGS:
        shown = [text.get(lang) for text in names.values()]
        assert len({s.casefold() for s in shown}) == len(shown)  # two choices never look alike
        assert all(0 < len(s) <= CHOICE_NAME and s == s.strip() for s in shown)
    # A name is not its slug: members read words, not file keys.
    assert all(text.en != slug and text.tr != slug for slug, text in names.items())


def test_the_turkish_names_follow_the_glossary() -> None:
    for slug, text in load_topic_names().items():
        assert ruled_out_in(text.tr) == [], slug
    assert topic_name("collectives", "tr") == "Kolektif işlemler"  # "kolektif işlem"
    assert topic_name("inference", "tr") == "Çıkarım"  # "çıkarım"
    assert topic_name("sequence-parallel", "tr") == "Sequence parallelism"


def test_the_documents_table_is_rendered_from_the_yaml() -> None:
    """Regenerate with `python -m bot.bank.topic_names` after editing the YAML."""
    section = DOC.read_text(encoding="utf-8").split("## Topics\n", 1)[1].split("\n## ", 1)[0]
    table = section[section.index("| slug") :]
    assert table == render_table(load_topic_names())


def test_names_by_language_and_an_unknown_slug_shown_as_itself() -> None:
    assert topic_name("attention-split", "tr") == "Attention'ın bölünmesi"
    assert topic_name("attention-split", "en") == "Splitting attention"
    assert topic_text("no-such-topic") == Text(tr="no-such-topic", en="no-such-topic")
    assert topic_list(["basics", "memory"]) == Text(
        tr="Temel kavramlar, Bellek", en="Basics, Memory"
    )


def test_a_message_puts_a_name_in_in_the_readers_language() -> None:
    """How a `QuizError` carries a topic without knowing who reads it."""
    params = {"topic": topic_text("memory"), "topics": topic_list(["basics", "memory"])}
    assert t("unknown_topic", "tr", **params) == (
        "'Bellek' diye bir konu yok. Konular: Temel kavramlar, Bellek"
    )
    assert t("unknown_topic", "en", **params) == (
        "There is no topic 'Memory'. Topics: Basics, Memory"
    )


def test_per_topic_lists_follow_the_teaching_order() -> None:
    assert in_topic_order(["inference", "zzz-custom", "basics", "memory"]) == [
        "basics",
        "memory",
        "inference",
        "zzz-custom",
    ]


def test_every_english_name_fits_the_reports_topic_column() -> None:
    from bot.cli.stats import TOPIC_WIDTH

    assert max(len(text.en) for text in load_topic_names().values()) <= TOPIC_WIDTH
