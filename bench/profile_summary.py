"""Summarise a py-spy profile of the bot (`bench.answer_path --profile`): where time goes.

py-spy's raw format is one line per distinct stack, "frame;frame;... count". Each sample
is attributed to the innermost frame of tpquiz's own code (`bot/`, `cogs/`) on its stack,
or to "discord.py / aiohttp / asyncio" when there is none (the gateway, the event loop),
or to aiosqlite's thread hand-offs, so the output separates what
tpquiz spends from what the library spends on its behalf. With `--clicks` the figures
are microseconds per click (py-spy samples at `--rate` per second).

    .venv/bin/python -m bench.profile_summary bench/out/answer_path.tpquiz.pyspy.txt \\
        --clicks 4000
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

from bench.common import table

_LINE = re.compile(r":\d+\)$")
#: tpquiz frames that only start the process: time under them (and under no handler) is
#: discord.py reading the gateway and running the event loop.
_ENTRY = {"<module>", "main", "cmd_run", "run_bot"}


def attribute(path: Path) -> tuple[Counter[str], Counter[str], int]:
    """(samples by innermost tpquiz frame, samples by leaf frame, total samples)."""
    owners: Counter[str] = Counter()
    leaves: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        stack, count = line.rsplit(" ", 1)
        samples = int(count)
        total += samples
        frames = stack.split(";")
        leaves[_LINE.sub(")", frames[-1])] += samples
        owner = "discord.py / aiohttp / asyncio"
        for frame in reversed(frames):
            if "aiosqlite" in frame:
                owner = "aiosqlite (thread hand-offs)"
                break
            name = frame.split(" (", 1)[0]
            if ("(bot/" in frame or "(cogs/" in frame) and name not in _ENTRY:
                owner = "tpquiz: " + name
                break
        owners[owner] += samples
    return owners, leaves, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("profile", type=Path, help="py-spy --format raw output")
    parser.add_argument("--clicks", type=int, default=0, help="clicks during the profile")
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)
    owners, leaves, total = attribute(args.profile)
    scale = 1e6 / args.rate / args.clicks if args.clicks else 100 / max(1, total)
    unit = "us/click" if args.clicks else "% of samples"
    print(f"{total} samples")
    print(
        table(
            ["innermost tpquiz frame", unit],
            [[k, v * scale] for k, v in owners.most_common(args.top)],
        )
    )
    print()
    print(
        table(
            ["leaf frame (self time)", unit],
            [[k, v * scale] for k, v in leaves.most_common(args.top)],
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
