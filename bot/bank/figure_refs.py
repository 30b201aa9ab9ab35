"""Checks of the `figure` and `explanation_figure` fields of questions and templates.

A question names a figure of the registry (bot/bank/figures/) and gives its alt text in
both languages: Discord shows an attachment's description to screen readers and when the
picture does not load. A template's figure must find every parameter it reads among the
template's parameters and `let` values, since it is drawn with the numbers of each post.
Each problem names the field and what to write, at the question's `file:line`.
"""

from __future__ import annotations

from collections.abc import Collection

from bot.bank.choices import ChoiceChecker
from bot.bank.figures import REGISTRY
from bot.bank.problems import shown, suggest, type_name
from bot.bank.yaml_lines import Map
from bot.quiz.model import FigureRef

__all__ = ["FIGURE_KEYS", "MAX_ALT", "FigureChecker", "figure_name_problem", "missing_params"]

#: The two fields, in the order the format document lists them.
FIGURE_KEYS: tuple[str, ...] = ("figure", "explanation_figure")
#: Discord's limit on an attachment's description is 1024; alt text should be far shorter.
MAX_ALT = 500


def figure_name_problem(name: object) -> str | None:
    """Why `name` names no registered figure, or None when it does."""
    if not isinstance(name, str) or not name.strip():
        return "name must be the name of a registered figure, e.g. 'mlp-column-row'"
    if name not in REGISTRY:
        return (
            f"no figure named {shown(name)}; {suggest(name, REGISTRY)}figures are drawing "
            "functions in bot/bank/figures/ (`tpquiz figures` writes them all)"
        )
    return None


def missing_params(name: str, available: Collection[str]) -> list[str]:
    """The parameters figure `name` reads that a template does not provide."""
    return sorted(set(REGISTRY[name].defaults) - set(available))


class FigureChecker(ChoiceChecker):
    """The question checker's figure fields (a base of `QuestionChecker`)."""

    def _check_figure(self, item: Map, key: str) -> FigureRef | None:
        """`key: {name: ..., alt: {tr: ..., en: ...}}`, a registered figure with alt text."""
        if key not in item:
            return None
        value = item[key]
        line = item.key_lines[key]
        if not isinstance(value, Map):
            self.add(
                line,
                key,
                f"must be a mapping {{name: <figure>, alt: {{tr: ..., en: ...}}}}, "
                f"got {type_name(value)}",
            )
            return None
        self._duplicate_keys(value, f"{key}.")
        for sub in value:
            if sub not in ("name", "alt"):
                self.add(
                    value.key_lines[sub],
                    f"{key}.{str(sub)[:40]}",
                    f"unknown key {shown(sub)}; a figure has only name and alt",
                )
        why = figure_name_problem(value.get("name"))
        if why is not None:
            self.add(value.key_lines.get("name", line), f"{key}.name", why)
        if "alt" not in value:
            self.add(
                line,
                f"{key}.alt",
                "missing alt text; add alt: {tr: ..., en: ...} "
                "saying what the picture shows (Discord reads it out)",
            )
            return None
        alt = self._text(value, "alt", f"{key}.alt", MAX_ALT)
        if why is not None or alt is None:
            return None
        return FigureRef(name=str(value["name"]), alt=alt)
