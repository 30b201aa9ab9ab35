"""A server's own questions (issue 27): picking with 2,000 of them on top of the bank, and
the checks of an upload of 500.

Picking: `QuizService.new_post` (the pick and the post's row, on a SQLite file) for a
server without questions of its own (the baseline, the same run), a server with 2,000
whose pool is in memory (`bot/services/own_pool.py` keeps it a minute), and the same
server read afresh each time (the first pick after an upload, or once a minute; with the
item statistics' check of the questions kept out of the picks, as the bot runs it). Then
the admin view's read of the server's statistics (every version of its questions: 250
of them uploaded again, a second version each).

Upload: `check_upload` of a 500-question YAML file (English only: 500 bilingual questions
of the bank's length pass 1 MiB) against the bundled bank and the server's 2,000 (what
`/tpquiz-admin bank upload` runs in a thread), beside the same checks without the
look-alike search over the bank and the server's questions (the file's own checks, as
`tpquiz validate` runs them), and the store's write of the 500 in one transaction.

    .venv/bin/python -m bench.guild_bank [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import yaml

from bench.common import machine_line, summary_ms, table, write_json
from bench.synthetic_bank import write_bank
from bot.bank.loader import load_bank
from bot.bank.own_upload import check_upload
from bot.quiz.own_questions import BankSettings
from bot.services.guild_bank import GuildBankService
from bot.services.items import ItemStatsService
from bot.services.quiz import QuizService
from bot.storage.sqlite import Storage

OWN, PLAIN = 1, 2


async def _run(directory: Path, picks: int, uploads: int) -> dict[str, dict[str, float]]:
    files = write_bank(directory / "bank", 2500, 10)  # 250 a file: a file is at most 1 MiB
    bank = load_bank()
    storage = await Storage.open(directory / "bench.sqlite3")
    service = QuizService(
        bank, storage, lambda: datetime(2026, 12, 7, tzinfo=UTC), random.Random(1)
    )
    # As the bot builds it: the item statistics' hook keeps withheld questions out of a
    # server's pool, so reading a pool reads the server's summary too.
    items = ItemStatsService(service)
    guild_bank = GuildBankService(service)
    figures: dict[str, dict[str, float]] = {}
    try:
        for path in files[:8]:
            done = await guild_bank.upload(OWN, path.read_bytes(), path.name)
            assert done.stored is not None and done.stored.added, done.check.problems[:3]
        assert await storage.guild_bank.count(OWN) == 2000

        async def timed(guild: int, *, cold: bool) -> list[float]:
            out = []
            for _ in range(picks):
                if cold:
                    service.own.forget(guild)
                started = time.perf_counter()
                await service.new_post(guild_id=guild, channel_id=9, language="en")
                out.append(time.perf_counter() - started)
            return out

        await timed(PLAIN, cold=False)  # warm the statements
        await service.new_post(guild_id=OWN, channel_id=9, language="en")  # read its pool
        figures["pick, no own questions (baseline)"] = summary_ms(await timed(PLAIN, cold=False))
        figures["pick, 2,000 own + bank, pool kept"] = summary_ms(await timed(OWN, cold=False))
        hook, service.own.withheld = service.own.withheld, None
        figures["pick, 2,000 own + bank, pool read, no withheld check"] = summary_ms(
            await timed(OWN, cold=True)
        )
        service.own.withheld = hook
        figures["pick, 2,000 own + bank, pool read"] = summary_ms(await timed(OWN, cold=True))
        await storage.guild_bank.set_settings(OWN, BankSettings("own", 50))
        figures["pick, 2,000 own only, pool kept"] = summary_ms(await timed(OWN, cold=False))

        # The admin view's read (`/tpquiz-admin questions`, `bank list`): every stored
        # version decoded and the summary read, with 2,000 own questions of 2,250 versions.
        redone = await guild_bank.upload(OWN, files[0].read_bytes(), files[0].name)
        assert redone.stored is not None, [str(p) for p in redone.check.problems[:3]]
        assert await items.refresh(OWN, now_ms=1)
        views = []
        for _ in range(max(picks // 10, 2)):
            started = time.perf_counter()
            stats = await items.server_stats(OWN)
            views.append(time.perf_counter() - started)
            assert stats.as_of_ms == 1 and len(stats.in_use) == 2000
        figures["admin view: statistics of 2,000 own (2,250 versions)"] = summary_ms(views)

        upload = _english_only(files[8:], directory / "upload-500.yaml")
        data = upload.read_bytes()
        own = await storage.guild_bank.current(OWN, retired=True)
        plain, checked = [], []
        for _ in range(uploads):
            started = time.perf_counter()
            alone = check_upload(data, upload.name)
            plain.append(time.perf_counter() - started)
            assert alone.ok
            started = time.perf_counter()
            check = check_upload(data, upload.name, bundled=bank, own=own)
            checked.append(time.perf_counter() - started)
            assert check.ok and len(check.questions) == 500
        figures["500 questions: the file's own checks only (baseline)"] = summary_ms(plain)
        figures["500 questions: upload checks vs bank + 2,000 own"] = summary_ms(checked)
        started = time.perf_counter()
        stored = await storage.guild_bank.put(OWN, check.questions, now_ms=1, limit=2500)
        figures["500 questions: stored in one transaction"] = summary_ms(
            [time.perf_counter() - started]
        )
        assert len(stored.added) == 500
    finally:
        await storage.close()
    return figures


def _english_only(paths: list[Path], out: Path) -> Path:
    """The questions of `paths` in English only (500 bilingual ones pass 1 MiB), as one file."""
    items = [item for path in paths for item in yaml.safe_load(path.read_text(encoding="utf-8"))]
    for item in items:
        for key in ("text", "explanation"):
            item[key] = {"en": item[key]["en"]}
        for key in ("figure", "explanation_figure"):  # a figure's alt text too
            if isinstance(item.get(key), dict) and "alt" in item[key]:
                item[key]["alt"] = {"en": item[key]["alt"]["en"]}
        for choice in item["choices"]:
            for key in ("text", "feedback"):
                if key in choice:
                    choice[key] = {"en": choice[key]["en"]}
    out.write_text(yaml.safe_dump(items, allow_unicode=True, sort_keys=False, width=10_000))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="time a server's own questions")
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args(argv)
    picks, uploads = (20, 1) if args.quick else (300, 5)
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(_run(Path(tmp), picks, uploads))
    print(f"a server's own questions, on {machine_line()}")
    print(
        table(
            ["what", "p50 ms", "p99 ms", "max ms"],
            [[name, f["p50"], f["p99"], f["max"]] for name, f in figures.items()],
        )
    )
    print(f"figures written to {write_json('guild_bank', figures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
