"""The floor: a bare discord.py bot that answers a button click with a fixed reply.

It gets the same INTERACTION_CREATE events as tpquiz (the same messages, the same
`tpq:a:<post>:<choice>` custom_ids, matched by a `DynamicItem` with the same template)
and answers each with one fixed ephemeral message, touching no database. Whatever
tpquiz spends beyond this is the bot's own cost; what both spend is discord.py's.

With BASELINE_REPLY=embed the fixed reply is instead one answer embed as tpquiz renders
it (built once at start-up) under tpquiz's own report button (its kept view, one per
post, as tpquiz sends it): the fair floor of issue 30, a reply of the same size and
shape as tpquiz's, so the two baselines separate what a large reply costs discord.py
(serialising it, parsing the message Discord echoes back) from what tpquiz itself
spends (database, rendering, metrics).

Run as `python -m bench.baseline_bot` with DISCORD_TOKEN, DISCORD_API_BASE and
DISCORD_GATEWAY_URL set (the benches start it); SIGTERM closes it cleanly. With
BASELINE_UVLOOP=1 it runs on uvloop's event loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
from collections.abc import Callable
from typing import Any, Literal

import discord
import yarl

log = logging.getLogger("baseline")

REPLY = "Recorded."
#: The reply embed when BASELINE_REPLY=embed (set in main()).
REPLY_EMBED: discord.Embed | None = None
#: tpquiz's `report_view` (kept views, one per post) when BASELINE_REPLY=embed.
REPORT_VIEW: Callable[[str, int, Literal["tr", "en"]], discord.ui.View] | None = None


def tpquiz_like_embed() -> discord.Embed:
    """A typical tpquiz answer embed (a wrong answer: it has the most fields)."""
    from bot.bank.loader import load_bank
    from bot.quiz.scoring import AnswerResult, MemberScore
    from bot.ui import render

    question = next(iter(load_bank()))
    wrong = (question.correct_index + 1) % len(question.choices)
    score = MemberScore(1, "member", 12, 30, 20, 0, 5)
    result = AnswerResult(question.id, wrong, False, 0, False, score, 17)
    order = tuple(range(len(question.choices)))
    return render.answer_embed(question, order, result, "en")


class BaselineButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tpq:a:(?P<post>[0-9]{1,19}):(?P<choice>[0-9])",
):
    """Same template as tpquiz's AnswerButton; the callback does the least possible."""

    def __init__(self, post_id: int, choice_index: int) -> None:
        super().__init__(discord.ui.Button(label="?", custom_id=f"tpq:a:{post_id}:{choice_index}"))
        self.post_id = post_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> BaselineButton:
        return cls(int(match["post"]), int(match["choice"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if REPLY_EMBED is not None and REPORT_VIEW is not None:
            await interaction.response.send_message(
                embed=REPLY_EMBED, view=REPORT_VIEW("p", self.post_id, "en"), ephemeral=True
            )
        else:
            await interaction.response.send_message(REPLY, ephemeral=True)


class BaselineBot(discord.Client):
    async def setup_hook(self) -> None:
        self.add_dynamic_items(BaselineButton)


async def main() -> None:
    global REPLY_EMBED, REPORT_VIEW
    if os.environ.get("BASELINE_REPLY") == "embed":
        from bot.ui.buttons.report import report_view

        REPLY_EMBED = tpquiz_like_embed()
        REPORT_VIEW = report_view
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if base := os.environ.get("DISCORD_API_BASE"):
        discord.http.Route.BASE = base.rstrip("/")
    if gateway := os.environ.get("DISCORD_GATEWAY_URL"):
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    # The same intents and mention policy as TPQuizBot, so both parse the same events.
    bot = BaselineBot(
        intents=discord.Intents(guilds=True), allowed_mentions=discord.AllowedMentions.none()
    )
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: asyncio.ensure_future(bot.close()))
    async with bot:
        await bot.start(os.environ["DISCORD_TOKEN"])


if __name__ == "__main__":
    # BASELINE_UVLOOP=1 (bench.answer_path --uvloop): on uvloop, as `tpquiz run` is when
    # uvloop is installed, so that both bots run on the same event loop.
    factory = None
    if os.environ.get("BASELINE_UVLOOP") == "1":
        import uvloop

        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main())
