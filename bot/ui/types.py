"""What the Discord UI uses of the bot, as a Protocol, so that the UI never imports the bot.

The buttons' handlers (bot/ui/buttons/) reach the services, the metrics and the
coalesced count edits through the bot an interaction came to. Importing the bot class
for that made a cycle: the bot imports the command tree and the poster, which import the
buttons. `QuizBot` names only what those handlers use, so the bot depends on the UI and
the UI on nothing above it; `bot/runtime/compose.py`, which builds the bot, has mypy
prove that the bot satisfies it.

Why a helper and not `discord.Interaction[QuizBot]`: discord.py declares its
`Interaction` generic over a subclass of `discord.Client`, and a Protocol is no such
class. So the UI's handlers take an `Interaction` (any client: a cog's
`discord.Interaction[TPQuizBot]` passes) and read the bot with `quiz_bot(interaction)`.
That call is the one place where the client is taken to be a `QuizBot` unchecked; it
holds because every client that receives these interactions is built by
`bot.runtime.compose.build_bot`, where the check is made.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias

import discord

from bot.ops.metrics import Metrics
from bot.quiz.model import Lang
from bot.services.live import LiveService
from bot.services.quiz import QuizService
from bot.services.reports import ReportService
from bot.services.review import ReviewService
from bot.services.suggestions import SuggestionService
from bot.ui.figures import FigureCache
from bot.ui.post_updates import CoalescedEdits

#: The interaction a UI handler receives: from any client. Its `.client` is a plain
#: `discord.Client`, so reaching the bot's services needs `quiz_bot`, which says so.
Interaction: TypeAlias = discord.Interaction[discord.Client]


class QuizBot(Protocol):
    """The bot as the UI sees it: the services its buttons call and what they update."""

    @property
    def service(self) -> QuizService: ...

    @property
    def reviews(self) -> ReviewService: ...

    @property
    def live(self) -> LiveService: ...

    @property
    def live_announcer(self) -> LiveAnnouncer: ...

    @property
    def reports(self) -> ReportService: ...

    @property
    def suggestions(self) -> SuggestionService: ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def count_edits(self) -> CoalescedEdits: ...

    @property
    def figures(self) -> FigureCache: ...


class LiveAnnouncer(Protocol):
    """What quiz night's buttons tell the announcer (bot/ui/live_announcer.py)."""

    def remember(
        self, session_id: int, position: int, user_id: int,
        interaction: discord.Interaction[Any], lang: Lang,
    ) -> None: ...  # fmt: skip


def quiz_bot(interaction: discord.Interaction[Any]) -> QuizBot:
    """The bot `interaction` came to, as the UI uses it (see the module docstring)."""
    bot: QuizBot = interaction.client
    return bot
