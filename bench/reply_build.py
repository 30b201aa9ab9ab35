"""CPU to build one answer reply: rendered whole per click, against from a post's kept
parts (`bot.ui.answer_replies`, issue 30). In one process, so both see the same load.

    .venv/bin/python -m bench.reply_build [--replies 20000]

Each reply is what the click handler hands discord.py: the embed (fitted) and the kept
report view, turned into the dicts discord.py serialises.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any


def main(argv: list[str] | None = None) -> int:
    from bot.bank.loader import load_bank
    from bot.quiz.scoring import AnswerResult, MemberScore
    from bot.ui import render
    from bot.ui.answer_replies import AnswerReplies
    from bot.ui.buttons.report import report_view
    from bot.ui.limits import fit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=20000)
    args = parser.parse_args(argv)
    question = next(iter(load_bank()))
    order = tuple(range(len(question.choices)))
    kept = AnswerReplies()

    def result(i: int) -> AnswerResult:
        choice = i % len(question.choices)
        score = MemberScore(i, "m", 5 + i % 7, 6, 4, 2, 3)
        return AnswerResult(
            question.id, choice, choice == question.correct_index, 1, False, score, 7
        )

    def whole(i: int) -> Any:
        embed = render.answer_embed(question, order, result(i), "en")
        return send(embed)

    def from_kept(i: int) -> Any:
        r = result(i)
        footer = render.points_line(r.score, r.rank, r.points_awarded, "en")
        embed = kept.embed(
            1,
            question,
            order,
            r,
            "en",
            footer,
            lambda: render.answer_embed(question, order, r, "en"),
        )
        return send(embed)

    def send(embed: Any) -> Any:
        view = report_view("p", 1, "en")
        fit({"embed": embed, "view": view, "ephemeral": True})
        return embed.to_dict(), view.to_components()

    assert whole(3)[0] == from_kept(3)[0]
    for name, build in (("rendered whole", whole), ("from kept parts", from_kept)):
        print(f"{name}: {_per_call_us(build, args.replies):.1f} µs CPU per reply")
    return 0


def _per_call_us(build: Callable[[int], Any], n: int) -> float:
    for i in range(min(n, 2000)):  # warm up (the kept entries, caches)
        build(i)
    started = time.process_time()
    for i in range(n):
        build(i)
    return (time.process_time() - started) / n * 1e6


if __name__ == "__main__":
    sys.exit(main())
