"""Simulated answers for the item statistics' tests: members of graded ability answer a
few sound questions, and one planted question whose key is wrong (issue #13).

Every answer goes through the bot's own recording transaction (`bot.storage.sqlite.clicks.
record_click`), on posts created as the bot creates them, so `first`, `correct` and the
choice index are what the bot would have stored.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

from bot.quiz.model import Question
from bot.storage.click_read import Click
from bot.storage.sqlite import Storage
from bot.storage.sqlite.clicks import record_click

#: choose(member, ability 0..5, question) -> choice index in file order.
Chooser = Callable[[int, int, Question], int]


def wrong_key_chooser(planted: Question, sound: list[Question]) -> Chooser:
    """Sound questions: a member of ability a (0..5) is right with probability 0.25 + 0.12 a (a seeded draw),
    the wrong answers spread over the distractors. The
    planted one: strong members (ability >= 3) pick the choice after the key, weak ones
    the key or the one after that: the key looks wrong."""
    key = planted.correct_index
    n = len(planted.choices)
    index = {q.id: k for k, q in enumerate(sound)}

    def choose(member: int, ability: int, question: Question) -> int:
        if question.id != planted.id:
            k, size = index[question.id], len(question.choices)
            if random.Random(member * 100 + k).random() < 0.25 + 0.12 * ability:
                return question.correct_index
            return (question.correct_index + 1 + (member + k) % (size - 1)) % size
        if ability >= 3:
            return (key + 1) % n
        return key if member % 2 else (key + 2 + member // 2 % (n - 2)) % n

    return choose


async def simulate(
    path: Path,
    *,
    guild_id: int,
    members: range,
    questions: list[Question],
    choose: Chooser,
    now_ms: int = 1_700_000_000_000,
) -> None:
    """Post each question once in the server; each member answers each post once."""
    storage = await Storage.open(path)
    try:
        posts = {}
        for i, q in enumerate(questions):
            order = tuple(range(len(q.choices)))
            posts[q.id] = await storage.posts.create(
                guild_id=guild_id, channel_id=5, question_id=q.id, order=order,
                language="en", now_ms=now_ms + i,
            )  # fmt: skip

        def work(conn: sqlite3.Connection) -> None:
            for m in members:
                for q in questions:
                    record_click(conn, Click(
                        guild_id=guild_id, user_id=m, name=f"m{m}", question=q,
                        choice_index=choose(m, m % 6, q), now_ms=now_ms + 1000,
                        post_id=posts[q.id].id,
                    ))  # fmt: skip

        await storage.db.run_transaction(work)
    finally:
        await storage.close()
