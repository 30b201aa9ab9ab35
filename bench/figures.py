"""Drawing time of every figure (issue 29), and what the cache saves a busy post.

1. Each registered figure drawn `--draws` times per language (its defaults; the largest
   numbers a template can draw for the figures that take them): first draw, p50, p99,
   PNG bytes.
2. A post with 200 clicks on "Diagram", answered as the bot answers them (concurrently,
   in the default executor): through `FigureCache`, against the baseline of the same
   run, a fresh draw per click (what the bot would do without the cache).
3. A mixed day: clicks spread over the bank's questions and template posts (each post
   its own numbers), both languages: the cache's hit rate and the draws it saved.

    .venv/bin/python -m bench.figures [--draws 20] [--clicks 200] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from fractions import Fraction

from bench.common import machine_line, summary_ms, table, write_json
from bot.bank.figures import REGISTRY, render_png
from bot.bank.loader import load_bank
from bot.bank.template_files import load_templates
from bot.quiz.model import FigureRef, Lang, Text
from bot.ui.figures import FigureCache

#: The largest pictures the templates can ask for (most cells, longest labels).
LARGEST: dict[str, dict[str, int]] = {
    "pipeline-bubble": {"p": 16, "m": 128},
    "grid-3d": {"N": 3072, "t": 8, "p": 16},
    "gqa-heads": {"a": 64, "kv": 4, "t": 16},
    "ring-allreduce-volume": {"n": 16, "S": 96},
}


def drawing_times(draws: int) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float]] = {}
    cases = [(name, {}) for name in sorted(REGISTRY)] + [
        (f"{name} (largest)", params) for name, params in LARGEST.items()
    ]
    for label, params in cases:
        name = label.split(" ")[0]
        values = {k: Fraction(v) for k, v in params.items()}
        for lang in ("en", "tr"):
            durations, size = [], 0
            for _ in range(draws + 1):
                started = time.perf_counter()
                size = len(render_png(name, lang, values))
                durations.append(time.perf_counter() - started)
            found[f"{label} {lang}"] = {
                "first_ms": durations[0] * 1000,
                **summary_ms(durations[1:]),
                "bytes": size,
            }
    return found


async def busy_post(clicks: int) -> dict[str, float]:
    """200 clicks at once on one post's Diagram: cached against drawn every time."""
    ref = FigureRef("mlp-column-row", Text("a", "b"))
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    await asyncio.gather(
        *(loop.run_in_executor(None, render_png, ref.name, "en", ()) for _ in range(clicks))
    )
    uncached = time.perf_counter() - started
    cache = FigureCache()
    started = time.perf_counter()
    await asyncio.gather(*(cache.png(ref, "en") for _ in range(clicks)))
    cached = time.perf_counter() - started
    return {
        "clicks": clicks,
        "uncached_s": uncached,
        "cached_s": cached,
        "speedup": uncached / cached,
        "draws": cache.draws,
        "hit_rate": cache.hits / clicks,
    }


async def mixed_day(posts: int, clicks_per_post: int, seed: int = 29) -> dict[str, float]:
    """Posts of random bank questions and templates (fresh numbers each), clicks in both
    languages: how often the cache answers."""
    rng = random.Random(seed)
    bank = load_bank()
    templates = load_templates(bank=bank)
    fixed = [q.explanation_figure for q in bank if q.explanation_figure is not None]
    drawn = [t for t in templates if t.explanation_figure is not None]
    cache = FigureCache()
    requests = 0
    started = time.perf_counter()
    for _ in range(posts):
        if rng.random() < len(drawn) / (len(drawn) + len(fixed)):
            template = rng.choice(drawn)
            ref = template.materialize(template.draw(rng)).explanation_figure
        else:
            ref = rng.choice(fixed)
        assert ref is not None
        langs: list[Lang] = [rng.choice(("en", "tr")) for _ in range(clicks_per_post)]
        await asyncio.gather(*(cache.png(ref, lang) for lang in langs))
        requests += clicks_per_post
    return {
        "posts": posts,
        "requests": requests,
        "draws": cache.draws,
        "hit_rate": cache.hits / requests,
        "seconds": time.perf_counter() - started,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="time the figures and the figure cache")
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--clicks", type=int, default=200)
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="3 draws, 40 clicks, 30 posts")
    args = parser.parse_args(argv)
    if args.quick:
        args.draws, args.clicks, args.posts = 3, 40, 30
    times = drawing_times(args.draws)
    post = asyncio.run(busy_post(args.clicks))
    day = asyncio.run(mixed_day(args.posts, 10))
    print(f"figures, {args.draws} draws per figure and language, on {machine_line()}")
    print(
        table(
            ["figure", "first ms", "p50 ms", "p99 ms", "PNG KiB"],
            [[k, v["first_ms"], v["p50"], v["p99"], v["bytes"] / 1024] for k, v in times.items()],
        )
    )
    p50s = sorted(v["p50"] for v in times.values())
    print(
        f"over all figures: p50 of p50s {p50s[len(p50s) // 2]:.1f} ms, slowest p50 {p50s[-1]:.1f} ms"
    )
    print(
        f"\na post with {post['clicks']} Diagram clicks at once: drawn every time "
        f"{post['uncached_s']:.2f} s, through the cache {post['cached_s']:.3f} s "
        f"({post['speedup']:.0f}x), {post['draws']:.0f} draw, hit rate {post['hit_rate']:.1%}"
    )
    print(
        f"a mixed day: {day['posts']:.0f} posts, {day['requests']:.0f} requests, "
        f"{day['draws']:.0f} draws, hit rate {day['hit_rate']:.1%} ({day['seconds']:.1f} s)"
    )
    print(f"figures written to {write_json('figures', {'times': times, 'post': post, 'day': day})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
