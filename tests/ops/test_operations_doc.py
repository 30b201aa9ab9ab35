"""docs/operations.md keeps what an operator needs when the -shm mapping fails (issue 10,
item 28), and the code keeps the choice that section explains."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_sigbus_from_the_shm_file_is_documented_with_what_to_do() -> None:
    text = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    (section,) = re.findall(r"- \*\*The bot dies of SIGBUS.*?(?=\n- \*\*|\Z)", text, re.DOTALL)
    for words in ("-shm", "status=7/BUS", "exit code 135", "df -h", "locking_mode=EXCLUSIVE"):
        assert words in section, words


def test_no_code_switches_sqlite_to_exclusive_locking() -> None:
    """EXCLUSIVE would avoid the mapping but lock `tpquiz backup` out while the bot runs."""
    for path in (REPO / "bot").rglob("*.py"):
        assert "locking_mode" not in path.read_text(encoding="utf-8").lower(), path
