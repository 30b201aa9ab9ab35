"""Where a server's own questions join the picks (issue 27): its pool, by its settings, and
any version of one of its questions by the id its posts and rounds recorded.

Why a cache: `/tpquiz question`, the daily post and `/tpquiz review` each pick from the
server's pool, and decoding up to 2,000 stored questions for every pick would cost more
than the pick. So each server's questions in use are kept, decoded, for `POOL_SECONDS`
and dropped at once by `forget` when this process uploads or retires (a server's
commands come to the one process that serves its shard). A version of a question never
changes once stored, so the versions read for posts and rounds are kept in an LRU
without expiry (`known` reads it without waiting, for the synchronous paths that render
a question; `load` fills it first).

A question accepted from a member's suggestion is kept as posts show it, its source
crediting its author (`OwnQuestion.shown`); forgetting the member calls `forget` too.

Every read names the server: a post, a round or a pick of one server never reaches
another's questions, and a bundled question's id (no '@') is never looked up here.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence

from bot.quiz.model import Bank, Question
from bot.quiz.own_questions import BankSettings, parse_runtime_id
from bot.storage.contract import GuildBankContract

__all__ = ["POOL_SECONDS", "OwnPools", "Withheld"]

#: (server, its questions) -> {question id: why it stays out of the picks}
Withheld = Callable[[int, Sequence[Question]], Awaitable[dict[str, str]]]

#: How long a server's pool is kept before it is read again (another process's change
#: shows within this time).
POOL_SECONDS = 60
#: Versions of server questions kept decoded.
VERSIONS_KEPT = 8192


class OwnPools:
    def __init__(self, store: GuildBankContract, bundled: Bank, now_ms: Callable[[], int]) -> None:
        self.store = store
        self.bundled = bundled
        self.now_ms = now_ms
        #: guild -> (read at, its questions in use, the bundled and its own together)
        self._pools: dict[int, tuple[int, Bank, Bank]] = {}
        #: Which of a server's questions (all it keeps, retired too) stay out of the picks
        #: until a moderator looks, and why; set by the item statistics service
        #: (bot/services/items.py `withheld`), which knows the flags.
        self.withheld: Withheld | None = None
        self._versions: OrderedDict[tuple[int, str], Question] = OrderedDict()

    def forget(self, guild_id: int) -> None:
        """The server's questions changed here: read them again at the next pick."""
        self._pools.pop(guild_id, None)

    async def _pool(self, guild_id: int) -> tuple[Bank, Bank]:
        now = self.now_ms()
        kept = self._pools.get(guild_id)
        if kept is not None and now - kept[0] < POOL_SECONDS * 1000:
            return kept[1], kept[2]
        stored = await self.store.current(guild_id, retired=True)
        every = [own.shown for own in stored]
        out = {} if self.withheld is None or not every else await self.withheld(guild_id, every)
        questions = [o.shown for o in stored if not o.retired and o.question.id not in out]
        own = Bank.of(questions)
        both = Bank.of([*self.bundled, *questions]) if questions else self.bundled
        self._pools[guild_id] = (now, own, both)
        for question in every:
            self._keep(guild_id, question)
        return own, both

    async def settings(self, guild_id: int) -> BankSettings:
        return await self.store.settings(guild_id)

    async def pool(
        self, guild_id: int, *, daily: bool = False, rng: random.Random | None = None
    ) -> Bank:
        """What the server picks from now: the bundled bank, its own questions, or both
        (a daily post: its own with the settings' share, else the bundled). A server
        without questions of its own in use picks from the bundled bank whatever it set."""
        settings = await self.store.settings(guild_id)
        if settings.draw == "bundled":
            return self.bundled
        own, both = await self._pool(guild_id)
        if not len(own):
            return self.bundled
        if settings.draw == "own":
            return own
        if daily:
            assert rng is not None
            return own if rng.random() * 100 < settings.daily_share else self.bundled
        return both

    def _keep(self, guild_id: int, question: Question) -> None:
        key = (guild_id, question.id)
        self._versions[key] = question
        self._versions.move_to_end(key)
        while len(self._versions) > VERSIONS_KEPT:
            self._versions.popitem(last=False)

    def known(self, guild_id: int, question_id: str) -> Question | None:
        """The server's question of that version if it was read already (`load`)."""
        return self._versions.get((guild_id, question_id))

    async def load(self, guild_id: int, question_ids: Iterable[str]) -> None:
        """Read the server's question versions among `question_ids` not read yet (ids of
        bundled questions and computed ones are skipped)."""
        for question_id in question_ids:
            parsed = parse_runtime_id(question_id)
            if parsed is None or (guild_id, question_id) in self._versions:
                continue
            found = await self.store.get(guild_id, parsed[0], parsed[1])
            if found is not None:
                self._keep(guild_id, found.shown)
