"""Quiz night sessions on SQLite (LiveContract; the statements in bot/storage/live_sql.py).

Each call is one trip to the database thread (`Database.run_transaction` or `run_read`):
a session with 500 players locks in 500 choices within seconds, and one trip each keeps
the write lock short. Writers are serialised by BEGIN IMMEDIATE, so a lock-in's check
(question open, not revealed) and its write see the same state, and a reveal that claimed
the question (`claim_reveal`) is seen by every lock-in after it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from bot.quiz.live_state import LiveChoice, LiveQuestion, LiveSession, LockIn
from bot.storage import live_sql as q
from bot.storage.sqlite.db import Database

#: (question id, choice order, drawn numbers, seconds) of each session question.
Planned = Sequence[tuple[str, tuple[int, ...], str | None, int]]


class LiveStore:
    def __init__(self, db: Database) -> None:
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

        def work(conn: sqlite3.Connection) -> tuple[LiveSession, bool]:
            row = conn.execute(
                q.INSERT_SESSION,
                (
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
                ),
            ).fetchone()
            if row is None:
                return q.session_of(conn.execute(q.IN_CHANNEL, (channel_id,)).fetchone()), False
            session = q.session_of(row)
            for position, (qid, order, params, secs) in enumerate(questions):
                post_id = conn.execute(
                    q.INSERT_POST,
                    (
                        guild_id,
                        channel_id,
                        qid,
                        ",".join(map(str, order)),
                        language,
                        now_ms,
                        params,
                    ),
                ).fetchone()[0]
                conn.execute(q.INSERT_QUESTION, (session.id, position, guild_id, post_id, secs))
            return session, True

        return await self.db.run_transaction(work)

    async def _write(self, sql: str, args: tuple[object, ...]) -> int:
        return await self.db.run_transaction(lambda conn: conn.execute(sql, args).rowcount)

    async def set_lobby_message(self, session_id: int, message_id: int) -> None:
        await self._write(q.SET_LOBBY, (message_id, session_id))

    async def get(self, session_id: int) -> LiveSession | None:
        row = await self.db.run_read(lambda conn: conn.execute(q.GET, (session_id,)).fetchone())
        return None if row is None else q.session_of(row)

    async def in_channel(self, channel_id: int) -> LiveSession | None:
        row = await self.db.run_read(
            lambda conn: conn.execute(q.IN_CHANNEL, (channel_id,)).fetchone()
        )
        return None if row is None else q.session_of(row)

    async def open_sessions(self) -> list[LiveSession]:
        rows = await self.db.run_read(lambda conn: conn.execute(q.OPEN_SESSIONS).fetchall())
        return [q.session_of(r) for r in rows]

    async def questions(self, session_id: int) -> list[LiveQuestion]:
        rows = await self.db.run_read(
            lambda conn: conn.execute(q.QUESTIONS, (session_id,)).fetchall()
        )
        return [q.question_of(r) for r in rows]

    async def join(self, session_id: int, *, user_id: int, name: str, now_ms: int) -> bool:
        return await self._write(q.JOIN, (user_id, name, now_ms, session_id)) == 1

    async def players(self, session_id: int) -> dict[int, str]:
        rows = await self.db.run_read(
            lambda conn: conn.execute(q.PLAYERS, (session_id,)).fetchall()
        )
        return {int(u): str(n) for u, n in rows}

    async def joined_by(self, session_id: int, at_ms: int) -> set[int]:
        rows = await self.db.run_read(
            lambda conn: conn.execute(q.JOINED_BY, (session_id, at_ms)).fetchall()
        )
        return {int(r[0]) for r in rows}

    async def roll_call(
        self, session_id: int, position: int, at_ms: int
    ) -> tuple[set[int], set[int]]:
        rows = await self.db.run_read(
            lambda conn: conn.execute(q.ROLL_CALL, (position, session_id, at_ms)).fetchall()
        )
        return {int(u) for u, _ in rows}, {int(u) for u, done in rows if done}

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

        def work(conn: sqlite3.Connection) -> LockIn:
            row = conn.execute(q.LOCK_READ.format(lock=""), (session_id, position)).fetchone()
            refused = q.lock_verdict(row)
            if refused is not None:
                return refused
            guild_id = int(row[3])
            conn.execute(q.UPSERT_PLAYER, (session_id, guild_id, user_id, name, now_ms))
            conn.execute(
                q.UPSERT_CHOICE, (session_id, position, guild_id, user_id, choice_index, now_ms)
            )
            return "locked"

        return await self.db.run_transaction(work)

    async def choices(self, session_id: int) -> list[LiveChoice]:
        rows = await self.db.run_read(
            lambda conn: conn.execute(q.CHOICES, (session_id,)).fetchall()
        )
        return [q.choice_of(r) for r in rows]

    async def start(self, session_id: int) -> bool:
        return await self._write(q.START, (session_id,)) == 1

    async def open_question(
        self, session_id: int, position: int, *, now_ms: int, deadline_at: int
    ) -> bool:
        """Make `position` the current question (once: False if it already was)."""

        def work(conn: sqlite3.Connection) -> bool:
            moved = conn.execute(
                q.SESSION_POSITION, (position, deadline_at, session_id, position)
            ).rowcount
            if moved != 1:
                return False
            conn.execute(q.OPEN_QUESTION, (now_ms, session_id, position))
            return True

        return await self.db.run_transaction(work)

    async def claim_reveal(
        self, session_id: int, position: int, *, now_ms: int, next_at: int, skipped: bool = False
    ) -> bool:
        """Mark the question revealed; True for the one caller that did (no second reveal)."""

        def work(conn: sqlite3.Connection) -> bool:
            claimed = conn.execute(
                q.CLAIM_REVEAL, (now_ms, int(skipped), session_id, position)
            ).rowcount
            if claimed == 1:
                conn.execute(q.SESSION_NEXT_AT, (next_at, session_id))
            return claimed == 1

        return await self.db.run_transaction(work)

    async def recorded(self, session_id: int, position: int, post_id: int, *, now_ms: int) -> bool:
        """The question's answers are recorded: mark it and close its post; True for the
        one caller whose mark took."""

        def work(conn: sqlite3.Connection) -> bool:
            marked = conn.execute(q.RECORDED, (now_ms, session_id, position)).rowcount == 1
            conn.execute(q.CLOSE_POST, (now_ms, post_id))
            return marked

        return await self.db.run_transaction(work)

    async def pause(self, session_id: int, *, now_ms: int) -> bool:
        return await self._write(q.PAUSE, (now_ms, now_ms, session_id)) == 1

    async def resume(self, session_id: int, *, now_ms: int) -> int | None:
        row = await self.db.run_transaction(
            lambda conn: conn.execute(q.RESUME, (now_ms, session_id)).fetchone()
        )
        return None if row is None else int(row[0])

    async def end(self, session_id: int, *, now_ms: int, reason: str) -> bool:
        def work(conn: sqlite3.Connection) -> bool:
            ended = conn.execute(q.END, (now_ms, reason, session_id)).rowcount == 1
            conn.execute(q.CLOSE_SESSION_POSTS, (now_ms, session_id))
            return ended

        return await self.db.run_transaction(work)
