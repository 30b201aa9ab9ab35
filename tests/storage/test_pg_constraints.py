"""The PostgreSQL schema's keys keep the guarantees across concurrent connections.

Why: on PostgreSQL several bot processes write at once, with no in-process lock between
them (issue 15). One answer per member per post and one daily slot per server and day
must then hold in the schema itself: twenty clicks on twenty connections, each its own
READ COMMITTED transaction, record one answer.
"""

from __future__ import annotations

import asyncio

import asyncpg

from bot.storage.pg.db import PgDatabase

CLICKS = 20


async def _post(db: PgDatabase) -> int:
    async with db.transaction() as conn:
        post_id: int = await conn.fetchval(
            "INSERT INTO posts (guild_id, channel_id, question_id, choice_order, language,"
            " created_at) VALUES (1, 2, 'q', '0,1,2,3', 'en', 0) RETURNING id"
        )
    return post_id


async def test_twenty_concurrent_clicks_of_one_member_record_one_answer(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url, max_size=CLICKS)
    try:
        post_id = await _post(db)
        together = asyncio.Barrier(CLICKS)

        async def click(choice: int) -> str:
            async with db.transaction() as conn:
                await together.wait()  # all twenty transactions open before any inserts
                status: str = await conn.execute(
                    "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
                    " choice_index, correct, first, points, answered_at)"
                    " VALUES (1, 7, 'q', 't', $1, $2, 1, 1, 1, 0)"
                    # Every unique index is an arbiter: with only (post_id, user_id) named,
                    # the row racing on answers_first (same member, question, first = 1)
                    # raises instead of being skipped, depending on which index is
                    # checked first (this test was flaky so, in CI).
                    " ON CONFLICT DO NOTHING",
                    post_id,
                    choice % 4,
                )
            return status

        statuses = await asyncio.gather(*(click(i) for i in range(CLICKS)))
        assert sorted(statuses) == ["INSERT 0 0"] * (CLICKS - 1) + ["INSERT 0 1"]
        rows = await db.fetch("SELECT user_id FROM answers WHERE post_id = $1", post_id)
        assert [r["user_id"] for r in rows] == [7]
    finally:
        await db.close()


async def test_a_second_daily_slot_for_the_same_day_is_refused(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url)
    try:
        insert = (
            "INSERT INTO daily_slots (guild_id, local_date, question_id, round, status,"
            " claimed_at) VALUES (1, '2026-12-03', $1, 0, 'claimed', 0)"
        )
        async with db.transaction() as conn:
            await conn.execute(insert, "q1")
        try:
            async with db.transaction() as conn:
                await conn.execute(insert, "q2")
        except asyncpg.UniqueViolationError as exc:
            assert exc.constraint_name == "daily_slots_pkey"
        else:
            raise AssertionError("a second slot for the same server and day was stored")
    finally:
        await db.close()


async def test_only_a_first_answer_can_score(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url)
    try:
        first, second = await _post(db), await _post(db)
        insert = (
            "INSERT INTO answers (guild_id, user_id, question_id, topic, post_id,"
            " choice_index, correct, first, points, answered_at)"
            " VALUES (1, 7, 'q', 't', $1, 0, 1, $2, $3, 0)"
        )
        async with db.transaction() as conn:
            await conn.execute(insert, first, 1, 1)
            await conn.execute(insert, second, 0, 0)  # the same question again: not first
        try:
            async with db.transaction() as conn:
                await conn.execute(insert, await _post(db), 1, 1)
        except asyncpg.UniqueViolationError as exc:
            assert exc.constraint_name == "answers_first"
        else:
            raise AssertionError("two first answers to one question were stored")
    finally:
        await db.close()
