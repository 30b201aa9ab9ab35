"""Settings that cannot be used, on every command that reads them (issue 10, items 11,
17, 19): one line, exit 2 (health: 1, as Docker reserves 2), no traceback, nothing written.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bot.infra import config
from bot.infra.config import ConfigError, Settings
from bot.infra.version import build_line
from bot.ops.health import HEARTBEAT_INTERVAL
from tests.test_cli import FAKE_TOKEN, tpquiz

#: Every command that reads settings, with the arguments it needs, and its prefix.
COMMANDS = [
    (("run",), "tpquiz: ", 2),
    (("backup", "out.sqlite3"), "tpquiz backup: ", 2),
    (("restore", "in.sqlite3"), "tpquiz restore: ", 2),
]
#: doctor names the build first, even when the settings cannot be read (issue 32).
DOCTOR = f"doctor: {build_line()}\n"


def _one_line(result: object, expected: str, status: int) -> None:
    out = result.stdout + result.stderr  # type: ignore[attr-defined]
    assert result.returncode == status, out  # type: ignore[attr-defined]
    assert out == expected + "\n"
    assert "Traceback" not in out


# -- item 11: a .env that is not UTF-8, or cannot be read ---------------------------------


@pytest.mark.parametrize(("argv", "prefix", "status"), COMMANDS)
def test_a_dotenv_that_is_not_utf8(
    tmp_path: Path, argv: tuple[str, ...], prefix: str, status: int
) -> None:
    (tmp_path / ".env").write_bytes(b"TPQUIZ_LOG_LEVEL=INFO\nTPQUIZ_DB=caf\xe9.sqlite3\n")
    result = tpquiz(*argv, cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN)
    message = ".env: line 2 is not UTF-8 (byte 0xe9): save the file as UTF-8"
    _one_line(result, prefix + message, status)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".env"]


def test_doctor_and_health_on_a_dotenv_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"\xff\xfeT\x00")
    message = ".env: line 1 is not UTF-8 (byte 0xff): save the file as UTF-8"
    _one_line(tpquiz("doctor", "--offline", cwd=tmp_path), f"{DOCTOR}FAIL settings: {message}", 2)
    _one_line(tpquiz("health", cwd=tmp_path), f"unhealthy: settings: {message}", 1)


def test_a_dotenv_that_cannot_be_read() -> None:
    """Root reads any file, so unreadable is a path that fails to read: a directory
    named with --env-file, and read_bytes failing as it does for EACCES."""
    with pytest.raises(ConfigError) as raised:
        config.read_env_file(Path("/"), required=True)
    assert str(raised.value) == "/ is not a regular file: name the settings file"


def test_an_unreadable_dotenv_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = tmp_path / ".env"
    env.write_text("TPQUIZ_LOG_LEVEL=INFO\n")

    def denied(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({}, env_file=env)
    assert (
        str(raised.value) == f"{env}: cannot read it (Permission denied): check its owner and mode"
    )


def test_a_dotenv_directory_is_ignored_unless_named(tmp_path: Path) -> None:
    (tmp_path / ".env").mkdir()  # `python -m venv .env` is common
    assert Settings.from_env({}, env_file=tmp_path / ".env").log_level == "INFO"


# -- item 17: numbers in range ------------------------------------------------------------


@pytest.mark.parametrize("value", ["-5", "0", "nan", "inf", "-inf", "0.1", "1e9", "soon"])
def test_count_edit_interval_is_range_checked(value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({"TPQUIZ_COUNT_EDIT_INTERVAL": value}, env_file=None)
    assert str(raised.value) == (
        f"TPQUIZ_COUNT_EDIT_INTERVAL must be a number of seconds from 0.5 to 3600, not {value!r}"
    )


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1", "10", "1e12"])
def test_health_max_age_is_range_checked(value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({"TPQUIZ_HEALTH_MAX_AGE": value}, env_file=None)
    assert str(raised.value) == (
        f"TPQUIZ_HEALTH_MAX_AGE must be a number of seconds from 30 to 604800, not {value!r}"
    )


def test_the_accepted_numbers_still_work() -> None:
    settings = Settings.from_env(
        {"TPQUIZ_COUNT_EDIT_INTERVAL": "0.5", "TPQUIZ_HEALTH_MAX_AGE": "30"}, env_file=None
    )
    assert settings.count_edit_interval == 0.5 and settings.health_max_age == 30
    # The health floor is two heartbeats; the two constants must not drift apart.
    assert config.HEALTH_MAX_AGE_RANGE[0] == 2 * HEARTBEAT_INTERVAL


def test_a_long_bad_value_is_shown_bounded() -> None:
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({"TPQUIZ_COUNT_EDIT_INTERVAL": "9" * 5000}, env_file=None)
    assert len(str(raised.value)) < 150


@pytest.mark.parametrize("value", ["0", "-3", "9223372036854775808", "1²", "12abc"])
def test_sync_guild_ids_are_snowflakes(value: str) -> None:
    with pytest.raises(ConfigError, match="TPQUIZ_SYNC_GUILDS must be guild ids"):
        Settings.from_env({"TPQUIZ_SYNC_GUILDS": f"123,{value}"}, env_file=None)


def test_parse_number_refuses_non_finite_numbers() -> None:
    for text in ("nan", "inf", "-inf", "NaN"):
        with pytest.raises(ValueError, match="must be a value from 0 to 1, not"):
            config.parse_number(text, "a value", 0, 1)
    assert config.parse_number("1", "a value", 0, 1, integer=True) == 1
    assert not math.isnan(config.parse_number("0.5", "a value", 0, 1))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("health", "--max-age", "nan"), "argument --max-age: must be a number of seconds from 30 to 604800, not 'nan'"),
        (("health", "--max-age", "inf"), "argument --max-age: must be a number of seconds from 30 to 604800, not 'inf'"),
        (("backup", "dir/", "--keep", "0"), "argument --keep: must be a whole number of backups from 1 to 100000, not '0'"),
        (("backup", "dir/", "--keep", "-1"), "argument --keep: must be a whole number of backups from 1 to 100000, not '-1'"),
    ],
)  # fmt: skip
def test_numeric_flags_are_range_checked(
    tmp_path: Path, argv: tuple[str, ...], expected: str
) -> None:
    result = tpquiz(*argv, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == f"tpquiz {argv[0]}: error: {expected}"
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


# -- item 19: a named --env-file must exist; doctor creates nothing ------------------------


@pytest.mark.parametrize("command", ["doctor", "backup", "restore", "health"])
def test_a_missing_env_file_is_an_error(tmp_path: Path, command: str) -> None:
    argv = {"backup": ("out.sqlite3",), "restore": ("in.sqlite3",)}.get(command, ())
    result = tpquiz(command, *argv, "--env-file", "/etc/tpquiz/missing.env", cwd=tmp_path)
    message = "/etc/tpquiz/missing.env: no such file (named with --env-file)"
    expected = {
        "doctor": (f"{DOCTOR}FAIL settings: {message}", 2),
        "health": (f"unhealthy: settings: {message}", 1),
    }.get(command, (f"tpquiz {command}: {message}", 2))
    _one_line(result, *expected)
    assert list(tmp_path.iterdir()) == []  # above all, no data/tpquiz.sqlite3


def test_doctor_does_not_create_a_database(tmp_path: Path) -> None:
    result = tpquiz("doctor", "--offline", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN)
    assert "ok   database: no database at data/tpquiz.sqlite3 yet: tpquiz run creates it there" in (
        result.stdout
    )
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("value", ["-1", "3651", "1.5", "30d", "nan", "²"])
def test_guild_retention_days_is_range_checked(value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({"TPQUIZ_GUILD_RETENTION_DAYS": value}, env_file=None)
    assert str(raised.value) == (
        f"TPQUIZ_GUILD_RETENTION_DAYS must be a number of days from 0 to 3650, not {value!r}"
    )


def test_guild_retention_days_default_and_set() -> None:
    assert Settings.from_env({}, env_file=None).guild_retention_days == 30
    env = {"TPQUIZ_GUILD_RETENTION_DAYS": "0"}
    assert Settings.from_env(env, env_file=None).guild_retention_days == 0
