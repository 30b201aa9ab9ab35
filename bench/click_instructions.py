"""A load-independent figure of the bot's work per click: a small in-process driver to
count instructions under `perf stat -e instructions:u` (or valgrind --tool=callgrind).

CPU time per click moves with the machine's other load (caches, frequency, hyperthread
neighbours); the number of instructions a click executes hardly does. This runs the bot
and the loopback Discord (no body validation) in one process, posts one question, then
sends `--clicks` clicks by new members, `--in-flight` at a time, and exits. Run it twice,
with a small and a large `--clicks`, and divide the difference of the two counts by the
difference of the clicks: start-up cancels out, what is left is one click's
instructions (the bot's and the in-process loopback's, which is the same code before
and after a change to the bot):

    valgrind --tool=callgrind python -m bench.click_instructions --clicks 20
    valgrind --tool=callgrind python -m bench.click_instructions --clicks 220
    (or `perf stat -e instructions:u`, where the machine exposes the counter: this VM does not)

For another checkout, run it with that checkout on PYTHONPATH (its bot, its loopback).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

GUILD = 1_700_000_000_000_000_001
CHANNEL = GUILD + 1
MEMBER_BASE = 1_700_000_000_000_100_000


async def drive(clicks: int, in_flight: int) -> None:
    from bot.bank.loader import load_bank
    from bot.infra.config import Settings
    from bot.runtime.compose import build_bot
    from bot.storage.sqlite import Storage
    from tests.loopback.harness import running
    from tests.loopback.server import LoopbackDiscord

    lb = LoopbackDiscord(validator=None)
    await lb.start()
    lb.add_guild(GUILD, name="bench", channel_ids=[CHANNEL])
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "tpquiz.sqlite3"
        storage = await Storage.open(db_path)
        bot = build_bot(
            settings=Settings(db_path=db_path),
            storage=storage,
            bank=load_bank(),
            clock=lambda: datetime.now(UTC),
            rng=random.Random(1),
            guild_ready_timeout=0.05,
        )
        try:
            async with running(bot, lb):
                host = lb.member(MEMBER_BASE, "host")
                posted = await lb.interact(
                    lb.slash_command(GUILD, CHANNEL, host, "tpquiz", "question", None)
                )
                message = posted.response["resource"]["message"]
                ids = [c["custom_id"] for row in message["components"] for c in row["components"]]
                message_id = int(message["id"])
                for start in range(0, clicks, in_flight):
                    wave = range(start, min(start + in_flight, clicks))
                    await asyncio.gather(
                        *(
                            lb.interact(
                                lb.button_click(
                                    message_id,
                                    ids[i % len(ids)],
                                    lb.member(MEMBER_BASE + 1 + i, f"m{i}"),
                                ),
                                timeout=30,
                            )
                            for i in wave
                        )
                    )
        finally:
            await storage.close()
            await lb.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=200)
    # One at a time: under valgrind a click takes ~50x longer, and clicks queued behind
    # each other would age past Discord's 2 s and be deferred (bot/ui/deadline.py), a
    # different path from the one measured.
    parser.add_argument("--in-flight", type=int, default=1)
    args = parser.parse_args(argv)
    asyncio.run(drive(args.clicks, args.in_flight))
    return 0


if __name__ == "__main__":
    sys.exit(main())
