"""`tpquiz figures`: every figure of the bank written as PNG files, to look at without Discord.

A reviewer checks a figure against its question's explanation and source; Discord is the
wrong place to do that for forty pictures. This draws what `tpquiz validate` draws (each
question's figures, each template's with a few seeded draws of its numbers), in both
languages, into one folder, named `<question-or-template>-<field>-<lang>[-<draw>].png`.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from bot.bank.figure_checks import TEMPLATE_DRAWS, draw_job, figure_jobs
from bot.bank.loader import bundled_question_files, inspect_files
from bot.bank.template_files import check_templates
from bot.infra.files import write_atomic
from bot.quiz.model import LANGS

__all__ = ["register", "run_figures"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    figures = subparsers.add_parser(
        "figures",
        help="write every figure of the bank as PNG files",
        description=(
            "Draw every figure the question files name, in Turkish and English, and write "
            "them as PNG files (templates' figures with a few seeded draws of their numbers). "
            "Exit status 1 if the bank has problems (run 'tpquiz validate') or a figure "
            "cannot be drawn."
        ),
    )
    figures.add_argument("--out", default="figures", help="folder to write into (default: figures)")
    figures.add_argument(
        "--id", dest="only", default=None, help="only the figures of this question or template"
    )
    figures.add_argument(
        "--draws", type=int, default=TEMPLATE_DRAWS, help="draws of each template (default: 3)"
    )
    figures.add_argument(
        "paths", nargs="*", metavar="PATH", help="question files or folders (default: bundled)"
    )
    figures.set_defaults(func=run_figures)


def run_figures(args: argparse.Namespace) -> int:
    stdout = getattr(args, "stdout", None) or sys.stdout
    stderr = getattr(args, "stderr", None) or sys.stderr
    paths: list[str | Path] = list(args.paths) if args.paths else list(bundled_question_files())
    report = inspect_files(paths)
    templates, template_problems = check_templates(paths, report.bank)
    if report.bank is None or template_problems:
        stderr.write("the bank has problems; run 'tpquiz validate' for the list\n")
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    draws: Counter[tuple[str, str]] = Counter()
    written = failed = 0
    for job in figure_jobs(report.bank, templates, max(1, args.draws)):
        if args.only is not None and job.owner != args.only:
            continue
        draws[(job.owner, job.field)] += 1
        n = draws[(job.owner, job.field)]
        suffix = f"-{n}" if job.owner.startswith("tpl-") or n > 1 else ""
        for lang in LANGS:
            try:
                png, problems = draw_job(job, lang)
            except Exception as exc:  # noqa: BLE001 - reported, and the others still drawn
                problems, png = [f"cannot be drawn: {exc}"], b""
            for problem in problems:
                stderr.write(f"{job.file}:{job.line}: {job.owner}: {job.field}: {problem}\n")
            if png:
                write_atomic(out / f"{job.owner}-{job.field}-{lang}{suffix}.png", png)
                written += 1
            failed += bool(problems)
    if args.only is not None and not draws:
        stderr.write(f"no figure for {args.only!r}: no question or template of that id names one\n")
        return 1
    stdout.write(f"wrote {written} figure{'s' if written != 1 else ''} to {out}\n")
    return 1 if failed else 0
