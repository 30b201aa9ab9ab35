"""Reading the file to import: a regular UTF-8 text file of bounded size, or one line why.

A FIFO would block the read forever and /dev/zero would fill the memory, so the file is
opened without blocking and checked to be a regular file before a byte is read, and at
most `MAX_INPUT_BYTES` are read. A UTF-8 byte order mark (Windows editors write one) is
dropped, or a GIFT title after it would not be recognised. Every failure is a
`SourceError` whose text is the whole message, naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: The largest input accepted: 20 MB, a few times the biggest quiz anyone exports
#: (10 MB of GIFT is about 30,000 questions), and little enough memory to hold.
MAX_INPUT_BYTES = 20_000_000

_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class SourceError(Exception):
    """The input file cannot be imported as text; the message says why and what to do."""


def read_source(path: str | Path) -> str:
    """The text of `path`, BOM dropped; raises SourceError with a one-line message."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise SourceError(f"{name}: no such file") from None
    except OSError as exc:
        raise SourceError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise SourceError(_directory(name))
        if not stat.S_ISREG(mode):
            raise SourceError(
                f"{name}: not a regular file (a device, FIFO or socket); "
                "give the Aiken or GIFT text file"
            )
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise SourceError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) > MAX_INPUT_BYTES:
        raise SourceError(
            f"{name}: larger than the import limit of {MAX_INPUT_BYTES // 1_000_000} MB; "
            "split it into smaller files"
        )
    return decode(data, name)


def _directory(name: str) -> str:
    return f"{name}: is a directory; give the Aiken or GIFT text file inside it"


def decode(data: bytes, name: str) -> str:
    """UTF-8 text (BOM dropped), or SourceError naming the line of the first bad byte."""
    if data.startswith(_UTF16_BOMS):
        raise SourceError(f"{name}: is UTF-16 text, not UTF-8; save it as UTF-8 and import again")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        byte = data[exc.start]
        raise SourceError(
            f"{name}:{line}: not UTF-8 (byte 0x{byte:02x}); save the file as UTF-8 "
            "(Windows-1254 and Latin-1 are common for Turkish) and import again"
        ) from None
    nul = text.find("\0")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise SourceError(
            f"{name}:{line}: contains a NUL character, so it is not a text file; "
            "give the Aiken or GIFT text file"
        )
    return text
