"""First answers read from a real SQLite file, as the answers are recorded by the bot."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from bot.quiz.itemstats import FirstAnswer, bank_stats, item_of
from bot.quiz.itemstats_fast import bank_stats_member_rows
from bot.quiz.itemstats_fast import member_rows as python_rows
from bot.quiz.model import Question
from bot.storage.sqlite import Storage
from bot.storage.sqlite.itemstats import first_answer_rows, first_answers, member_rows
from tests.factories import make_bank
from tests.itemsim import simulate

GUILD, OTHER = 111, 222


async def test_only_first_answers_are_read_with_the_file_order_choice(tmp_path: Path) -> None:
    bank = make_bank()
    q = bank["mlp-split-01"]  # correct index 1
    path = tmp_path / "quiz.sqlite3"
    storage = await Storage.open(path)
    try:
        posts = [
            await storage.posts.create(
                guild_id=g,
                channel_id=5,
                question_id=q.id,
                order=(2, 0, 3, 1),
                language="en",
                now_ms=1_000 + i,
            )  # fmt: skip
            for i, g in enumerate((GUILD, GUILD, OTHER))
        ]
        # Alice answers the question twice in GUILD (the second is not first), once in OTHER.
        await storage.answers.record(guild_id=GUILD, user_id=1, name="a", question=q,
                                     choice_index=3, now_ms=2_000, post_id=posts[0].id)  # fmt: skip
        await storage.answers.record(guild_id=GUILD, user_id=1, name="a", question=q,
                                     choice_index=1, now_ms=3_000, post_id=posts[1].id)  # fmt: skip
        await storage.answers.record(guild_id=OTHER, user_id=1, name="a", question=q,
                                     choice_index=1, now_ms=4_000, post_id=posts[2].id)  # fmt: skip
    finally:
        await storage.close()
    with sqlite3.connect(path) as conn:
        assert first_answers(conn, GUILD) == [FirstAnswer(GUILD, 1, q.id, 3, False)]
        assert sorted(first_answers(conn), key=lambda a: a.guild_id) == [
            FirstAnswer(GUILD, 1, q.id, 3, False),
            FirstAnswer(OTHER, 1, q.id, 1, True),
        ]
        assert first_answers(conn, 999) == []
        # The fast path's plain rows: the same answers, same order, correct as 0/1.
        for guild in (GUILD, OTHER, None, 999):
            assert first_answer_rows(conn, guild) == [
                (a.guild_id, a.user_id, a.question_id, a.choice_index, int(a.correct))
                for a in first_answers(conn, guild)
            ]
        assert first_answer_rows(conn, GUILD) == [(GUILD, 1, q.id, 3, 0)]


async def test_sqlites_per_member_pass_gives_the_python_rows_and_figures(tmp_path: Path) -> None:
    """`member_rows` (a window over each member's first answers) against the rows
    computed in Python from the same first answers, and the figures from them against
    the straightforward definition, for every server and each one."""
    bank = make_bank()
    questions = list(bank)
    path = tmp_path / "quiz.sqlite3"
    rng = random.Random(4)

    def choose(m: int, ability: int, q: Question) -> int:
        if rng.random() < 0.2 + 0.12 * ability:
            return q.correct_index
        return rng.randrange(len(q.choices))

    for guild, start in ((GUILD, 0), (OTHER, 20)):
        for k in range(3):  # members answer different subsets: accuracies vary and tie
            await simulate(path, guild_id=guild, members=range(start + 7 * k, start + 7 * k + 9),
                           questions=questions[k : k + 3 + k], choose=choose,
                           now_ms=1_700_000_000_000 + k * 10_000)  # fmt: skip
    items = [item_of(q) for q in questions]
    with sqlite3.connect(path) as conn:
        for guild in (None, GUILD, OTHER, 999):
            answers = first_answers(conn, guild)
            rows = member_rows(conn, guild)
            assert sorted(rows, key=repr) == sorted(python_rows(answers), key=repr)
            assert bank_stats_member_rows(items, rows) == bank_stats(items, answers)
        assert len(member_rows(conn)) > 80
