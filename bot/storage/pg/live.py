"""Quiz night sessions on PostgreSQL: the twin of bot/storage/sqlite/live.py (LiveContract).

The statements are bot/storage/live_sql.py's, numbered once here. Two things differ
from SQLite, where BEGIN IMMEDIATE serialises every writer: a lock-in reads its question
FOR SHARE, so a reveal (which updates that row) waits for the lock-ins under way and each
later lock-in, re-reading the row, sees it revealed; and claims are single conditional
UPDATEs, so with two processes on one database exactly one reveals a question.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.quiz.live_state import LiveChoice, LiveQuestion, LiveSession, LockIn
from bot.storage import live_sql as q
from bot.storage.pg.db import PgDatabase

Planned = Sequence[tuple[str, tuple[int, ...], str | None, int]]

_N = {name: q.numbered(getattr(q, name)) for name in q.__all__ if name.isupper()}
_LOCK_READ = q.numbered(q.LOCK_READ.format(lock=" FOR SHARE OF q"))


def _count(status: str) -> int:
    """The row count of an asyncpg command status ("UPDATE 1" -> 1)."""
    return int(status.rsplit(" ", 1)[-1])


class PgLiveStore:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        language: str,
        topic: str,
        seconds: int | None,
        scoring: str,
        now_ms: int,
        starts_at: int,
        questions: Planned,
    ) -> tuple[LiveSession, bool]:
        """The new session (True), or the channel's open one unchanged (False)."""
        async with self.db.transaction() as conn:
            row = await conn.fetchrow(
                _N["INSERT_SESSION"],
                guild_id,
                channel_id,
                host_id,
                language,
                topic,
                len(questions),
                seconds,
                scoring,
                now_ms,
                starts_at,
            )
            if row is None:
                found = await conn.fetchrow(_N["IN_CHANNEL"], channel_id)
                return q.session_of(found), False
            session = q.session_of(row)
            for position, (qid, order, params, secs) in enumerate(questions):
                post_id = await conn.fetchval(
                    _N["INSERT_POST"],
                    guild_id,
                    channel_id,
                    qid,
                    ",".join(map(str, order)),
                    language,
                    now_ms,
                    params,
                )
                await conn.execute(
                    _N["INSERT_QUESTION"], session.id, position, guild_id, post_id, secs
                )
            return session, True

    async def _write(self, name: str, *args: object) -> int:
        async with self.db.transaction() as conn:
            return _count(await conn.execute(_N[name], *args))

    async def set_lobby_message(self, session_id: int, message_id: int) -> None:
        await self._write("SET_LOBBY", message_id, session_id)

    async def get(self, session_id: int) -> LiveSession | None:
        row = await self.db.fetchrow(_N["GET"], session_id)
        return None if row is None else q.session_of(row)

    async def in_channel(self, channel_id: int) -> LiveSession | None:
        row = await self.db.fetchrow(_N["IN_CHANNEL"], channel_id)
        return None if row is None else q.session_of(row)

    async def open_sessions(self) -> list[LiveSession]:
        return [q.session_of(r) for r in await self.db.fetch(_N["OPEN_SESSIONS"])]

    async def questions(self, session_id: int) -> list[LiveQuestion]:
        return [q.question_of(r) for r in await self.db.fetch(_N["QUESTIONS"], session_id)]

    async def join(self, session_id: int, *, user_id: int, name: str, now_ms: int) -> bool:
        return await self._write("JOIN", user_id, name, now_ms, session_id) == 1

    async def players(self, session_id: int) -> dict[int, str]:
        rows = await self.db.fetch(_N["PLAYERS"], session_id)
        return {int(r[0]): str(r[1]) for r in rows}

    async def joined_by(self, session_id: int, at_ms: int) -> set[int]:
        return {int(r[0]) for r in await self.db.fetch(_N["JOINED_BY"], session_id, at_ms)}

    async def roll_call(
        self, session_id: int, position: int, at_ms: int
    ) -> tuple[set[int], set[int]]:
        rows = await self.db.fetch(_N["ROLL_CALL"], position, session_id, at_ms)
        return {int(r[0]) for r in rows}, {int(r[0]) for r in rows if r[1]}

    async def lock_in(
        self,
        session_id: int,
        position: int,
        *,
        user_id: int,
        name: str,
        choice_index: int,
        now_ms: int,
    ) -> LockIn:
        """Save the player's choice (joining them) unless the question is not open."""
        async with self.db.transaction() as conn:
            row = await conn.fetchrow(_LOCK_READ, session_id, position)
            refused = q.lock_verdict(row)
            if refused is not None:
                return refused
            assert row is not None
            guild_id = int(row[3])
            await conn.execute(_N["UPSERT_PLAYER"], session_id, guild_id, user_id, name, now_ms)
            await conn.execute(
                _N["UPSERT_CHOICE"], session_id, position, guild_id, user_id, choice_index, now_ms
            )
            return "locked"

    async def choices(self, session_id: int) -> list[LiveChoice]:
        return [q.choice_of(r) for r in await self.db.fetch(_N["CHOICES"], session_id)]

    async def start(self, session_id: int) -> bool:
        return await self._write("START", session_id) == 1

    async def open_question(
        self, session_id: int, position: int, *, now_ms: int, deadline_at: int
    ) -> bool:
        """Make `position` the current question (once: False if it already was)."""
        async with self.db.transaction() as conn:
            moved = _count(
                await conn.execute(
                    _N["SESSION_POSITION"], position, deadline_at, session_id, position
                )
            )
            if moved != 1:
                return False
            await conn.execute(_N["OPEN_QUESTION"], now_ms, session_id, position)
            return True

    async def claim_reveal(
        self, session_id: int, position: int, *, now_ms: int, next_at: int, skipped: bool = False
    ) -> bool:
        """Mark the question revealed; True for the one caller that did (no second reveal)."""
        async with self.db.transaction() as conn:
            claimed = _count(
                await conn.execute(_N["CLAIM_REVEAL"], now_ms, int(skipped), session_id, position)
            )
            if claimed == 1:
                await conn.execute(_N["SESSION_NEXT_AT"], next_at, session_id)
            return claimed == 1

    async def recorded(self, session_id: int, position: int, post_id: int, *, now_ms: int) -> bool:
        """The question's answers are recorded: mark it and close its post; True for the
        one caller whose mark took."""
        async with self.db.transaction() as conn:
            marked = _count(await conn.execute(_N["RECORDED"], now_ms, session_id, position))
            await conn.execute(_N["CLOSE_POST"], now_ms, post_id)
            return marked == 1

    async def pause(self, session_id: int, *, now_ms: int) -> bool:
        return await self._write("PAUSE", now_ms, now_ms, session_id) == 1

    async def resume(self, session_id: int, *, now_ms: int) -> int | None:
        async with self.db.transaction() as conn:
            value = await conn.fetchval(_N["RESUME"], now_ms, session_id)
        return None if value is None else int(value)

    async def end(self, session_id: int, *, now_ms: int, reason: str) -> bool:
        async with self.db.transaction() as conn:
            ended = _count(await conn.execute(_N["END"], now_ms, reason, session_id)) == 1
            await conn.execute(_N["CLOSE_SESSION_POSTS"], now_ms, session_id)
            return ended
