"""bot/infra/files.py: atomic replacement and refusal of targets that are not regular files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.infra.files import UnsafeTarget, write_atomic, write_atomic_text


def test_replaces_a_regular_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    target.write_text("old\n", encoding="utf-8")
    write_atomic_text(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]


def test_refuses_a_directory_and_leaves_it(tmp_path: Path) -> None:
    target = tmp_path / "dir"
    target.mkdir()
    (target / "keep").write_text("x", encoding="utf-8")
    with pytest.raises(UnsafeTarget, match="is a directory; refusing to replace it"):
        write_atomic(target, b"data")
    assert (target / "keep").read_text(encoding="utf-8") == "x"


def test_refuses_a_device_node() -> None:
    with pytest.raises(UnsafeTarget, match="/dev/null is not a regular file"):
        write_atomic(Path("/dev/null"), b"data")
    assert not Path("/dev/null").is_file()


def test_refuses_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(UnsafeTarget, match="no such directory"):
        write_atomic(tmp_path / "missing" / "out", b"data")


def test_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out"
    target.write_bytes(b"old")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
