"""Daily question posts: schedules, per-day slots, delivery errors and daily streaks.

One store for both backends over `Executor` (bot/storage/sql.py), DailyContract. The
rows and objects are bot/storage/records.py's (`DailySettings`, `Post`) and the rules'
(`DailyStreak`), so both backends return equal values for equal rows.

The rule this store enforces on its own is "one post per server and local day", also
with several processes ticking at once on PostgreSQL (issue 15: every process runs the
daily scheduler for its shards, and a shard may move between processes):

- `claim` takes the day with a conditional `UPDATE daily_settings ... WHERE last_date <
  day` and creates the slot and the post row in the same transaction, before anything is
  sent to Discord. On SQLite one writer runs at a time; on PostgreSQL the UPDATE takes
  the server's settings row lock, so a second claimer waits for the first to commit and
  then, at READ COMMITTED, re-checks the condition against the committed row, finds the
  day taken and gets no row. The slot's primary key is the second guard. Whoever loses
  gets None and sends nothing.
- `close`: `UPDATE posts SET closed_at ... WHERE closed_at IS NULL` comes first in its
  transaction. On PostgreSQL it takes the post's row lock, which every click on the post
  takes first (bot/storage/pg/clicks.py); on SQLite no click runs inside the
  transaction. So the choice counts read after it include every click committed before
  the close, and no click is recorded after it: of two closers only one gets the counts,
  the other None.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from bot.quiz.click import DailyStreak
from bot.quiz.schedule import current_daily_streak
from bot.storage.records import (
    DAILY_SETTINGS_COLUMNS,
    POST_COLUMNS,
    DailySettings,
    Post,
    daily_settings_of,
    post_of,
)
from bot.storage.sql import Executor, Fragment, Query
from bot.storage.stores.posts import CHOICE_COUNTS

__all__ = ["DailyStore"]

_CLEAR_ERROR = (
    "error_code = NULL, error_status = NULL, error_text = NULL, error_channel = NULL,"
    " error_at = NULL"
)
_GET = Query(f"SELECT {DAILY_SETTINGS_COLUMNS} FROM daily_settings WHERE guild_id = :guild")
_ENABLED = Query(
    f"SELECT {DAILY_SETTINGS_COLUMNS} FROM daily_settings WHERE enabled = 1 ORDER BY guild_id"
)
_SET_SCHEDULE = Query(
    "INSERT INTO daily_settings (guild_id, channel_id, enabled, post_time, timezone,"
    " schedule_set_at) VALUES (:guild, :channel, 1, :time, :zone, :now)"
    " ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id,"
    " enabled = 1, post_time = excluded.post_time, timezone = excluded.timezone,"
    f" schedule_set_at = excluded.schedule_set_at, {_CLEAR_ERROR}"
)
_OPEN_CLOSES_AT = Query(
    "UPDATE posts SET closes_at = :closes_at WHERE guild_id = :guild AND kind = 'daily'"
    " AND closed_at IS NULL"
)
_DISABLE = Query("UPDATE daily_settings SET enabled = 0 WHERE guild_id = :guild AND enabled = 1")
_CLOSE_AFTER = Query(
    "UPDATE posts SET closes_at = created_at + :after WHERE guild_id = :guild"
    " AND kind = 'daily' AND closed_at IS NULL"
)
_SET_ROLE = Query(
    "INSERT INTO daily_settings (guild_id, role_id) VALUES (:guild, :role)"
    " ON CONFLICT (guild_id) DO UPDATE SET role_id = excluded.role_id"
)
_HISTORY = Query(
    "SELECT question_id, round FROM daily_slots WHERE guild_id = :guild AND status = 'sent'"
    " ORDER BY local_date DESC"
)
_TAKE_DAY = Query(
    "UPDATE daily_settings SET last_date = :date WHERE guild_id = :guild"
    " AND (last_date IS NULL OR last_date < :date)"
)
_TAKE_SLOT = Query(
    "INSERT INTO daily_slots (guild_id, local_date, question_id, round, status, claimed_at)"
    " VALUES (:guild, :date, :question, :round, 'claimed', :now)"
    " ON CONFLICT (guild_id, local_date) DO NOTHING"
)
_CREATE_POST = Query(
    "INSERT INTO posts (guild_id, channel_id, question_id, choice_order, language, kind,"
    " created_at, closes_at, daily_date, params) VALUES (:guild, :channel, :question, :order,"
    f" :language, 'daily', :now, :closes_at, :date, :params) RETURNING {POST_COLUMNS}"
)
_SLOT_POST = Query(
    "UPDATE daily_slots SET post_id = :post WHERE guild_id = :guild AND local_date = :date"
)
_SET_MESSAGE = Query("UPDATE posts SET message_id = :message WHERE id = :post")
_SENT = Query("UPDATE daily_slots SET status = 'sent' WHERE post_id = :post")
_NO_ERROR = Query(f"UPDATE daily_settings SET {_CLEAR_ERROR} WHERE guild_id = :guild")
_OLDER_OPEN = Query(
    f"SELECT {POST_COLUMNS} FROM posts WHERE guild_id = :guild AND kind = 'daily'"
    " AND closed_at IS NULL AND id < :post ORDER BY id"
)
_SLOT_FAILED = Query(
    "UPDATE daily_slots SET status = 'failed', post_id = NULL WHERE post_id = :post"
)
_DROP_POST = Query("DELETE FROM posts WHERE id = :post AND answer_count = 0 AND message_id IS NULL")
_ERROR = Query(
    "UPDATE daily_settings SET error_code = :code, error_status = :status, error_text = :text,"
    " error_channel = :channel, error_at = :now WHERE guild_id = :guild"
)
_SLOT = Query(
    "SELECT status, post_id FROM daily_slots WHERE guild_id = :guild AND local_date = :date"
)
_DUE_TO_CLOSE = Query(
    f"SELECT {POST_COLUMNS} FROM posts WHERE kind = 'daily' AND closed_at IS NULL"
    " AND closes_at <= :now ORDER BY id"
)
_CLOSE = Query(
    "UPDATE posts SET closed_at = :now WHERE id = :post AND closed_at IS NULL"
    f" RETURNING {POST_COLUMNS}"
)
_LATEST_OPEN = Query(
    f"SELECT {POST_COLUMNS} FROM posts WHERE guild_id = :guild AND kind = 'daily'"
    " AND closed_at IS NULL ORDER BY id DESC LIMIT 1"
)
_STREAK = Query(
    "SELECT last_date, streak, best FROM daily_streaks WHERE guild_id = :guild AND user_id = :user"
)
_STREAKS = Query(
    "SELECT user_id, last_date, streak, best FROM daily_streaks"
    " WHERE guild_id = :guild AND {among}",
    # `:users` is a list: an array on PostgreSQL, JSON text on SQLite (sql.py Executor).
    among=Fragment(
        sqlite="user_id IN (SELECT value FROM json_each(:users))",
        postgresql="user_id = ANY(:users::bigint[])",
    ),
)
_LAST_CLOSED = Query(
    "SELECT MAX(s.local_date) FROM daily_slots s JOIN posts p ON p.id = s.post_id"
    " WHERE s.guild_id = :guild AND s.status = 'sent' AND p.closed_at IS NOT NULL"
)


class _DayTaken(Exception):
    """The day's slot exists already: the claim's transaction must roll back."""


class DailyStore:
    def __init__(self, db: Executor) -> None:
        self.db = db

    # -- settings --------------------------------------------------------------------

    async def get(self, guild_id: int) -> DailySettings | None:
        row = await self.db.fetch_one(_GET, guild=guild_id)
        return daily_settings_of(row) if row is not None else None

    async def enabled(self) -> list[DailySettings]:
        """Every server with daily posts on (read each tick; the due check is in Python)."""
        return [daily_settings_of(row) for row in await self.db.fetch(_ENABLED)]

    async def set_schedule(
        self,
        guild_id: int,
        *,
        channel_id: int,
        post_time: str,
        timezone: str,
        now_ms: int,
        open_closes_at: int | None = None,
    ) -> None:
        """Turn daily posts on with this channel, time and zone.

        The previous delivery error is cleared (it was about the old settings). An open
        daily post gets `open_closes_at`, so it closes when the new schedule's next post
        goes out rather than at the old time.
        """
        async with self.db.transaction() as tx:
            await tx.execute(
                _SET_SCHEDULE,
                guild=guild_id,
                channel=channel_id,
                time=post_time,
                zone=timezone,
                now=now_ms,
            )
            if open_closes_at is not None:
                await tx.execute(_OPEN_CLOSES_AT, closes_at=open_closes_at, guild=guild_id)

    async def disable(self, guild_id: int, *, close_after_ms: int) -> bool:
        """Turn daily posts off; True if they were on. With no next post to close it, an
        open daily post closes `close_after_ms` after it was posted."""
        async with self.db.transaction() as tx:
            changed = await tx.execute(_DISABLE, guild=guild_id) == 1
            await tx.execute(_CLOSE_AFTER, after=close_after_ms, guild=guild_id)
        return changed

    async def set_role(self, guild_id: int, role_id: int | None) -> None:
        await self.db.execute(_SET_ROLE, guild=guild_id, role=role_id)

    # -- slots -----------------------------------------------------------------------

    async def history(self, guild_id: int) -> list[tuple[str, int]]:
        """(question id, round) of the server's delivered daily posts, newest first."""
        return [(str(q), int(r)) for q, r in await self.db.fetch(_HISTORY, guild=guild_id)]

    async def claim(
        self,
        guild_id: int,
        local_date: str,
        *,
        channel_id: int,
        question_id: str,
        round_: int,
        order: tuple[int, ...],
        language: str,
        now_ms: int,
        closes_at: int,
        params: str | None = None,
    ) -> Post | None:
        """Take the slot of (server, local date) and create its post, or return None.

        None when the day (or a later one) was already claimed: by an earlier tick, by
        `daily now`, or by an overlapping tick (of this process or another) that got
        here first. The conditional UPDATE and the slot's primary key each make a second
        claim fail; both run in one transaction with the post's INSERT, so a claim never
        exists without its post.
        """
        try:
            async with self.db.transaction() as tx:
                if await tx.execute(_TAKE_DAY, date=local_date, guild=guild_id) != 1:
                    return None
                taken = await tx.execute(
                    _TAKE_SLOT,
                    guild=guild_id,
                    date=local_date,
                    question=question_id,
                    round=round_,
                    now=now_ms,
                )
                if taken != 1:
                    raise _DayTaken
                row = await tx.fetch_one(
                    _CREATE_POST,
                    guild=guild_id,
                    channel=channel_id,
                    question=question_id,
                    order=",".join(map(str, order)),
                    language=language,
                    now=now_ms,
                    closes_at=closes_at,
                    date=local_date,
                    params=params,
                )
                assert row is not None
                post = post_of(row)
                await tx.execute(_SLOT_POST, post=post.id, guild=guild_id, date=local_date)
        except _DayTaken:
            return None  # the slot's primary key: someone else holds this day
        return post

    async def delivered(self, post: Post, message_id: int) -> list[Post]:
        """The post reached Discord: remember its message, clear the server's error, and
        return the server's older open daily posts (which this one closes)."""
        async with self.db.transaction() as tx:
            await tx.execute(_SET_MESSAGE, message=message_id, post=post.id)
            await tx.execute(_SENT, post=post.id)
            await tx.execute(_NO_ERROR, guild=post.guild_id)
        rows = await self.db.fetch(_OLDER_OPEN, guild=post.guild_id, post=post.id)
        return [post_of(row) for row in rows]

    async def failed(
        self,
        post: Post,
        *,
        code: int | None,
        status: int | None,
        text: str,
        now_ms: int,
    ) -> None:
        """The post could not be sent: keep the day's slot (so the day is not posted
        twice), forget the post row (it has no message and no answers), and store the
        error for `/tpquiz-admin settings`."""
        async with self.db.transaction() as tx:
            await tx.execute(_SLOT_FAILED, post=post.id)
            await tx.execute(_DROP_POST, post=post.id)
            await tx.execute(
                _ERROR,
                code=code,
                status=status,
                text=text[:500],
                channel=post.channel_id,
                now=now_ms,
                guild=post.guild_id,
            )

    async def slot(self, guild_id: int, local_date: str) -> tuple[str, int | None] | None:
        """(status, post id) of one day's slot, or None when the day was never claimed."""
        row = await self.db.fetch_one(_SLOT, guild=guild_id, date=local_date)
        return (str(row[0]), row[1]) if row is not None else None

    # -- closing ---------------------------------------------------------------------

    async def due_to_close(self, now_ms: int) -> list[Post]:
        """Open daily posts whose closing time has come, in every server."""
        return [post_of(row) for row in await self.db.fetch(_DUE_TO_CLOSE, now=now_ms)]

    async def close(self, post_id: int, now_ms: int) -> tuple[Post, dict[int, int]] | None:
        """Close a daily post: the closed post and how many members chose each choice
        index, read in the transaction that closes it (see the module docstring). None
        when it was already closed (so of two closers, in any processes, only one edits
        the message)."""
        async with self.db.transaction() as tx:
            row = await tx.fetch_one(_CLOSE, now=now_ms, post=post_id)
            if row is None:
                return None
            # A new statement: on PostgreSQL at READ COMMITTED it sees every click
            # committed before this transaction took the post's row lock.
            counts = await tx.fetch(CHOICE_COUNTS, post=post_id)
        return post_of(row), {int(c): int(n) for c, n in counts}

    async def latest_open(self, guild_id: int) -> Post | None:
        row = await self.db.fetch_one(_LATEST_OPEN, guild=guild_id)
        return post_of(row) if row is not None else None

    # -- streaks ---------------------------------------------------------------------

    async def streak(self, guild_id: int, user_id: int) -> DailyStreak | None:
        row = await self.db.fetch_one(_STREAK, guild=guild_id, user=user_id)
        return DailyStreak(str(row[0]), int(row[1]), int(row[2])) if row is not None else None

    async def streaks(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, DailyStreak]:
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        rows = await self.db.fetch(_STREAKS, guild=guild_id, users=ids)
        return {int(u): DailyStreak(str(d), int(s), int(b)) for u, d, s, b in rows}

    async def current_streaks(
        self, guild_id: int, user_ids: Iterable[int]
    ) -> dict[int, tuple[int, int]]:
        """user id -> (current daily streak, best), for members with a daily answer.

        The stored streak is only rewritten on an answer; a daily question that closed
        without the member's answer makes the current streak 0 from then on.
        """
        stored = await self.streaks(guild_id, user_ids)
        if not stored:
            return {}
        closed = await self.last_closed_date(guild_id)
        last_closed = date.fromisoformat(closed) if closed else None
        return {
            user_id: (
                current_daily_streak(s.streak, date.fromisoformat(s.last_date), last_closed),
                s.best,
            )
            for user_id, s in stored.items()
        }

    async def last_closed_date(self, guild_id: int) -> str | None:
        """Local date of the server's latest delivered daily post that has closed."""
        row = await self.db.fetch_one(_LAST_CLOSED, guild=guild_id)
        return row[0] if row is not None else None
