"""Benchmarks and fault drills for tpquiz (issue #5); not part of the test run.

Each script prints a table and writes the same figures as JSON to `bench/out/`; run them
from the repository root, e.g. `.venv/bin/python -m bench.answer_path`. The latest
figures and the machine they ran on are in `docs/performance.md`.
"""
