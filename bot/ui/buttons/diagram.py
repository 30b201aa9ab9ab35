"""The "Diagram" button under a post's answer reply: the explanation's figure, on demand.

An answer reply is ephemeral and goes to every clicker; attaching the explanation's
figure to each would upload a picture per click, most of them unwanted. So the reply
carries this button instead (issue 29), and only a click on it sends the picture, drawn
once per (figure, numbers, language) by the bot's `FigureCache`. Its custom_id
`tpq:d:<post>` carries all a click needs, so it works after a restart; a post of another
server, or a forged number, is refused in one sentence.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import discord

from bot.i18n import t
from bot.quiz.model import Lang
from bot.services.quiz import QuizError
from bot.ui.buttons.report import REPORT_VIEWS_KEPT, ReportButton
from bot.ui.custom_ids import number
from bot.ui.figures import explanation_name, show_explanation_figure
from bot.ui.responses import AnyInteraction, Caller, preamble, refuse_click, reply
from bot.ui.types import Interaction, quiz_bot

__all__ = ["DiagramButton", "answer_reply_view", "show_diagram"]


class DiagramButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:d:(?P<post>[^:]+)",
):
    """Sends the explanation's figure of a post's question, privately."""

    refusal: str | None = None

    def __init__(self, post_id: int, label: str = "Diagram") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji="🖼️",
                style=discord.ButtonStyle.secondary,
                custom_id=f"tpq:d:{post_id}",
            )
        )
        self.post_id = post_id

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DiagramButton:
        post = number(match["post"])
        button = cls(post or 0)
        if post is None:
            button.refusal = "unknown_post"
        return button

    async def callback(self, interaction: AnyInteraction) -> None:
        if self.refusal is not None:
            await refuse_click(interaction, self.refusal)
            return
        await show_diagram(interaction, self.post_id)


@functools.lru_cache(maxsize=REPORT_VIEWS_KEPT)
def answer_reply_view(post_id: int, lang: Lang) -> discord.ui.View:
    """An answer reply's buttons when its question has an explanation figure: the report
    button (as `report_view` gives it) and "Diagram". Kept and sent again for every reply
    to the post in the language, as `report_view` is (both items are DynamicItems with
    no timeout: discord.py keeps no per-message state for the view)."""
    view = discord.ui.View(timeout=None)
    view.add_item(ReportButton("p", post_id, t("report_button", lang)))
    view.add_item(DiagramButton(post_id, t("diagram_button", lang)))
    return view


async def show_diagram(interaction: Interaction, post_id: int) -> None:
    """Draw (or take from the cache) the figure and send it as an ephemeral reply."""
    bot = quiz_bot(interaction)

    async def work(caller: Caller) -> tuple[discord.Embed, discord.File]:
        _, question = await bot.service.load_post(post_id, caller.guild_id)
        ref = question.explanation_figure
        if ref is None:
            raise QuizError("no_diagram")
        embed = discord.Embed(title=question.text.get(caller.lang)[:256])
        show_explanation_figure(embed, question)
        return embed, await bot.figures.file(ref, caller.lang, explanation_name(question))

    done = await preamble(interaction, work, ephemeral=True)
    if done is None:
        return
    embed, file = done.value
    await reply(interaction, embed=embed, file=file, ephemeral=True)
