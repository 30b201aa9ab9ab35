"""`tpquiz import` on large input: 1 and 10 MB of Aiken and GIFT, against baselines.

Three inputs per size, generated deterministically: ordinary Aiken (four options per
question), ordinary GIFT (title, four answers with feedback, general feedback, comment
lines) and one GIFT question whose answer block holds the whole size (the case that
was quadratic: each answer's line was counted from the start of the block).

For each: the whole command as an author runs it (`tpquiz import … -o FILE`, through
`bank_commands.main`), then its parts: reading the file, parsing (`import_aiken` /
`import_gift`) and writing the YAML (`dump_yaml`). Times are CPU seconds of the process
(`time.process_time`), which other work on a shared machine disturbs far less than wall
time; the command's wall time is in the JSON file too. Baselines on the same bytes in the
same run: a plain `str.split` of the input into lines, and libyaml (`CSafeLoader`)
reading the YAML the import wrote, which is what any later `tpquiz validate` costs at
least. Linear means the 10 MB figures are about ten times the 1 MB ones.

    .venv/bin/python -m bench.import_speed           # 1 and 10 MB (about a minute)
    .venv/bin/python -m bench.import_speed --quick   # 1 MB only
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from bench.common import machine_line, table, write_json
from bot.bank.importers import dump_yaml, import_aiken, import_gift, read_source
from bot.cli.bank import main as bank_main

MB = 1_000_000
_STEMS = [
    "Which collective combines the partial sums of a row-parallel linear layer",
    "How is the first MLP weight matrix split in Megatron-LM",
    "What does sequence parallelism divide along the sequence dimension",
    "Which degree divides 32 attention heads evenly",
]
_OPTIONS = ["All-reduce", "All-gather", "Broadcast", "Reduce-scatter"]


def aiken(size: int) -> str:
    """About `size` bytes of ordinary Aiken questions."""
    parts: list[str] = []
    total = i = 0
    while total < size:
        stem = f"{_STEMS[i % len(_STEMS)]} (question {i})?"
        options = "\n".join(
            f"{letter}. {option} across the tensor-parallel group"
            for letter, option in zip("ABCD", _OPTIONS, strict=True)
        )
        part = f"{stem}\n{options}\nANSWER: {'ABCD'[i % 4]}\n"
        parts.append(part)
        total += len(part) + 1
        i += 1
    return "\n".join(parts)


def gift(size: int) -> str:
    """About `size` bytes of ordinary GIFT questions, as a Moodle export writes them."""
    parts: list[str] = []
    total = i = 0
    while total < size:
        answers = "\n".join(
            f"  {'=' if k == i % 4 else '~'}{option}#Feedback on {option.lower()} \\{{{k}\\}}."
            for k, option in enumerate(_OPTIONS)
        )
        part = (
            f"// question {i}\n::q{i}:: {_STEMS[i % len(_STEMS)]}\\: case {i}? {{\n{answers}\n"
            "  ####The row-parallel output is summed with an all-reduce.\n}\n"
        )
        parts.append(part)
        total += len(part) + 1
        i += 1
    return "\n".join(parts)


def gift_one_block(size: int) -> str:
    """One GIFT question whose answer block is about `size` bytes long."""
    lines = ["::big:: Which answer is right? {", "  =The right one#Yes."]
    total = i = 0
    while total < size:
        line = f"  ~Wrong answer number {i}#Feedback for wrong answer {i}."
        lines.append(line)
        total += len(line) + 1
        i += 1
    lines.append("}")
    return "\n".join(lines) + "\n"


_KINDS: dict[str, tuple[str, Callable[[int], str], Callable[..., Any]]] = {
    "aiken": ("aiken", aiken, import_aiken),
    "gift": ("gift", gift, import_gift),
    "gift-one-block": ("gift", gift_one_block, import_gift),
}


def _timed(func: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of this process (steadier than wall time on a shared machine)."""
    start = time.process_time()
    result = func()
    return time.process_time() - start, result


def measure(kind: str, size: int, folder: Path) -> dict[str, Any]:
    fmt, generate, importer = _KINDS[kind]
    text = generate(size)
    source = folder / f"{kind}-{size // MB}mb.txt"
    source.write_text(text, encoding="utf-8")
    target = folder / f"{kind}-{size // MB}mb.yaml"
    err = io.StringIO()
    argv = ["import", fmt, str(source), "--lang", "en", "-o", str(target), "--force"]
    wall = time.perf_counter()
    command_s, code = _timed(lambda: bank_main(argv, stdout=io.StringIO(), stderr=err))
    command_wall_s = time.perf_counter() - wall
    if code != 0:
        raise SystemExit(f"{kind}: import failed: {err.getvalue()[-500:]}")
    read_s, read = _timed(lambda: read_source(source))
    parse_s, result = _timed(lambda: importer(read, lang="en", source_file=str(source)))
    dump_s, rendered = _timed(lambda: dump_yaml(result.questions))
    split_s, _ = _timed(lambda: text.split("\n"))
    load_s, loaded = _timed(lambda: yaml.load(rendered, Loader=yaml.CSafeLoader))
    assert len(loaded) == len(result.questions)
    return {
        "kind": kind,
        "mb": round(source.stat().st_size / MB, 2),
        "questions": len(result.questions),
        "answers": sum(len(q["choices"]) for q in result.questions),
        "command_s": command_s,
        "command_wall_s": command_wall_s,
        "read_s": read_s,
        "parse_s": parse_s,
        "dump_s": dump_s,
        "baseline_split_s": split_s,
        "baseline_yaml_load_s": load_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 MB only")
    args = parser.parse_args()
    sizes = [MB] if args.quick else [MB, 10 * MB]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="tpquiz-import-bench-") as tmp:
        for kind in _KINDS:
            for size in sizes:
                rows.append(measure(kind, size, Path(tmp)))
                print(f"  {kind} {size // MB} MB done", flush=True)
    print(machine_line())
    print(
        table(
            [
                "input",
                "MB",
                "questions",
                "answers",
                "command cpu s",
                "read s",
                "parse s",
                "dump s",
                "split s",
                "yaml load s",
            ],
            [
                [
                    r["kind"],
                    r["mb"],
                    r["questions"],
                    r["answers"],
                    r["command_s"],
                    r["read_s"],
                    r["parse_s"],
                    r["dump_s"],
                    r["baseline_split_s"],
                    r["baseline_yaml_load_s"],
                ]
                for r in rows
            ],
        )
    )
    path = write_json("import_speed", {"runs": rows})
    print(f"figures: {path}")


if __name__ == "__main__":
    main()
