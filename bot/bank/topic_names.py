"""What a member or moderator reads for a topic (issue 32): "Attention'ın bölünmesi" and
"Splitting attention", never the slug `attention-split`.

The slug stays the key in question files, templates and the database; the names are
data, in `questions/glossary/topics.yaml` (the one source of truth, beside the Turkish
glossary so the Turkish names follow its terms). The Topics table in docs/glossary.md is
rendered from it (`python -m bot.bank.topic_names` prints it; a test checks the document
agrees), and a test fails while any topic of `TOPICS` lacks a name in either language.
A slug with no name (a broken install) is shown as itself rather than failing a reply.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterable
from pathlib import Path

import yaml

from bot.bank.files import bundled_dir
from bot.quiz.model import LANGS, Lang, Text

__all__ = [
    "load_topic_names",
    "missing_names",
    "render_table",
    "topic_name",
    "topic_names_path",
    "topic_list",
    "topic_text",
]


def topic_names_path() -> Path:
    return bundled_dir() / "glossary" / "topics.yaml"


@functools.cache
def load_topic_names(path: Path | None = None) -> dict[str, Text]:
    """slug -> its names, in the file's order. Entries without a slug are skipped; a
    missing language stays empty (what `missing_names` reports)."""
    raw = yaml.safe_load((path or topic_names_path()).read_text(encoding="utf-8")) or []
    names: dict[str, Text] = {}
    for entry in raw:
        if isinstance(entry, dict) and entry.get("slug"):
            tr, en = (str(entry.get(lang) or "").strip() for lang in LANGS)
            names[str(entry["slug"])] = Text(tr=tr, en=en)
    return names


def topic_text(slug: str) -> Text:
    """The topic's name in both languages (the slug where a name is missing)."""
    text = load_topic_names().get(slug)
    if text is None:
        return Text(tr=slug, en=slug)
    return Text(tr=text.tr or slug, en=text.en or slug)


def topic_name(slug: str, lang: Lang) -> str:
    """The topic's name in `lang`, as members read it."""
    return topic_text(slug).get(lang)


def topic_list(slugs: Iterable[str]) -> Text:
    """The topics' names joined with commas, in both languages."""
    texts = [topic_text(slug) for slug in slugs]
    return Text(tr=", ".join(x.tr for x in texts), en=", ".join(x.en for x in texts))


def missing_names(slugs: Iterable[str], path: Path | None = None) -> list[str]:
    """`slug (lang)` for every slug without a name in a language, in the order given."""
    names = load_topic_names(path)
    missing = []
    for slug in slugs:
        text = names.get(slug)
        missing += [f"{slug} ({lang})" for lang in LANGS if text is None or not text.get(lang)]
    return missing


def render_table(names: dict[str, Text]) -> str:
    """The Topics table of docs/glossary.md."""
    rows = ["| slug (files, database) | English | Turkish |", "| --- | --- | --- |"]
    rows += [f"| `{slug}` | {text.en} | {text.tr} |" for slug, text in names.items()]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # pragma: no cover - a maintainer's tool
    sys.stdout.write(render_table(load_topic_names()))
