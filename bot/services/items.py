"""A server's item statistics for `/tpquiz-admin questions` and `question <id>` (issue #13).

Read from the server's summary (`item_stats`, through `storage.items`, the storage
contract's `ItemStatsContract`: SQLite or PostgreSQL alike), which a
periodic refresh keeps (`refresh_due`, run by cogs/item_refresh.py every few minutes):
computing a big server's figures takes over a second, reading its summary a few
milliseconds (docs/performance.md 7). The figures move slowly once a question has 30
answers, so a few minutes' staleness is harmless; the view says when they were computed.
A server with no summary yet (or a stale one: a member was deleted since, or the pool of
questions changed) is computed on demand, and the view says so.

Only this server's answers count: the admin sees their members' figures. The flags come
from the figures and the open reports when read, so a new report shows at once.

The refresh does its work off the event loop's hot path: the answers are read in chunks
of whole members (`member_rows_chunk`), the figures computed in a worker thread, and
each server written in one short transaction.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot.quiz.itemstats import (
    MIN_FLAG_ANSWERS,
    Item,
    ItemStats,
    item_of,
    sort_stats,
    with_flags,
)
from bot.quiz.itemstats_fast import MemberRow, bank_stats_member_rows
from bot.quiz.model import Question
from bot.quiz.own_questions import OwnQuestion, parse_runtime_id
from bot.services.quiz import QuizService
from bot.storage.records import SummaryRead

log = logging.getLogger(__name__)

#: Minutes between refreshes (cogs/item_refresh.py): the admin view's figures are at
#: most about this old.
REFRESH_MINUTES = 5
#: At most about this many first answers are refreshed per tick (the servers that grew
#: most first; always at least one server, however big).
ANSWERS_PER_TICK = 200_000
#: Rows read per trip to the database thread while refreshing a server.
CHUNK_ROWS = 2_000


@dataclass(frozen=True)
class Listed:
    """One entry of `/tpquiz-admin questions`: a question's figures and flags, whether it
    is the server's own (issue 27), on probation (fewer first answers than can flag it)
    and why it is kept out of the picks ('wrong_key' or 'reported', as
    bot/services/own_pool.py reads it), if it is."""

    stats: ItemStats
    own: bool = False
    probation: bool = False
    withheld: str | None = None


def _no_answers(question_id: str) -> ItemStats:
    return ItemStats(question_id, 0, 0, None, None, 0, (), (), (), 0)


@dataclass(frozen=True)
class ServerStats:
    """Every question's statistics in a server, flagged first; `as_of_ms` is when the
    summary they come from was computed, None when they were computed just now.
    `in_use`: the server's own questions in the picks' pool (current versions, not
    retired), by id; `withheld`: those of them kept out of the picks, and why."""

    stats: list[ItemStats]
    as_of_ms: int | None
    in_use: tuple[str, ...] = ()
    withheld: dict[str, str] = field(default_factory=dict)

    @property
    def flagged(self) -> list[ItemStats]:
        return [s for s in self.stats if s.flagged]

    def of(self, question_id: str) -> ItemStats | None:
        return next((s for s in self.stats if s.question_id == question_id), None)

    def listed(self) -> list[Listed]:
        """What `/tpquiz-admin questions` lists: the server's own questions in use that
        have something to say first (withheld, then flagged, then on probation), then
        the bundled bank's flagged ones. Replaced and retired versions are left out (no
        longer picked); their figures stay for `question <id@version>`."""
        by_id = {s.question_id: s for s in self.stats}
        own = []
        for qid in self.in_use:
            s = by_id.get(qid) or _no_answers(qid)
            entry = Listed(s, True, s.answers < MIN_FLAG_ANSWERS, self.withheld.get(qid))
            if entry.withheld or entry.probation or s.flagged:
                own.append(entry)
        order = {s.question_id: i for i, s in enumerate(self.stats)}  # flagged worst first
        own.sort(
            key=lambda e: (
                e.withheld is None, not e.stats.flagged, order.get(e.stats.question_id, 0)
            )
        )  # fmt: skip
        bundled = [
            Listed(s) for s in self.stats if s.flagged and parse_runtime_id(s.question_id) is None
        ]
        return own + bundled


def _current(versions: Sequence[OwnQuestion]) -> list[OwnQuestion]:
    """The current version of each id, from every version ordered by id then version."""
    last: dict[str, OwnQuestion] = {}
    for own in versions:
        last[own.question_id] = own
    return list(last.values())


class ItemStatsService:
    def __init__(self, service: QuizService) -> None:
        self.service = service
        self.store = service.storage.items
        # A server's own questions flagged or reported twice leave its picks (issue 27).
        service.own.withheld = self.withheld

    async def question(self, guild_id: int, question_id: str) -> Question | None:
        """The pool's question (a template's stand-in for a computed one), or a version
        of the server's own ('id@version', issue 27), or None."""
        found = self.service.pool.get(question_id)
        if found is None:
            await self.service.own.load(guild_id, (question_id,))
            found = self.service.own.known(guild_id, question_id)
        return found

    def items(self, own: Sequence[Question] = ()) -> list[Item]:
        """The bank's items, then the server's own questions' (issue 27: every version
        the server has stored, each its own item: `our-01@1` and `our-01@2` apart)."""
        computed = {tpl.id for tpl in self.service.templates}
        found = [item_of(q, computed=q.id in computed) for q in self.service.pool]
        return found + [item_of(q) for q in own]

    def pool_key(self, own: Sequence[Question] = ()) -> str:
        """Which questions, choices and keys the figures are for: a summary computed for
        another pool (the bank changed) is not read. A server with questions of its own
        has the bank's key and '+' and its current versions' ids (a version's choices
        never change, so their ids say it, and the older versions follow: an id's
        versions run from 1 to its current one); an upload or a retire marks the
        summary stale as well."""
        text = repr([(i.question_id, i.n_choices, i.key_index, i.computed) for i in self.items()])
        key = hashlib.sha256(text.encode()).hexdigest()[:16]
        if own:
            ids = repr(sorted(q.id for q in own))
            key += "+" + hashlib.sha256(ids.encode()).hexdigest()[:8]
        return key

    async def own(self, guild_id: int) -> tuple[list[OwnQuestion], list[Question]]:
        """The server's own questions at their current version (in use or retired: the
        summary's pool key) and every version it has stored (the items: a version's
        figures are its own, so a new version's start afresh and an older one's stay)."""
        versions = await self.service.storage.guild_bank.versions(guild_id)
        return _current(versions), [o.question for o in versions]

    async def withheld(self, guild_id: int, own: Sequence[Question]) -> dict[str, str]:
        """The server's own questions kept out of the picks until a moderator looks at
        them (issue 27), and why: 'wrong_key' (flagged as likely wrong key in the
        server's summary) or 'reported' (two open reports or more). Read from the
        summary only, never computed here: this runs when a server's pool is built.
        `own`: the server's current versions, in use or retired."""
        read = await self.store.summary(guild_id, self.pool_key(own))
        return self._withheld(read, own)

    def _withheld(self, read: SummaryRead, own: Sequence[Question]) -> dict[str, str]:
        out = {q.id: "reported" for q in own if read.open_reports.get(q.id, 0) >= 2}
        if read.stats is not None:
            for item in self.items(own)[len(self.service.pool) :]:
                stored = read.stats.get(item.question_id)
                if stored is not None and any(
                    f.code == "wrong_key" for f in with_flags(stored, item).flags
                ):
                    out[item.question_id] = "wrong_key"
        return out

    async def server_stats(self, guild_id: int) -> ServerStats:
        """Every question's statistics in this server, flagged first: from the summary,
        or computed now when there is none to read."""
        current, versions = await self.own(guild_id)
        latest = [o.question for o in current]
        read = await self.store.summary(guild_id, self.pool_key(latest))
        summary, as_of, reports = read.stats, read.refreshed_at, read.open_reports
        in_use = tuple(o.question.id for o in current if not o.retired)
        withheld = self._withheld(read, latest)
        if summary is None:
            computed = await self.compute(guild_id, reports, versions)
            return ServerStats(computed, None, in_use, withheld)
        found = []
        for item in self.items(versions):
            stored = summary.get(item.question_id)
            if stored is None:  # not in the pool when computed (cannot be: same pool key)
                continue
            with_reports = ItemStats(
                **{**stored.__dict__, "open_reports": reports.get(item.question_id, 0)}
            )
            found.append(with_flags(with_reports, item))
        return ServerStats(sort_stats(found), as_of, in_use, withheld)

    async def compute(
        self,
        guild_id: int,
        reports: dict[str, int] | None = None,
        versions: Sequence[Question] | None = None,
    ) -> list[ItemStats]:
        """The server's statistics from its first answers, now (reports as given; the
        server's own question versions read unless given)."""
        rows, _, _ = await self._read_rows(guild_id)
        if versions is None:
            versions = (await self.own(guild_id))[1]
        items = self.items(versions)
        return await asyncio.to_thread(bank_stats_member_rows, items, rows, reports or {})

    def ids_matching(self, current: str, limit: int = 25) -> list[str]:
        """Question ids for the autocomplete: those starting with `current` first."""
        needle = current.lower()
        ids = [q.id for q in self.service.pool]
        starts = [i for i in ids if i.lower().startswith(needle)]
        inside = [i for i in ids if needle in i.lower() and i not in starts]
        return (starts + inside)[:limit]

    # -- the periodic refresh ------------------------------------------------------

    async def due(self, owns: Callable[[int], bool] | None = None) -> list[tuple[int, int]]:
        """(server, first answers) of the servers to refresh now: never refreshed, stale,
        computed for another pool, or whose first answers changed; the most changed first,
        about ANSWERS_PER_TICK answers in all; only the servers `owns` (this process's
        shards, when the bot is split over several)."""
        key = self.pool_key()
        counts = await self.store.first_answer_counts()
        states = await self.store.refreshes()
        found = []
        for guild in counts.keys() | states.keys():
            if owns is not None and not owns(guild):
                continue
            n, state = counts.get(guild, 0), states.get(guild)
            if state is None:
                found.append((0, -n, guild, n))
            elif state.stale or state.pool_key.split("+")[0] != key:
                found.append((0, -n, guild, n))
            elif state.first_answers != n:
                found.append((1, -abs(n - state.first_answers), guild, n))
        chosen: list[tuple[int, int]] = []
        total = 0
        for _, _, guild, n in sorted(found):
            if chosen and total + n > ANSWERS_PER_TICK:
                break
            chosen.append((guild, n))
            total += n
        return chosen

    async def refresh(self, guild_id: int, now_ms: int) -> bool:
        """Recompute the server's summary; False when it was not written (a member or
        the server was deleted meanwhile: the next refresh tries again)."""
        await self.store.claim(guild_id)
        rows, count, generation = await self._read_rows(guild_id)
        if generation is None:  # the server was deleted
            return False
        current, versions = await self.own(guild_id)
        key = self.pool_key([o.question for o in current])
        stats = await asyncio.to_thread(bank_stats_member_rows, self.items(versions), rows)
        return await self.store.write_summary(
            guild_id, stats, now_ms=now_ms, first_answers=count, pool_key=key,
            generation=generation,
        )  # fmt: skip

    async def refresh_due(
        self, now_ms: int, *, owns: Callable[[int], bool] | None = None
    ) -> list[int]:
        """Refresh the servers `due` picks; the ones written."""
        done = []
        for guild, _ in await self.due(owns):
            if await self.refresh(guild, now_ms):
                done.append(guild)
        if done:
            log.info("item statistics refreshed for %s servers", len(done))
        return done

    async def _read_rows(self, guild_id: int) -> tuple[list[MemberRow], int, int | None]:
        """The server's `member_rows`, read in chunks of whole members; with its first
        answers counted and its summary's generation (None: no state row), both read
        before the answers (a member deleted after this moves the generation)."""
        count, generation = await self.store.refresh_start(guild_id)
        rows: list[MemberRow] = []
        after: int | None = None
        while True:
            found, last = await self.store.member_rows_chunk(guild_id, after, CHUNK_ROWS)
            rows += found
            if last is None:
                return rows, count, generation
            after = last
