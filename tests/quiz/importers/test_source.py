"""Reading the file to import: every input that is not a UTF-8 text file is one sentence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.bank.importers import MAX_INPUT_BYTES, SourceError, read_source
from bot.bank.importers import source as source_module


def _error(path: str | Path) -> str:
    with pytest.raises(SourceError) as info:
        read_source(path)
    return str(info.value)


def test_utf8_text_with_and_without_bom(tmp_path: Path) -> None:
    plain, bom = tmp_path / "plain.gift", tmp_path / "bom.gift"
    plain.write_text("::t:: Soru? {=a ~b}\n", encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert read_source(plain) == read_source(bom) == "::t:: Soru? {=a ~b}\n"


def test_missing_file(tmp_path: Path) -> None:
    assert _error(tmp_path / "nope.gift") == f"{tmp_path}/nope.gift: no such file"


def test_directory(tmp_path: Path) -> None:
    assert (
        _error(tmp_path)
        == f"{tmp_path}: is a directory; give the Aiken or GIFT text file inside it"
    )


def test_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.gift"
    os.mkfifo(fifo)
    assert _error(fifo) == (
        f"{fifo}: not a regular file (a device, FIFO or socket); give the Aiken or GIFT text file"
    )


def test_dev_zero_is_refused_before_reading() -> None:
    assert _error("/dev/zero") == (
        "/dev/zero: not a regular file (a device, FIFO or socket); give the Aiken or GIFT text file"
    )


def test_file_over_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.gift"
    with big.open("wb") as f:
        f.truncate(MAX_INPUT_BYTES + 1)  # sparse: no disk used
    assert (
        _error(big) == f"{big}: larger than the import limit of 20 MB; split it into smaller files"
    )


def test_file_at_the_limit_is_read(tmp_path: Path) -> None:
    exact = tmp_path / "exact.txt"
    exact.write_bytes(b"a" * MAX_INPUT_BYTES)
    assert len(read_source(exact)) == MAX_INPUT_BYTES


def test_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Tests may run as root, whom chmod 000 does not stop: the refusal is simulated.)"""
    target = tmp_path / "secret.gift"
    target.write_text("Q {=a ~b}", encoding="utf-8")

    def refuse(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(source_module.os, "open", refuse)
    assert _error(target) == f"{target}: cannot be read (Permission denied)"


def test_not_utf8_names_the_line_and_the_byte(tmp_path: Path) -> None:
    latin = tmp_path / "tr.gift"
    latin.write_bytes("Soru 1 {=a ~b}\n\nDoğru mu? {=evet ~hayır}\n".encode("cp1254"))
    assert _error(latin) == (
        f"{latin}:3: not UTF-8 (byte 0xf0); save the file as UTF-8 (Windows-1254 and Latin-1 "
        "are common for Turkish) and import again"
    )


def test_utf16(tmp_path: Path) -> None:
    wide = tmp_path / "wide.txt"
    wide.write_bytes("Q?\nA. a\n".encode("utf-16"))
    assert _error(wide) == f"{wide}: is UTF-16 text, not UTF-8; save it as UTF-8 and import again"


def test_nul_bytes(tmp_path: Path) -> None:
    binary = tmp_path / "zeros.gift"
    binary.write_bytes(b"Q {=a ~b}\n" + b"\0" * 100)
    assert _error(binary) == (
        f"{binary}:2: contains a NUL character, so it is not a text file; give the Aiken or "
        "GIFT text file"
    )
