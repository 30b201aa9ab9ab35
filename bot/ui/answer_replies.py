"""An answer reply's embed, from the parts that are the same for every click on a post.

Every click on a post gets the same title, question text and feedback fields for the
same choice and language; only the member's figures (points, rank, streak: the footer)
differ. Rendering and fitting those parts cost half of the reply's own building (about
10 of 20 µs a click: `python -m bench.reply_build`, docs/performance.md §1), so
they are built once per (post, language, choice, kind of reply) and kept in a small
bounded cache; a click copies the kept embed's parts and sets its footer.

A kept entry is used only for the same Question object and the same order: a bank
reloaded (a question edited) gives new Question objects, so the post's entries are
rebuilt then. The kept embeds are fitted to Discord's limits once, with room left for
the longest footer, and marked `Fitted` so that `bot.ui.limits.fit` skips them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import discord

from bot.quiz.model import Lang, Question
from bot.quiz.scoring import AnswerResult
from bot.ui.limits import Fitted, fit_embed

#: Entries kept: a post has at most 5 choices x 2 languages x 3 kinds, and a busy hour
#: has a few dozen posts being clicked.
KEPT = 1024
#: Room kept for the footer when fitting: a points line is under 100 characters.
FOOTER_ROOM = "x" * 120

Key = tuple[int, Lang, int, str]


def kind_of(result: AnswerResult) -> str:
    """Which reply a result gets: a repeated click, a right answer worth no points, or
    the ordinary one (the parts before the footer differ between them)."""
    if result.duplicate:
        return "duplicate"
    if result.points_awarded == 0 and result.correct:
        return "repeat"
    return "first"


class AnswerReplies:
    """A bounded least-recently-used cache of answer embeds without their footer."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._entries: OrderedDict[Key, tuple[Question, tuple[int, ...], discord.Embed]] = (
            OrderedDict()
        )
        self.built = 0  # how many were rendered (tests, benches)

    def __len__(self) -> int:
        return len(self._entries)

    def embed(
        self,
        post_id: int,
        question: Question,
        order: tuple[int, ...],
        result: AnswerResult,
        lang: Lang,
        footer: str,
        render: Callable[[], discord.Embed],
    ) -> discord.Embed:
        """The reply for `result` on post `post_id`: the kept parts, `footer` set.

        `render` builds the whole embed (footer included or not: it is replaced)."""
        key = (post_id, lang, result.choice_index, kind_of(result))
        entry = self._entries.get(key)
        if entry is None or entry[0] is not question or entry[1] != order:
            entry = (question, order, self._template(render()))
            self._entries[key] = entry
            self.built += 1
            if len(self._entries) > self.kept:
                self._entries.popitem(last=False)
        else:
            self._entries.move_to_end(key)
        kept = entry[2]
        embed = Fitted(title=kept.title, description=kept.description, colour=kept.colour)
        # The field dicts are shared, never changed: nothing edits a sent reply's embed,
        # and `fit` skips a Fitted one. Copying the list is what discord.py's own
        # `Embed.copy` does to fields, without a round trip through a dict.
        embed._fields = kept._fields[:]
        embed.set_footer(text=footer)
        return embed

    @staticmethod
    def _template(embed: discord.Embed) -> discord.Embed:
        embed.set_footer(text=FOOTER_ROOM)
        fit_embed(embed)
        embed.remove_footer()
        if not hasattr(embed, "_fields"):
            embed._fields = []
        return embed
