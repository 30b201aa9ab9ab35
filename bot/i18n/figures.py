"""Strings of the figures (issue 29): the "Diagram" button under an answer reply."""

from __future__ import annotations

from bot.quiz.model import Lang

FIGURE_MESSAGES: dict[str, dict[Lang, str]] = {
    "diagram_button": {"tr": "Diyagram", "en": "Diagram"},
    "no_diagram": {
        "tr": "Bu sorunun açıklamasına ait bir diyagram yok.",
        "en": "This question's explanation has no diagram.",
    },
}
