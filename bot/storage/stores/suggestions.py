"""Members' suggested questions and each server's review settings (SuggestionsContract).

One store for both backends over `Executor` (bot/storage/sql.py), on the tables of
migration 0014. Two rules hold in the database, not in memory, so they hold across
processes and under two clicks at once:

* A member has at most `MAX_OPEN` suggestions open (or asked for changes) in a server.
  The count and the insert run in one transaction; on PostgreSQL (READ COMMITTED, where
  two transactions would both count 4) it first takes a transaction-level advisory lock
  on the server and member, as GuildBankStore.put does on the server; SQLite serialises
  writers.
* A decision happens once: `decide` is `UPDATE ... WHERE state = 'open'`, so when two
  moderators click at once one changes the row and the other changes none and is told.

Every statement names the server: one server's suggestions are never read for another.
"""

from __future__ import annotations

from typing import cast

from bot.quiz.model import Lang
from bot.quiz.suggestions import (
    ACTIVE,
    MAX_OPEN,
    Draft,
    Outcome,
    Saved,
    State,
    Suggestion,
)
from bot.storage.sql import Dialect, Executor, Query, Row

__all__ = ["SuggestionStore"]

#: The first key of the member's advisory lock while submitting ('tpsg'; PostgreSQL).
SUBMIT_LOCK = 0x74707367
_SUBMIT_LOCK = Query("SELECT pg_advisory_xact_lock(:lock, hashtext(:key))")

_COLUMNS = (
    "id, guild_id, user_id, author_name, language, text, right_answer, wrong_answers,"
    " explanation, source, state, created_at, updated_at, decided_at, reviewer_id, reason,"
    " question_id, post_channel_id, post_message_id"
)
_ACTIVE = "('open', 'changes')"
assert ACTIVE == ("open", "changes")

_COUNT_OPEN = Query(
    "SELECT COUNT(*) FROM suggestions"
    f" WHERE guild_id = :guild AND user_id = :user AND state IN {_ACTIVE}"
)
_DROP_DRAFTS = Query(
    "DELETE FROM suggestions WHERE guild_id = :guild AND user_id = :user AND state = 'draft'"
)
_INSERT = Query(
    "INSERT INTO suggestions (guild_id, user_id, author_name, language, text, right_answer,"
    " wrong_answers, explanation, source, state, created_at, updated_at)"
    " VALUES (:guild, :user, :name, :lang, :text, :right, :wrong, :explanation, :source,"
    f" :state, :now, :now) RETURNING {_COLUMNS}"
)
_GET = Query(f"SELECT {_COLUMNS} FROM suggestions WHERE guild_id = :guild AND id = :id")
_EDIT = Query(
    "UPDATE suggestions SET author_name = :name, language = :lang, text = :text,"
    " right_answer = :right, wrong_answers = :wrong, explanation = :explanation,"
    " source = :source, state = :state, updated_at = :now, notified_at = :notified"
    " WHERE guild_id = :guild AND id = :id AND user_id = :user AND state = :was"
    f" RETURNING {_COLUMNS}"
)
_QUEUE = Query(
    f"SELECT {_COLUMNS} FROM suggestions WHERE guild_id = :guild AND state = 'open'"
    " ORDER BY id LIMIT :limit OFFSET :offset"
)
_QUEUE_COUNT = Query("SELECT COUNT(*) FROM suggestions WHERE guild_id = :guild AND state = 'open'")
_DECIDE = Query(
    "UPDATE suggestions SET state = :state, decided_at = :now, updated_at = :now,"
    " reviewer_id = :reviewer, reason = :reason, question_id = :question, notified_at = NULL"
    " WHERE guild_id = :guild AND id = :id AND state = 'open'"
)
_DECIDE_EDITED = Query(
    "UPDATE suggestions SET state = :state, decided_at = :now, updated_at = :now,"
    " reviewer_id = :reviewer, reason = :reason, question_id = :question, notified_at = NULL,"
    " text = :text, right_answer = :right, wrong_answers = :wrong,"
    " explanation = :explanation, source = :source"
    " WHERE guild_id = :guild AND id = :id AND state = 'open'"
)
_REOPEN = Query(
    "UPDATE suggestions SET state = 'open', decided_at = NULL, reviewer_id = NULL,"
    " reason = NULL, question_id = NULL, notified_at = NULL"
    " WHERE guild_id = :guild AND id = :id AND state = 'accepted'"
)
_SET_POST = Query(
    "UPDATE suggestions SET post_channel_id = :channel, post_message_id = :message"
    " WHERE guild_id = :guild AND id = :id"
)
_PENDING = Query(
    "SELECT 1 FROM suggestions WHERE guild_id = :guild AND user_id = :user"
    " AND state IN ('accepted', 'rejected', 'changes') AND decided_at IS NOT NULL"
    " AND notified_at IS NULL LIMIT 1"
)
_NOTICES = Query(
    "UPDATE suggestions SET notified_at = :now WHERE guild_id = :guild AND user_id = :user"
    " AND state IN ('accepted', 'rejected', 'changes') AND decided_at IS NOT NULL"
    f" AND notified_at IS NULL RETURNING {_COLUMNS}"
)
_MINE = Query(
    f"SELECT {_COLUMNS} FROM suggestions WHERE guild_id = :guild AND user_id = :user ORDER BY id"
)
_SETTINGS = Query(
    "SELECT channel_id, reviewer_role_id FROM suggestion_settings WHERE guild_id = :guild"
)
_SET_SETTINGS = Query(
    "INSERT INTO suggestion_settings (guild_id, channel_id, reviewer_role_id)"
    " VALUES (:guild, :channel, :role)"
    " ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id,"
    " reviewer_role_id = excluded.reviewer_role_id"
)


def _suggestion(row: Row) -> Suggestion:
    (id_, guild, user, name, lang, text, right, wrong, explanation, source, state) = row[:11]
    created, updated, decided, reviewer, reason, question, channel, message = row[11:]
    return Suggestion(
        id=int(id_),
        guild_id=int(guild),
        user_id=int(user),
        author_name=name,
        language=cast(Lang, lang),
        draft=Draft(text, right, wrong, explanation, source),
        state=cast(State, state),
        created_at=int(created),
        updated_at=int(updated),
        decided_at=None if decided is None else int(decided),
        reviewer_id=None if reviewer is None else int(reviewer),
        reason=reason,
        question_id=question,
        post=None if channel is None or message is None else (int(channel), int(message)),
    )


def _fields(draft: Draft) -> dict[str, object]:
    return {
        "text": draft.text,
        "right": draft.right,
        "wrong": draft.wrong,
        "explanation": draft.explanation,
        "source": draft.source,
    }


class SuggestionStore:
    def __init__(self, db: Executor) -> None:
        self.db = db

    async def _lock(self, tx: Executor, guild_id: int, user_id: int) -> None:
        if tx.dialect is Dialect.POSTGRESQL:  # see the module docstring
            await tx.execute(_SUBMIT_LOCK, lock=SUBMIT_LOCK, key=f"{guild_id}:{user_id}")

    async def submit(
        self,
        guild_id: int,
        user_id: int,
        *,
        name: str,
        lang: Lang,
        draft: Draft,
        ok: bool,
        now_ms: int,
        limit: int = MAX_OPEN,
    ) -> Saved:
        """A new suggestion: open when `ok` (refused as `limit` when the member has
        `limit` open already), else kept as the member's one draft (an earlier draft of
        theirs in the server is replaced)."""
        async with self.db.transaction() as tx:
            await self._lock(tx, guild_id, user_id)
            if ok:
                row = await tx.fetch_one(_COUNT_OPEN, guild=guild_id, user=user_id)
                if row is not None and int(row[0]) >= limit:
                    return Saved(None, "limit")
            else:
                await tx.execute(_DROP_DRAFTS, guild=guild_id, user=user_id)
            [row] = await tx.fetch(
                _INSERT,
                guild=guild_id,
                user=user_id,
                name=name,
                lang=lang,
                state="open" if ok else "draft",
                now=now_ms,
                **_fields(draft),
            )
        return Saved(_suggestion(row))

    async def resubmit(
        self,
        guild_id: int,
        suggestion_id: int,
        user_id: int,
        *,
        name: str,
        lang: Lang,
        draft: Draft,
        ok: bool,
        now_ms: int,
        limit: int = MAX_OPEN,
    ) -> Saved:
        """The author's edit of their draft or of one asked for changes: stored as typed;
        when `ok` it is open again (a draft only if the member is under `limit`)."""
        async with self.db.transaction() as tx:
            await self._lock(tx, guild_id, user_id)
            found = await tx.fetch_one(_GET, guild=guild_id, id=suggestion_id)
            if found is None:
                return Saved(None, "gone")
            was = _suggestion(found)
            if was.user_id != user_id or was.state not in ("draft", "changes"):
                return Saved(None, "gone")
            if ok and was.state == "draft":
                row = await tx.fetch_one(_COUNT_OPEN, guild=guild_id, user=user_id)
                if row is not None and int(row[0]) >= limit:
                    return Saved(None, "limit")
            rows = await tx.fetch(
                _EDIT,
                guild=guild_id,
                id=suggestion_id,
                user=user_id,
                was=was.state,
                name=name,
                lang=lang,
                state="open" if ok else was.state,
                now=now_ms,
                notified=now_ms,
                **_fields(draft),
            )
        return Saved(_suggestion(rows[0])) if rows else Saved(None, "gone")

    async def get(self, guild_id: int, suggestion_id: int) -> Suggestion | None:
        row = await self.db.fetch_one(_GET, guild=guild_id, id=suggestion_id)
        return None if row is None else _suggestion(row)

    async def queue(self, guild_id: int, *, offset: int, limit: int) -> list[Suggestion]:
        """The server's open suggestions, oldest first."""
        rows = await self.db.fetch(_QUEUE, guild=guild_id, offset=offset, limit=limit)
        return [_suggestion(r) for r in rows]

    async def queue_size(self, guild_id: int) -> int:
        row = await self.db.fetch_one(_QUEUE_COUNT, guild=guild_id)
        return 0 if row is None else int(row[0])

    async def decide(
        self,
        guild_id: int,
        suggestion_id: int,
        outcome: Outcome,
        *,
        reviewer_id: int,
        now_ms: int,
        reason: str | None = None,
        question_id: str | None = None,
        edited: Draft | None = None,
    ) -> bool:
        """Decide an open suggestion (with a moderator's `edited` text, which replaces
        the author's); False when it is not open (decided already, or unknown here)."""
        params: dict[str, object] = {
            "guild": guild_id,
            "id": suggestion_id,
            "state": outcome,
            "now": now_ms,
            "reviewer": reviewer_id,
            "reason": reason,
            "question": question_id,
        }
        if edited is None:
            return await self.db.execute(_DECIDE, **params) > 0
        return await self.db.execute(_DECIDE_EDITED, **params, **_fields(edited)) > 0

    async def reopen(self, guild_id: int, suggestion_id: int) -> bool:
        """An acceptance taken back (the server's bank was full): open again."""
        return await self.db.execute(_REOPEN, guild=guild_id, id=suggestion_id) > 0

    async def set_post(
        self, guild_id: int, suggestion_id: int, channel_id: int, message_id: int
    ) -> None:
        await self.db.execute(
            _SET_POST, guild=guild_id, id=suggestion_id, channel=channel_id, message=message_id
        )

    async def claim_notices(self, guild_id: int, user_id: int, *, now_ms: int) -> list[Suggestion]:
        """The member's decided suggestions they were not told of yet, marked told (so a
        second command at once gets none of them). Every `/tpquiz` command asks, so a
        plain read comes first and the write only when there is something to tell."""
        if await self.db.fetch_one(_PENDING, guild=guild_id, user=user_id) is None:
            return []
        async with self.db.transaction() as tx:
            rows = await tx.fetch(_NOTICES, guild=guild_id, user=user_id, now=now_ms)
        return sorted((_suggestion(r) for r in rows), key=lambda s: s.id)

    async def mine(self, guild_id: int, user_id: int) -> list[Suggestion]:
        rows = await self.db.fetch(_MINE, guild=guild_id, user=user_id)
        return [_suggestion(r) for r in rows]

    async def settings(self, guild_id: int) -> tuple[int | None, int | None]:
        """(review channel, reviewer role) of the server; None where not set."""
        row = await self.db.fetch_one(_SETTINGS, guild=guild_id)
        if row is None:
            return None, None
        return (
            None if row[0] is None else int(row[0]),
            None if row[1] is None else int(row[1]),
        )

    async def set_settings(
        self, guild_id: int, *, channel_id: int | None, reviewer_role_id: int | None
    ) -> None:
        await self.db.execute(
            _SET_SETTINGS, guild=guild_id, channel=channel_id, role=reviewer_role_id
        )
