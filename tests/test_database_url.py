"""TPQUIZ_DATABASE_URL (bot/infra/config.py): parsed, and its password never shown (issue 15)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.infra.config import ConfigError, DatabaseUrl, Settings, redact_url
from tests.test_cli import FAKE_TOKEN, tpquiz

SECRET = "s3cr3t-Pa55"
URL = f"postgresql://tpquiz:{SECRET}@db.internal:5432/tpquiz"


def test_the_url_is_read_from_the_environment() -> None:
    settings = Settings.from_env({"TPQUIZ_DATABASE_URL": URL}, env_file=None)
    assert settings.database_url is not None
    assert settings.database_url.dsn == URL
    assert Settings.from_env({}, env_file=None).database_url is None


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (URL, "postgresql://tpquiz:***@db.internal:5432/tpquiz"),
        ("postgres://u:p%40ss@h/d", "postgres://u:***@h/d"),
        ("postgresql://u:with@at@h/d", "postgresql://u:***@h/d"),  # an unencoded '@'
        ("postgresql://u@h/d", "postgresql://u@h/d"),  # no password: nothing to hide
        ("postgresql://h/d?user=u&password=pw", "postgresql://h/d?user=u&password=***"),
    ],
)
def test_the_redacted_form_replaces_the_password(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    assert str(DatabaseUrl(url)) == shown
    assert repr(DatabaseUrl(url)) == f"DatabaseUrl({shown!r})"


def test_the_password_is_not_in_the_settings_repr_nor_in_log_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = Settings.from_env({"TPQUIZ_DATABASE_URL": URL}, env_file=None)
    assert SECRET not in repr(settings)
    assert SECRET not in str(settings.database_url) + repr(settings.database_url)
    caplog.set_level(logging.INFO)
    log = logging.getLogger("tpquiz.test")
    log.info("database %s", settings.database_url)
    log.info("settings %r", settings)
    assert "postgresql://tpquiz:***@db.internal:5432/tpquiz" in caplog.text
    assert SECRET not in caplog.text


def test_a_driver_error_is_scrubbed() -> None:
    url = DatabaseUrl("postgresql://u:p%40ss@h/d")
    text = url.scrub("could not connect to postgresql://u:p%40ss@h/d (password p@ss)")
    assert text == "could not connect to postgresql://u:***@h/d (password ***)"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            f"mysql://root:{SECRET}@h/d",
            "TPQUIZ_DATABASE_URL must start with postgresql://, not 'mysql'",
        ),
        (
            "sqlite:///data/tpquiz.sqlite3",
            "TPQUIZ_DATABASE_URL must start with postgresql://, not 'sqlite' (for SQLite, set "
            "TPQUIZ_DB to the file's path)",
        ),
        (
            f"postgresql://u:{SECRET}@h:port/d",
            "TPQUIZ_DATABASE_URL is not a valid URL (postgresql://u:***@h:port/d)",
        ),
        (
            f"postgresql://u:{SECRET}@h:5432",
            "TPQUIZ_DATABASE_URL names no database (postgresql://u:***@h:5432)",
        ),
    ],
)
def test_a_bad_url_is_refused_without_its_password(url: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"TPQUIZ_DATABASE_URL": url}, env_file=None)
    assert str(caught.value).startswith(message)
    assert SECRET not in str(caught.value)


def test_run_refuses_an_unusable_postgresql_in_one_line(tmp_path: Path) -> None:
    """Because nothing listens on loopback port 1."""
    url = f"postgresql://tpquiz:{SECRET}@127.0.0.1:1/tpquiz"
    result = tpquiz("run", cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DATABASE_URL=url)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1, result.stderr
    shown = "postgresql://tpquiz:***@127.0.0.1:1/tpquiz"
    expected = f"tpquiz: cannot connect to PostgreSQL at {shown} ("
    assert result.stderr.startswith(expected), result.stderr
    assert SECRET not in result.stderr + result.stdout
    assert not (tmp_path / "data").exists()  # nothing was created on the way


# A password holding an unescaped / ? # or @ (issue 31, defect 3): a URL parser ends the
# user part early and shows the rest as host or path, so redaction goes by the raw text.
#: Password pieces, each distinctive enough that finding it in output means a leak.
PIECES = ("Tr0ub4dor", "Xk9qWv", "3xyzQ")


def _unescaped(sep: str, at_first: bool = False) -> str:
    """A URL whose password holds `sep` unescaped (and, with `at_first`, an '@' before it)."""
    first, middle, last = PIECES
    password = f"{first}@{middle}{sep}{last}" if at_first else f"{first}{sep}{last}"
    return f"postgresql://tpq:{password}@127.0.0.1:1/tpquiz"


UNESCAPED = [
    pytest.param(_unescaped(sep, at_first), id=f"{name}{'-after-at' if at_first else ''}")
    for sep, name in (("/", "slash"), ("?", "question"), ("#", "hash"))
    for at_first in (False, True)
]


@pytest.mark.parametrize("url", UNESCAPED)
def test_an_unescaped_password_is_refused_and_never_shown(url: str) -> None:
    assert redact_url(url) == "postgresql://tpq:***@127.0.0.1:1/tpquiz"
    with pytest.raises(ConfigError) as caught:
        DatabaseUrl.parse(url)
    message = str(caught.value)
    assert message.startswith(
        "TPQUIZ_DATABASE_URL is not a valid URL (postgresql://tpq:***@127.0.0.1:1/tpquiz): "
    ), message
    assert message.endswith("in the password write / ? # @ as %2F %3F %23 %40")
    assert not any(piece in message for piece in PIECES), message


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://h/d?password=p@Xk9qWv", "postgresql://h/d?password=***"),
        ("//tpq:Tr0ub4dor@h/d", "//tpq:***@h/d"),  # no scheme
        ("tpq:Tr0ub4dor@h/d", "tpq:***@h/d"),  # no "//": "tpq" is the user, not a scheme
        # Both readings hidden: the user part's password, and a password= parameter.
        ("postgresql://tpq:Tr0ub4dor?password=Xk9qWv@h/d", "postgresql://tpq:***"),
    ],
)
def test_redaction_goes_by_the_raw_text(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"TPQUIZ_DATABASE_URL": url}, env_file=None)
    assert "Tr0ub4dor" not in str(caught.value) and "Xk9qWv" not in str(caught.value)


#: Every command that reads TPQUIZ_DATABASE_URL, with the arguments it needs, its exit
#: status for a setting that is wrong, and where it says so.
COMMANDS = [
    pytest.param(args, status, stream, id="-".join(args))
    for args, status, stream in (
        (("run",), 2, "stderr"),
        (("doctor", "--offline"), 2, "stdout"),
        (("leaderboard", "--guild", "1"), 2, "stderr"),
        (("forget-user", "--user", "1"), 2, "stderr"),
        (("backup", "backups"), 2, "stderr"),
        (("db", "status"), 2, "stderr"),
        (("health",), 1, "stdout"),
    )
]


@pytest.mark.parametrize(("args", "status", "stream"), COMMANDS)
@pytest.mark.parametrize("url", [_unescaped("/"), _unescaped("/", at_first=True)])
def test_no_command_prints_an_unescaped_password(
    tmp_path: Path, args: tuple[str, ...], status: int, stream: str, url: str
) -> None:
    result = tpquiz(*args, cwd=tmp_path, DISCORD_TOKEN=FAKE_TOKEN, TPQUIZ_DATABASE_URL=url)
    said = getattr(result, stream)
    if args[0] == "doctor":  # doctor names its build first, then the failed check
        first, _, said = said.partition("\n")
        assert first.startswith("doctor: tpquiz "), first
    assert result.returncode == status, result.stderr + result.stdout
    assert said.count("\n") == 1, said
    assert "postgresql://tpq:***@127.0.0.1:1/tpquiz" in said
    assert "%2F %3F %23 %40" in said
    output = result.stdout + result.stderr
    assert not any(piece in output for piece in PIECES), output
    assert "Traceback" not in output


@pytest.mark.parametrize("url", [_unescaped("?"), _unescaped("#", at_first=True)])
def test_db_status_hides_a_password_with_a_question_mark_or_a_hash(
    tmp_path: Path, url: str
) -> None:
    result = tpquiz("db", "status", cwd=tmp_path, TPQUIZ_DATABASE_URL=url)
    assert result.returncode == 2
    assert result.stderr.startswith(
        "tpquiz db status: TPQUIZ_DATABASE_URL is not a valid URL "
        "(postgresql://tpq:***@127.0.0.1:1/tpquiz)"
    )
    assert not any(piece in result.stdout + result.stderr for piece in PIECES)
