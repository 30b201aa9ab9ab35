"""A server's own questions and its bank settings (GuildBankContract; issue 27).

One store for both backends over `Executor` (bot/storage/sql.py), on the tables of
migration 0013. An upload is one transaction: the server's current versions are read,
the limit of questions a server may hold is checked on them, each id the server already
has gets its next version (the old one kept, `current = 0`) and each new id version 1.
Two uploads to one server at once: SQLite serialises writers; PostgreSQL at READ
COMMITTED would let both read the same versions, so there the upload first takes a
transaction-level advisory lock on the server (released at COMMIT), as reports' filing
does (bot/storage/stores/reports.py). Every statement names the server: one server's
questions are never read for another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.quiz.model import Lang, Question
from bot.quiz.own_questions import (
    MAX_SERVER_QUESTIONS,
    BankSettings,
    OwnQuestion,
    PutResult,
    decode,
    encode,
    languages_of,
    runtime_id,
)
from bot.storage.sql import Dialect, Executor, Query, Row

__all__ = ["GuildBankStore"]

#: The first key of the server's advisory lock while uploading ('tpgb'; PostgreSQL only).
UPLOAD_LOCK = 0x74706762
_UPLOAD_LOCK = Query("SELECT pg_advisory_xact_lock(:lock, hashtext(:guild_key))")

_COLUMNS = (
    "guild_id, question_id, version, languages, body, created_at, retired_at,"
    " credit_user_id, credit_name"
)
_CURRENT = Query(
    "SELECT question_id, version, retired_at, credit_user_id, credit_name FROM guild_questions"
    " WHERE guild_id = :guild AND current = 1"
)
_SUPERSEDE = Query(
    "UPDATE guild_questions SET current = 0"
    " WHERE guild_id = :guild AND question_id = :question AND current = 1"
)
_INSERT = Query(
    "INSERT INTO guild_questions (guild_id, question_id, version, topic, difficulty,"
    " languages, body, created_at, current, credit_user_id, credit_name)"
    " VALUES (:guild, :question, :version, :topic, :difficulty, :languages, :body, :now, 1,"
    " :credit_user, :credit_name)"
)
_LIST = Query(
    f"SELECT {_COLUMNS} FROM guild_questions WHERE guild_id = :guild AND current = 1"
    " ORDER BY question_id"
)
_GET_CURRENT = Query(
    f"SELECT {_COLUMNS} FROM guild_questions"
    " WHERE guild_id = :guild AND question_id = :question AND current = 1"
)
_GET_VERSION = Query(
    f"SELECT {_COLUMNS} FROM guild_questions"
    " WHERE guild_id = :guild AND question_id = :question AND version = :version"
)
_VERSIONS = Query(
    f"SELECT {_COLUMNS} FROM guild_questions WHERE guild_id = :guild ORDER BY question_id, version"
)
_UNCREDIT = Query(
    "UPDATE guild_questions SET credit_user_id = 0, credit_name = NULL"
    " WHERE guild_id = :guild AND credit_user_id = :user"
)
_RETIRE = Query(
    "UPDATE guild_questions SET retired_at = :now WHERE guild_id = :guild"
    " AND question_id = :question AND current = 1 AND retired_at IS NULL"
)
_COUNT = Query(
    "SELECT COUNT(*) FROM guild_questions"
    " WHERE guild_id = :guild AND current = 1 AND retired_at IS NULL"
)
_SETTINGS = Query("SELECT draw, daily_share FROM guild_bank_settings WHERE guild_id = :guild")
_SET_SETTINGS = Query(
    "INSERT INTO guild_bank_settings (guild_id, draw, daily_share)"
    " VALUES (:guild, :draw, :share)"
    " ON CONFLICT (guild_id) DO UPDATE SET draw = excluded.draw,"
    " daily_share = excluded.daily_share"
)


def _own(row: Row) -> OwnQuestion:
    guild_id, question_id, version, languages, body, created_at, retired_at = row[:7]
    credit_user, credit_name = row[7:]
    return OwnQuestion(
        guild_id=int(guild_id),
        question_id=question_id,
        version=int(version),
        languages=languages_of(languages),
        question=decode(body, runtime_id(question_id, int(version))),
        created_at=int(created_at),
        retired_at=None if retired_at is None else int(retired_at),
        credited=credit_user is not None,
        credit_name=credit_name,
    )


class GuildBankStore:
    def __init__(self, db: Executor) -> None:
        self.db = db

    async def put(
        self,
        guild_id: int,
        questions: Sequence[tuple[Question, tuple[Lang, ...]]],
        *,
        now_ms: int,
        limit: int = MAX_SERVER_QUESTIONS,
        credits: Mapping[str, tuple[int, str]] | None = None,
    ) -> PutResult:
        """Store each (question, its languages) under the question's id in the server: a
        new id as version 1, an id the server has as its next version (a retired one
        comes back). Nothing is stored when the server would hold more than `limit`
        questions that are not retired. `credits` names the member (id, display name)
        an accepted suggestion is credited to; a new version of a credited question
        keeps its credit."""
        async with self.db.transaction() as tx:
            if tx.dialect is Dialect.POSTGRESQL:  # see the module docstring
                await tx.execute(_UPLOAD_LOCK, lock=UPLOAD_LOCK, guild_key=str(guild_id))
            rows = await tx.fetch(_CURRENT, guild=guild_id)
            current = {row[0]: (int(row[1]), row[2] is not None) for row in rows}
            credit = {row[0]: (row[3], row[4]) for row in rows if row[3] is not None}
            credit.update(credits or {})
            ids = {q.id for q, _ in questions}
            kept = sum(1 for qid, (_, retired) in current.items() if not retired and qid not in ids)
            total = kept + len(ids)
            if total > limit:
                return PutResult(refused_total=total)
            added: list[str] = []
            replaced: list[str] = []
            for question, languages in questions:
                had = current.get(question.id)
                version = 1 if had is None else had[0] + 1
                if had is not None:
                    await tx.execute(_SUPERSEDE, guild=guild_id, question=question.id)
                    replaced.append(question.id)
                else:
                    added.append(question.id)
                current[question.id] = (version, False)
                await tx.execute(
                    _INSERT,
                    guild=guild_id,
                    question=question.id,
                    version=version,
                    topic=question.topic,
                    difficulty=question.difficulty,
                    languages=",".join(languages),
                    body=encode(question, languages),
                    now=now_ms,
                    credit_user=credit.get(question.id, (None, None))[0],
                    credit_name=credit.get(question.id, (None, None))[1],
                )
        return PutResult(tuple(added), tuple(replaced))

    async def current(self, guild_id: int, *, retired: bool = False) -> list[OwnQuestion]:
        """The server's questions at their current version, by id; retired ones too when
        `retired`."""
        found = [_own(row) for row in await self.db.fetch(_LIST, guild=guild_id)]
        return found if retired else [q for q in found if not q.retired]

    async def get(
        self, guild_id: int, question_id: str, version: int | None = None
    ) -> OwnQuestion | None:
        """One of the server's questions: its current version, or the version named."""
        if version is None:
            row = await self.db.fetch_one(_GET_CURRENT, guild=guild_id, question=question_id)
        else:
            row = await self.db.fetch_one(
                _GET_VERSION, guild=guild_id, question=question_id, version=version
            )
        return None if row is None else _own(row)

    async def versions(self, guild_id: int) -> list[OwnQuestion]:
        """Every version the server has stored (current, replaced and retired), by id then
        version: the item statistics keep each version's figures apart (issue 27)."""
        return [_own(row) for row in await self.db.fetch(_VERSIONS, guild=guild_id)]

    async def retire(self, guild_id: int, question_id: str, *, now_ms: int) -> bool:
        """No longer pick the question (its answers, cards and statistics stay); False
        when the server has no such question in use."""
        changed = await self.db.execute(_RETIRE, guild=guild_id, question=question_id, now=now_ms)
        return changed > 0

    async def uncredit(self, guild_id: int, user_id: int) -> int:
        """Take the member's name off the server's questions credited to them (they stay,
        credited to "a member"), as forget-me does; how many versions changed."""
        return await self.db.execute(_UNCREDIT, guild=guild_id, user=user_id)

    async def count(self, guild_id: int) -> int:
        """The server's questions in use (current, not retired)."""
        row = await self.db.fetch_one(_COUNT, guild=guild_id)
        return 0 if row is None else int(row[0])

    async def settings(self, guild_id: int) -> BankSettings:
        row = await self.db.fetch_one(_SETTINGS, guild=guild_id)
        if row is None:
            return BankSettings()
        return BankSettings(draw=row[0], daily_share=int(row[1]))

    async def set_settings(self, guild_id: int, settings: BankSettings) -> None:
        await self.db.execute(
            _SET_SETTINGS, guild=guild_id, draw=settings.draw, share=settings.daily_share
        )
