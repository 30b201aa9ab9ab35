"""`tpquiz db copy`'s target without the password in argv (issue 31, defect 4).

Each test runs the real command. The copy itself is tested in tests/test_db_commands.py
(there through --to-file and --to-env, the documented ways); here the URL goes to a
port nothing listens on (loopback port 1), so the command stops at "cannot connect",
after it has read and judged its target.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage.migration_files import bundled
from tests.storage.test_schema import at_schema
from tests.test_cli import tpquiz
from tests.test_db_commands import url_file

SECRET = "Pg-s3cret-9xQ"
URL = f"postgresql://tpquiz:{SECRET}@127.0.0.1:1/tpquiz"
SHOWN = "postgresql://tpquiz:***@127.0.0.1:1/tpquiz"
WARNING = (
    "tpquiz db copy: warning: --to holds the database password, which other users of this "
    "machine can read (ps) and your shell history keeps: give the URL with --to-file PATH "
    "or --to-env VAR instead\n"
)


@pytest.fixture
def source(tmp_path: Path) -> str:
    """--from a SQLite file at the newest schema, so the copy gets as far as the target."""
    return f"sqlite://{at_schema(tmp_path / 'q.sqlite3', len(bundled()))}"


def _copy(tmp_path: Path, *args: str, **env: str) -> tuple[int, list[str]]:
    result = tpquiz("db", "copy", *args, cwd=tmp_path, **env)
    assert result.stdout == "" and "Traceback" not in result.stderr, result.stderr
    assert SECRET not in result.stderr
    return result.returncode, result.stderr.splitlines(keepends=True)


def _unreachable(line: str) -> bool:
    return line.startswith(f"tpquiz db copy: cannot connect to PostgreSQL at {SHOWN} (")


@pytest.mark.parametrize(
    "url",
    [URL, f"postgresql://tpquiz@127.0.0.1:1/tpquiz?password={SECRET}"],
    ids=["user-part", "parameter"],
)
def test_a_password_given_with_to_is_warned_about_without_showing_it(
    tmp_path: Path, source: str, url: str
) -> None:
    status, lines = _copy(tmp_path, "--from", source, "--to", url)
    assert status == 1
    assert lines[0] == WARNING
    assert len(lines) == 2 and lines[1].startswith("tpquiz db copy: cannot connect to PostgreSQL")


def test_to_without_a_password_is_not_warned_about(tmp_path: Path, source: str) -> None:
    status, lines = _copy(tmp_path, "--from", source, "--to", "postgresql://tpquiz@127.0.0.1:1/t")
    assert status == 1 and len(lines) == 1
    assert lines[0].startswith("tpquiz db copy: cannot connect to PostgreSQL at postgresql://")


def test_the_url_is_read_from_a_file(tmp_path: Path, source: str) -> None:
    target = url_file(tmp_path / "target.url", URL)
    status, lines = _copy(tmp_path, "--from", source, "--to-file", str(target))
    assert status == 1 and len(lines) == 1 and _unreachable(lines[0]), lines


def test_the_url_is_read_from_a_variable_or_the_env_file(tmp_path: Path, source: str) -> None:
    status, lines = _copy(tmp_path, "--from", source, "--to-env", "PG_TARGET", PG_TARGET=URL)
    assert status == 1 and len(lines) == 1 and _unreachable(lines[0]), lines
    (tmp_path / "copy.env").write_text(f"PG_TARGET={URL}\n")
    args = ("--from", source, "--to-env", "PG_TARGET", "--env-file", str(tmp_path / "copy.env"))
    status, lines = _copy(tmp_path, *args)
    assert status == 1 and len(lines) == 1 and _unreachable(lines[0]), lines


def test_an_unusable_url_file_or_variable_is_one_line_without_the_password(
    tmp_path: Path, source: str
) -> None:
    empty = tmp_path / "empty.url"
    empty.write_text("\n\n")
    two = tmp_path / "two.url"
    two.write_text(f"{URL}\n{URL}\n")
    unescaped = url_file(tmp_path / "slash.url", f"postgresql://tpquiz:{SECRET}/x@127.0.0.1:1/t")
    cases = {
        str(tmp_path / "missing.url"): f"--to-file {tmp_path / 'missing.url'}: no such file",
        str(tmp_path): f"--to-file {tmp_path} is not a regular file",
        str(empty): f"--to-file {empty} is empty: put the URL in it",
        str(two): f"--to-file {two} holds 2 lines: put only the URL in it, on one line",
        str(unescaped): (
            f"the URL in {unescaped} (--to-file) is not a valid URL (postgresql://tpquiz:***@"
            "127.0.0.1:1/t): write postgresql://"
        ),
    }
    for path, words in cases.items():
        status, lines = _copy(tmp_path, "--from", source, "--to-file", path)
        assert status == 2 and len(lines) == 1, lines
        assert lines[0].startswith(f"tpquiz db copy: {words}"), lines
    status, lines = _copy(tmp_path, "--from", source, "--to-env", "PG_NOWHERE")
    assert (status, len(lines)) == (2, 1)
    assert lines[0].startswith("tpquiz db copy: --to-env PG_NOWHERE: PG_NOWHERE is not set")


def test_one_target_option_at_a_time(tmp_path: Path, source: str) -> None:
    target = url_file(tmp_path / "target.url", URL)
    result = tpquiz(
        "db", "copy", "--from", source, "--to-file", str(target), "--to-env", "X", cwd=tmp_path
    )
    assert result.returncode == 2
    assert "--to-env: not allowed with argument --to-file" in result.stderr
