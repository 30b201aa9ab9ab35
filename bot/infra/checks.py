"""One line of `tpquiz doctor`: a check's status, what it checked, and what to do.

Why here, below storage and the command line: doctor's own checks (token, bank, Discord,
bot/cli/doctor.py) and the database's (bot/storage/sqlite/doctor.py and
bot/storage/pg/doctor.py, reached through `bot.storage.admin.doctor_checks`) print the
same lines, and storage may not import the command line.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Check"]


@dataclass(frozen=True)
class Check:
    #: "ok", "FAIL", "warn" (worth knowing, does not fail) or "skip".
    status: str
    name: str
    message: str

    def __str__(self) -> str:
        return f"{self.status:<4} {self.name}: {self.message}"

    @property
    def failed(self) -> bool:
        return self.status == "FAIL"
