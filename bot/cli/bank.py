"""`tpquiz validate` and `tpquiz import`: the question bank's command-line tools.

These are thin wrappers: all checking lives in `bot.bank.loader` (the same code the bot
runs at start-up, so "validate passes" means "the bot will load it") and all format
conversion in `bot.bank.importers`. Output goes to the streams passed in (stdout for
results, stderr for problems, one `file:line: id: field: message` per line so editors
and CI annotate the right line).

`bot/cli/main.py` owns the `tpquiz` parser and calls `register(subparsers)`; `main(argv)`
here builds a parser with only these commands, for tests and for `python -m`.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from bot.bank.figure_checks import figure_problems
from bot.bank.importers import (
    ImportProblems,
    SourceError,
    dump_yaml,
    import_aiken,
    import_gift,
    read_source,
)
from bot.bank.loader import Problem, inspect_files
from bot.bank.loader import bundled_question_files as _bundled
from bot.bank.rank_stats import (
    fixed_figures,
    format_rank_stats,
    template_rank_figures,
    template_rank_problems,
)
from bot.bank.stats import balance, format_balance
from bot.bank.template_files import check_templates, format_template_counts
from bot.cli import figures as figures_commands
from bot.infra.files import UnsafeTarget, check_target, write_atomic_text
from bot.quiz.model import LANGS, TOPICS, Bank

__all__ = ["main", "register", "run_import", "run_validate"]

_DIFFICULTY_NAMES = {1: "recall", 2: "understanding", 3: "worked numbers / subtle"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `validate` and `import` to the `tpquiz` command's subparsers."""
    validate = subparsers.add_parser(
        "validate",
        help="check question files and print bank statistics",
        description=(
            "Check question YAML files the way the bot does at start-up and report every "
            "problem as 'file:line: question-id: field: message'. Exit status 1 if any "
            "problem, else print counts per topic, difficulty and language. Warnings (choices "
            "that hint at the key) are listed as 'file:line: id: field: warning: ...' and do "
            "not change the exit status. With no PATH, check the bundled bank "
            "(questions/*.yaml)."
        ),
    )
    validate.add_argument(
        "--stats",
        action="store_true",
        help=(
            "also print the choice-balance figures per language and the best 'always pick "
            "rank k' strategies (fixed questions and templates), with their targets"
        ),
    )
    validate.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="question file, or directory of *.yaml/*.yml files (default: bundled bank)",
    )
    validate.set_defaults(func=run_validate)

    imp = subparsers.add_parser(
        "import",
        help="convert an Aiken or GIFT quiz into a question YAML draft",
        description=(
            "Convert the multiple-choice questions of an Aiken or GIFT file into the bank's "
            "YAML. The result is a draft: the other language, explanations, sources and "
            "missing feedback are left for you, and 'tpquiz validate' lists them until done. "
            "Questions that cannot be imported (true/false, numeric, essay, ..., or broken) "
            "are skipped and listed as 'file:line: skipped: why'. Exit status 0 when at "
            "least one question was imported, 1 when the input yields none (or, with "
            "--strict, has any problem), 2 when the output or an option is unusable."
        ),
    )
    imp.add_argument("format", choices=("aiken", "gift"), help="input format")
    imp.add_argument("file", metavar="FILE", help="the Aiken or GIFT text file (UTF-8)")
    imp.add_argument("--lang", required=True, choices=LANGS, help="language the file is in")
    imp.add_argument(
        "--topic", default="basics", choices=TOPICS, help="topic for every imported question"
    )
    imp.add_argument(
        "--id-prefix",
        default=None,
        help="ids become PREFIX-01, PREFIX-02, ... (default: from the file name)",
    )
    imp.add_argument("-o", "--output", default=None, help="write here instead of stdout")
    imp.add_argument("--force", action="store_true", help="overwrite an existing --output")
    imp.add_argument(
        "--strict",
        action="store_true",
        help="import nothing if any question cannot be imported, and list every problem",
    )
    imp.set_defaults(func=run_import)
    figures_commands.register(subparsers)


def _streams(args: argparse.Namespace) -> tuple[TextIO, TextIO]:
    """Streams set on `args` by `main`, else the process's own (looked up at call time)."""
    return getattr(args, "stdout", None) or sys.stdout, getattr(args, "stderr", None) or sys.stderr


def _write_problems(problems: Sequence[Problem], stream: TextIO) -> None:
    for problem in problems:
        stream.write(f"{problem}\n")


def run_validate(args: argparse.Namespace) -> int:
    """Exit 0 and print statistics if the files are a valid bank, else list problems, 1."""
    stdout, stderr = _streams(args)
    paths: list[str | Path] = list(args.paths) if args.paths else list(_bundled())
    report = inspect_files(paths)
    bank = report.bank
    templates, template_problems = check_templates(paths, bank)
    problems = [*report.problems, *template_problems]
    if bank is not None and not template_problems:
        problems += figure_problems(bank, templates)
    ranks = template_rank_figures(templates) if not template_problems else []
    warnings = [*report.warnings, *template_rank_problems(templates, ranks)]
    for warning in warnings:
        stderr.write(f"{_as_warning(warning)}\n")
    if bank is None or problems:
        _write_problems(problems, stderr)
        files = {p.file for p in problems}
        stderr.write(
            f"{len(problems)} problem{'s' if len(problems) != 1 else ''} "
            f"in {len(files)} file{'s' if len(files) != 1 else ''}\n"
        )
        return 1
    stdout.write(format_counts(bank, report.file_count))
    stdout.write(format_template_counts(templates))
    if getattr(args, "stats", False):
        stdout.write(format_balance(balance(bank)))
        stdout.write(format_rank_stats(fixed_figures(bank), ranks))
    return 0


def _as_warning(problem: Problem) -> str:
    """A warning in the problems' format, marked so that editors and CI tell them apart."""
    return str(
        Problem(
            problem.file,
            problem.line,
            problem.question_id,
            problem.field,
            f"warning: {problem.message}",
        )
    )


def format_counts(bank: Bank, file_count: int) -> str:
    """Per-topic, per-difficulty and per-language counts, to spot gaps in the bank."""
    lines = [f"OK: {len(bank)} questions in {file_count} file{'s' if file_count != 1 else ''}"]
    topics = collections.Counter(q.topic for q in bank)
    labels = {level: f"{level} ({name})" for level, name in _DIFFICULTY_NAMES.items()}
    width = max(len(label) for label in (*TOPICS, *labels.values()))
    lines.append("by topic:")
    lines += [f"  {topic:<{width}}  {topics[topic]:>4}" for topic in TOPICS]
    difficulties = collections.Counter(q.difficulty for q in bank)
    lines.append("by difficulty:")
    for level, label in labels.items():
        lines.append(f"  {label:<{width}}  {difficulties[level]:>4}")
    lines.append("by language:")
    for lang in LANGS:
        strings = [
            s
            for q in bank
            for s in (
                q.text.get(lang),
                q.explanation.get(lang),
                *(c.text.get(lang) for c in q.choices),
                *(c.feedback.get(lang) for c in q.choices if c.feedback is not None),
            )
        ]
        lines.append(
            f"  {lang:<{width}}  {len(bank):>4} questions, {len(strings)} strings, "
            f"{sum(len(s) for s in strings)} characters"
        )
    return "\n".join(lines) + "\n"


def run_import(args: argparse.Namespace) -> int:
    """Write the converted YAML to stdout or --output, skipped questions to stderr.

    Exit 1: the input yields nothing to import (unreadable, no question importable, or
    with --strict any problem); exit 2: the output or an option cannot be used. Nothing
    is written in either case, and an existing --output is replaced only by a complete
    new file.
    """
    stdout, stderr = _streams(args)
    output = Path(args.output) if args.output else None
    if output is not None:
        refusal = _output_refusal(output, Path(args.file), args.force)
        if refusal:
            stderr.write(f"tpquiz import: {refusal}\n")
            return 2
    try:
        text = read_source(args.file)
    except SourceError as exc:
        stderr.write(f"tpquiz import: {exc}\n")
        return 1
    importer = import_aiken if args.format == "aiken" else import_gift
    try:
        result = importer(
            text,
            lang=args.lang,
            source_file=args.file,
            topic=args.topic,
            id_prefix=args.id_prefix,
            strict=args.strict,
        )
    except ImportProblems as exc:
        _write_problems(exc.problems, stderr)
        stderr.write(f"{len(exc.problems)} problem(s); nothing was written\n")
        return 1
    except ValueError as exc:
        stderr.write(f"tpquiz import: {exc}\n")
        return 2
    for skipped in result.skipped:
        stderr.write(f"{skipped}\n")
    if not result.questions:
        stderr.write(
            f"nothing imported from {args.file}: all {len(result.skipped)} question(s) "
            "were skipped (listed above); nothing was written\n"
        )
        return 1
    rendered = dump_yaml(result.questions)
    if output is None:
        failure = _write_stdout(stdout, rendered)
        if failure:
            stderr.write(f"tpquiz import: cannot write the YAML to standard output: {failure}\n")
            return 2
    else:
        try:
            write_atomic_text(output, rendered)
        except (UnsafeTarget, OSError) as exc:
            stderr.write(f"tpquiz import: {_write_failure(output, exc)}\n")
            return 2
    other = "en" if args.lang == "tr" else "tr"
    skipped_note = f", skipped {len(result.skipped)} (listed above)" if result.skipped else ""
    stderr.write(
        f"imported {len(result.questions)} question(s) from {args.file}"
        + (f" into {output}" if output else "")
        + skipped_note
        + f"; now add the {other} texts, explanations, sources and feedback, set topic and "
        "difficulty, and run 'tpquiz validate' on the file until it passes\n"
    )
    return 0


def _output_refusal(output: Path, source: Path, force: bool) -> str | None:
    """Why --output cannot be written (checked before the input is read), or None."""
    try:
        check_target(output)
    except UnsafeTarget as exc:
        return str(exc)
    if not output.exists():
        return None
    try:
        same = os.path.samefile(output, source)
    except OSError:
        same = False
    if same:
        return f"{output} is the input file; write the YAML to another file"
    if not force:
        return f"{output}: already exists; choose another -o or add --force"
    return None


def _write_stdout(stdout: TextIO, text: str) -> str | None:
    """Write and flush; the reason on failure (a full disk, a reader that went away)."""
    try:
        stdout.write(text)
        stdout.flush()
    except OSError as exc:
        if stdout is sys.stdout:
            # Python flushes stdout again at exit; point it at /dev/null so that the
            # failure is not reported a second time, as a traceback.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return exc.strerror or str(exc)
    return None


def _write_failure(output: Path, exc: Exception) -> str:
    """One line for a failed write; the old file, if any, is untouched (written beside)."""
    if isinstance(exc, UnsafeTarget):
        return str(exc)
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    kept = f"{output} is unchanged" if output.exists() else "nothing was written"
    return f"cannot write {output}: {reason}; {kept}"


def build_parser() -> argparse.ArgumentParser:
    """A `tpquiz` parser with only the bank commands (the real one is in bot/cli/main.py)."""
    parser = argparse.ArgumentParser(prog="tpquiz")
    subparsers = parser.add_subparsers(dest="command", required=True)
    register(subparsers)
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run one bank command and return its exit status (for tests and `python -m`)."""
    args = build_parser().parse_args(argv)
    args.stdout, args.stderr = stdout, stderr
    result: int = args.func(args)
    return result


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
