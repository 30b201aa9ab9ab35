"""Which bots `bench.answer_path` runs and how each is started: this checkout's tpquiz (on
each backend of `--backends`), another checkout's (`--also-tree`), the bare bots, each on
each event loop of `--loops`."""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.botproc import ROOT

__all__ = ["BotSpec", "bot_specs", "no_uvloop_dir"]


@dataclass(frozen=True)
class BotSpec:
    """How to start one bot of the comparison."""

    name: str
    argv: list[str] | None  # None: `python -m bot run` of this checkout
    root: Path
    extra: dict[str, str]
    #: "asyncio" or "uvloop".
    loop: str
    #: The tpquiz database of this bot (None for the bare bots).
    db_name: str | None
    #: "sqlite" or "postgresql" (tpquiz bots only).
    backend: str = "sqlite"


def bot_specs(args: argparse.Namespace) -> list[BotSpec]:
    """The bots of the run, in the order they run each round; every bot once per event
    loop of `--loops` (on uvloop its name ends in "+uvloop")."""
    specs: list[BotSpec] = []
    quiet = {"TPQUIZ_LOG_LEVEL": "WARNING"}
    trees: list[tuple[str, Path, list[str] | None]] = [("tpquiz", ROOT, None)]
    if args.also_tree is not None:
        tree = args.also_tree.resolve()
        python = tree / ".venv" / "bin" / "python"
        if not python.exists():
            raise SystemExit(f"--also-tree: {python} does not exist (run `make setup` there)")
        trees.append((f"tpquiz@{args.also_label}", tree, [str(python), "-m", "bot", "run"]))
    for loop in args.loops:
        suffix = "+uvloop" if loop == "uvloop" else ""
        for bot in args.bots:
            if bot == "tpquiz":
                for name, root, argv in trees:
                    if loop == "uvloop":
                        check_uvloop(argv[0] if argv else sys.executable)
                    for backend in args.backends:
                        full = name + ("+pg" if backend == "postgresql" else "") + suffix
                        specs.append(BotSpec(full, argv, root, quiet, loop, full, backend))
            else:
                extra = {"BASELINE_REPLY": "embed"} if bot == "baseline-embed" else {}
                if loop == "uvloop":
                    extra["BASELINE_UVLOOP"] = "1"
                argv = [sys.executable, "-m", "bench.baseline_bot"]
                specs.append(BotSpec(bot + suffix, argv, ROOT, extra, loop, None))
    return specs


def check_uvloop(python: Path | str) -> None:
    """--uvloop needs uvloop in the venv of every bot (`pip install uvloop`: not in tpquiz[fast])."""
    found = subprocess.run([str(python), "-c", "import uvloop"], capture_output=True).returncode
    if found != 0:
        raise SystemExit(f"--uvloop: {python} cannot import uvloop (pip install uvloop)")


def no_uvloop_dir(workdir: Path) -> Path:
    """A directory whose `uvloop` cannot be imported: first on a tpquiz's PYTHONPATH, it
    keeps `tpquiz run` on asyncio's loop in a venv that has uvloop (runs without --uvloop)."""
    shim = workdir / "no-uvloop"
    shim.mkdir(exist_ok=True)
    (shim / "uvloop.py").write_text('raise ImportError("uvloop turned off by bench.answer_path")\n')
    return shim
