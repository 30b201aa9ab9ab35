"""`tpquiz validate` and `tpquiz run`'s bank loading on 1,000 and 10,000 questions.

Issue 31 item 15: 10,000 questions took 121 s and 963 MiB to validate and `run` 106 s
to start (Docker's start period is 120 s), and 2,000 near-copy stems 42 s. Banks are
written by `bench/synthetic_bank.py` (seeded): 1,000 and 10,000 distinct questions in
10 and 20 files, and 2,000 and 10,000 questions whose stems are all near-copies of four
base stems (the shape that made the near-duplicate check quadratic).

Each measurement is a fresh process (so peak RSS is the command's own), timed by
`os.wait4`: wall seconds, CPU seconds, peak RSS. Per bank:

* `validate`: `python -m bot validate DIR`;
* `start-up`: what `tpquiz run` does before connecting (`load_bank` then
  `load_templates` on the same paths);
* baseline, in the same run: libyaml (`CSafeLoader`) reading the same files into plain
  dicts, the least any validation costs;
* with `--before TREE` (a checkout of an earlier commit, e.g. `git archive COMMIT | tar
  -x -C /tmp/before`): validate and start-up again with TREE first on PYTHONPATH.

    .venv/bin/python -m bench.bank_scale                      # all banks (~5 min)
    .venv/bin/python -m bench.bank_scale --quick              # 1,000 questions only
    .venv/bin/python -m bench.bank_scale --before /tmp/before # and the earlier code
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, machine_line, table, write_json
from bench.synthetic_bank import write_bank

#: (name, questions, files, near-copy stems, also measured on --before). The earlier
#: code is left out on 10,000 near-copies: quadratic, it takes many minutes.
BANKS: tuple[tuple[str, int, int, int, bool], ...] = (
    ("distinct 1,000", 1_000, 10, 0, True),
    ("distinct 10,000", 10_000, 20, 0, True),
    ("near-copies 2,000", 2_000, 4, 2_000, True),
    ("near-copies 10,000", 10_000, 20, 10_000, False),
)

_START_UP = (
    "import sys\n"
    "from bot.bank.loader import BankError, load_bank\n"
    "from bot.bank.template_files import load_templates\n"
    "try:\n"
    "    bank = load_bank(sys.argv[1:])\n"
    "except BankError:\n"
    "    sys.exit(1)\n"
    "load_templates(sys.argv[1:], bank)\n"
)
_BASELINE = (
    "import sys, yaml\n"
    "from pathlib import Path\n"
    "for path in sorted(Path(sys.argv[1]).glob('*.yaml')):\n"
    "    yaml.load(path.read_text(encoding='utf-8'), Loader=yaml.CSafeLoader)\n"
)


def measure(argv: list[str], tree: Path) -> dict[str, Any]:
    """Run `argv` with `tree` first on PYTHONPATH: wall and CPU seconds, peak RSS, status.

    Through GNU time when there is one: Linux keeps the parent's peak RSS as a floor of
    a child's `ru_maxrss` across fork and exec, and this process holds the generated
    bank, so only a small parent (time) gives the child's own peak.
    """
    env = dict(os.environ, PYTHONPATH=str(tree))
    timer = shutil.which("time", path="/usr/bin:/bin")
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as report:
        if timer is not None:
            argv = [timer, "-f", "%M", "-o", report.name, *argv]
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        lines = report.read().split()
    peak_kib = int(lines[-1]) if timer is not None and lines else usage.ru_maxrss
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mib": round(peak_kib / 1024, 1),
        "exit": proc.returncode,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 questions only")
    parser.add_argument("--before", type=Path, help="an earlier source tree to measure too")
    args = parser.parse_args()
    banks = BANKS[:1] if args.quick else BANKS
    trees = [("after", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    py = sys.executable
    figures: dict[str, Any] = {"banks": {}}
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory(prefix="tpquiz-bank-") as tmp:
        for name, n, files, near, before_too in banks:
            directory = Path(tmp) / name.replace(" ", "-").replace(",", "")
            write_bank(directory, n, files, near_copies=near)
            found: dict[str, Any] = {
                "baseline": measure([py, "-c", _BASELINE, str(directory)], ROOT)
            }
            for label, tree in trees if before_too else trees[:1]:
                found[f"validate {label}"] = measure(
                    [py, "-m", "bot", "validate", str(directory)], tree
                )
                found[f"start-up {label}"] = measure([py, "-c", _START_UP, str(directory)], tree)
            figures["banks"][name] = found
            for what, got in found.items():
                rows.append(
                    [name, what, got["wall_s"], got["cpu_s"], got["peak_rss_mib"], got["exit"]]
                )
                print(f"{name}: {what}: {got}", flush=True)
    print(machine_line())
    print(table(["bank", "run", "wall s", "CPU s", "peak RSS MiB", "exit"], rows))
    print(f"written {write_json('bank_scale', figures)}")


if __name__ == "__main__":
    main()
