"""`tpquiz questions report` and `tpquiz reports`: item statistics and problem reports for
the question bank's maintainers (issue #13).

`questions report` reads every first answer (of one server with --guild, else of every
server the bot serves: the bank is shared, members stay per server) on a read-only
connection, SQLite doing the per-member pass (bot/storage/sqlite/itemstats.py `member_rows`: each
row arrives with its member's accuracy on their other answers), computes the figures
with `bot.quiz.itemstats_fast.bank_stats_member_rows` (the same figures as
`bot.quiz.itemstats.bank_stats`; docs/performance.md 7 has the times at a million
answers), and prints one row per question, flagged first, with the file and line to fix
(with --guild, the server's own questions too, marked as the server's: issue 27; without
it they are left out, since their ids are per server). Nothing about a member is
printed, only counts. `reports` lists members' problem reports; `reports resolve` closes
one with a note. With TPQUIZ_DATABASE_URL set, all three run on PostgreSQL through the
storage contract (`open_storage`, read-only for the listings: never migrating), the
server doing the same per-member pass; on SQLite they keep their own read-only
connection, cheaper than opening the bot's storage (both reads: `bot.storage.admin`
`first_answers` and `list_reports`). Exit status: 0 done, 1 the database or bank cannot be used (or no such
report), 2 a setting is wrong.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

from bot.bank.loader import load_bank
from bot.bank.template_files import load_templates
from bot.bank.topic_names import topic_name
from bot.cli.guard import guarded
from bot.i18n import t
from bot.infra.config import Settings
from bot.quiz.itemstats import ItemStats, item_of
from bot.quiz.itemstats_fast import bank_stats_member_rows
from bot.quiz.model import LANGS, LETTERS, Bank, Question
from bot.storage import admin
from bot.ui.custom_ids import guild_id_arg, number

if TYPE_CHECKING:
    from bot.storage.contract import StorageContract

T = TypeVar("T")

__all__ = ["register", "cmd_questions_report", "cmd_reports", "cmd_reports_resolve"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `questions report` and `reports [resolve]` to the `tpquiz` command."""
    questions = subparsers.add_parser("questions", help="item statistics of the question bank")
    qsub = questions.add_subparsers(dest="questions_command", required=True)
    report = qsub.add_parser(
        "report",
        help="facility, discrimination and choice pick rates per question, flagged first",
        description=(
            "Item statistics from members' first answers: facility (share right), "
            "discrimination (corrected point-biserial), each choice's pick rate overall and "
            "among the top and bottom thirds of members, open reports, and the flags with "
            "their reasons. No question is flagged before 30 first answers."
        ),
    )
    report.add_argument("--guild", type=guild_id_arg, help="one server only (default: all)")
    report.add_argument(
        "--min-answers", type=_count, default=0, metavar="N", help="only questions with N answers"
    )
    report.add_argument("--flagged", action="store_true", help="only flagged questions")
    fmt = report.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON for scripts")
    fmt.add_argument("--csv", action="store_true", help="print CSV for a spreadsheet")
    report.set_defaults(func=cmd_questions_report)

    reports = subparsers.add_parser(
        "reports",
        help="members' problem reports on questions",
        description="List members' problem reports (newest first), or resolve one.",
    )
    reports.add_argument("--guild", type=guild_id_arg, help="one server only (default: all)")
    reports.add_argument("--open", action="store_true", help="only open reports")
    reports.add_argument("--json", action="store_true", help="print JSON for scripts")
    reports.set_defaults(func=cmd_reports)
    rsub = reports.add_subparsers(dest="reports_command")
    resolve = rsub.add_parser("resolve", help="mark a report resolved, with a note")
    resolve.add_argument("id", type=_report_id, metavar="ID", help="the report's number")
    resolve.add_argument("--note", required=True, help="what was done (shown with the report)")
    resolve.set_defaults(func=cmd_reports_resolve)


def _count(text: str) -> int:
    value = number(text.strip(), 10**9)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a count (0, 1, 2, ...)")
    return value


def _report_id(text: str) -> int:
    value = number(text.strip().lstrip("#"))
    if value is None:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a report number, e.g. 12")
    return value


def _where(question: Question) -> str:
    """file:line, relative to the working directory when it is under it."""
    if not question.file:
        return ""
    path = Path(question.file)
    try:
        shown = os.path.relpath(path) if path.is_absolute() else str(path)
    except ValueError:
        shown = str(path)
    if shown.startswith(".."):
        shown = str(path)
    return f"{shown}:{question.line}"


def report_rows(
    stats: list[ItemStats], pool: Bank, own: Collection[str] = ()
) -> list[dict[str, object]]:
    """The report as plain rows (JSON and CSV print them; the table is built from them);
    `own` are the ids of the server's own questions (issue 27), marked `own`."""
    rows: list[dict[str, object]] = []
    for s in stats:
        question = pool[s.question_id]
        letters = LETTERS[: len(s.picks)]
        rows.append(
            {
                "question_id": s.question_id,
                "own": s.question_id in own,
                "topic": question.topic,
                "topic_name": {lang: topic_name(question.topic, lang) for lang in LANGS},
                "file": _where(question).rsplit(":", 1)[0] if question.file else "",
                "line": question.line,
                "key": LETTERS[s.key_index],
                "answers": s.answers,
                "correct": s.correct,
                "facility": None if s.facility is None else round(s.facility, 4),
                "discrimination": None if s.discrimination is None else round(s.discrimination, 4),
                "ranked_members": s.ranked,
                "picks": dict(zip(letters, (round(r, 4) for r in s.pick_rates), strict=True)),
                "top_third": dict(zip(letters, (round(r, 4) for r in s.top_rates), strict=True)),
                "bottom_third": dict(
                    zip(letters, (round(r, 4) for r in s.bottom_rates), strict=True)
                ),
                "open_reports": s.open_reports,
                "flags": [
                    {"flag": f.code, "reason": t(f"flag_{f.code}", "en", **f.params)}
                    for f in s.flags
                ],
            }
        )
    return rows


def _rates(rates: object) -> str:
    assert isinstance(rates, dict)
    return "/".join(f"{float(v) * 100:.0f}" for v in rates.values())


def _figure(value: object, pct: bool) -> str:
    if value is None:
        return "-"
    return f"{float(value) * 100:.0f}%" if pct else f"{float(value):+.2f}"  # type: ignore[arg-type]


#: The topic column of the table: its English name (issue 32), as long as the longest.
TOPIC_WIDTH = 24


def _topic(row: dict[str, object]) -> str:
    names = row["topic_name"]
    assert isinstance(names, dict)
    return str(names["en"])[:TOPIC_WIDTH]


def _table(rows: list[dict[str, object]], out: TextIO) -> None:
    head = (
        f"{'':1} {'question':<34} {'topic':<{TOPIC_WIDTH}} {'key':>3} {'answers':>7} {'facility':>8} {'discr.':>6}"
        f"  {'picks % A/B/C/D':<16} {'top third':<16} {'bottom third':<16} {'reports':>7}  where"
    )
    out.write(head + "\n")
    for r in rows:
        flags = r["flags"]
        assert isinstance(flags, list)
        where = f"{r['file']}:{r['line']}" if r["file"] else ""
        if r["own"]:
            where = "this server's own"
        out.write(
            f"{'!' if flags else ' ':1} {str(r['question_id']):<34}"
            f" {_topic(r):<{TOPIC_WIDTH}} {r['key']!s:>3}"
            f" {r['answers']!s:>7} {_figure(r['facility'], True):>8}"
            f" {_figure(r['discrimination'], False):>6}  {_rates(r['picks']):<16}"
            f" {_rates(r['top_third']):<16} {_rates(r['bottom_third']):<16}"
            f" {r['open_reports']!s:>7}  {where}\n"
        )
        for flag in flags:
            out.write(f"    {flag['reason']}\n")


def _pool(settings: Settings) -> tuple[Bank, set[str]]:
    """Bank questions and template stand-ins, and the ids of the computed ones."""
    bank = load_bank(settings.question_paths or None)
    templates = load_templates(settings.question_paths or (), bank)
    return templates.pool(bank), {tpl.id for tpl in templates}


def cmd_questions_report(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    return guarded("questions report", err, lambda: _questions_report(args, out, err))


def _with_storage(
    settings: Settings, work: Callable[[StorageContract], Awaitable[T]], *, readonly: bool
) -> T:
    """`work` on the storage the settings name, closed after."""
    import asyncio

    from bot.storage.factory import open_storage

    async def run() -> T:
        storage = await open_storage(settings, readonly=readonly)
        try:
            return await work(storage)
        finally:
            await storage.close()

    return asyncio.run(run())


def _questions_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    settings = Settings.from_env()
    admin.require_database(settings)  # a missing file is a setting's error, before the bank loads
    pool, computed = _pool(settings)
    started = time.perf_counter()
    answers, reports = admin.first_answers(settings, args.guild)
    own: list[Question] = []
    if args.guild is not None:  # a server's own questions count in that server only
        guild = args.guild

        async def read(storage: StorageContract) -> list[Question]:
            return [o.question for o in await storage.guild_bank.versions(guild)]

        own = _with_storage(settings, read, readonly=True)
        pool = Bank.of([*pool, *own])
    items = [item_of(q, computed=q.id in computed) for q in pool]
    stats = bank_stats_member_rows(items, answers, reports)
    stats = [s for s in stats if s.answers >= args.min_answers and (s.flagged or not args.flagged)]
    rows = report_rows(stats, pool, {q.id for q in own})
    if args.json:
        json.dump(rows, out, ensure_ascii=False, indent=2)
        out.write("\n")
    elif args.csv:
        _csv(rows, out)
    else:
        scope = f"server {args.guild}" if args.guild is not None else "every server"
        flagged = sum(1 for r in rows if r["flags"])
        out.write(
            f"{len(rows)} questions ({flagged} flagged) from {len(answers)} first answers in"
            f" {scope}; no flag before 30 first answers\n"
        )
        _table(rows, out)
    err.write(f"computed in {time.perf_counter() - started:.2f} s\n")
    return 0


def _csv(rows: list[dict[str, object]], out: TextIO) -> None:
    letters = LETTERS
    plain = ["question_id", "topic", "file", "line", "key", "answers", "correct", "facility"]
    plain += ["discrimination", "ranked_members", "open_reports"]
    fields = [*plain[:2], "topic_en", "topic_tr", *plain[2:]]
    fields += [f"{part}_{x}" for part in ("pick", "top", "bottom") for x in letters]
    fields += ["flags", "reasons", "own"]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        flat: dict[str, object] = {k: r[k] for k in plain}
        names = r["topic_name"]
        assert isinstance(names, dict)
        flat.update({f"topic_{lang}": name for lang, name in names.items()})
        for part, key in (("pick", "picks"), ("top", "top_third"), ("bottom", "bottom_third")):
            rates = r[key]
            assert isinstance(rates, dict)
            for x in letters:
                flat[f"{part}_{x}"] = rates.get(x, "")
        flags = r["flags"]
        assert isinstance(flags, list)
        flat["flags"] = " ".join(f["flag"] for f in flags)
        flat["reasons"] = " | ".join(f["reason"] for f in flags)
        flat["own"] = int(bool(r["own"]))
        writer.writerow(flat)


def _plain(text: str) -> str:
    """A member's words on a terminal: control characters (escape sequences, newlines)
    become visible marks instead of acting."""
    return "".join(
        "⏎" if c == "\n" else ("\ufffd" if ord(c) < 32 or c == "\x7f" else c) for c in text
    )


def cmd_reports(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    return guarded("reports", err, lambda: _reports(args, out))


def _reports(args: argparse.Namespace, out: TextIO) -> int:
    found = admin.list_reports(Settings.from_env(), args.guild, open_only=args.open)
    if args.json:
        json.dump([r.as_dict() for r in found], out, ensure_ascii=False, indent=2)
        out.write("\n")
        return 0
    if not found:
        out.write("no reports\n")
        return 0
    for r in found:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(r.created_at / 1000))
        status = "open" if r.open else "resolved"
        out.write(
            f"#{r.id} {status} {when} UTC  {r.question_id}  {r.reason} ({r.language})"
            f"  server {r.guild_id}\n"
        )
        if r.body:
            out.write(f"    {_plain(r.body)}\n")
        if r.note:
            out.write(f"    note: {_plain(r.note)}\n")
    return 0


def cmd_reports_resolve(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    return guarded("reports resolve", err, lambda: _resolve(args, out, err))


def _resolve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    settings = Settings.from_env()
    admin.require_database(settings)  # resolving never creates a database
    note = args.note.strip()[:500]

    report = _with_storage(
        settings,
        lambda storage: storage.reports.resolve(args.id, now_ms=int(time.time() * 1000), note=note),
        readonly=False,
    )
    if report is None:
        err.write(f"tpquiz reports resolve: there is no report #{args.id}\n")
        return 1
    out.write(f"#{args.id} resolved: {getattr(report, 'note', '')}\n")
    return 0
