"""Where `tpquiz db copy` copies to, without putting the password on the command line.

A URL given as `--to postgresql://user:PASSWORD@host/db` is in the process's argv, which
every user of the machine can read (`ps`, /proc/PID/cmdline) while the copy runs, and in
the shell's history after it (issue 31). So the documented ways read the URL from a file
(`--to-file PATH`: a file only its owner reads, or a Docker or systemd secret) or from an
environment variable (`--to-env VAR`, found like every setting: the environment, then
the `.env` file; TPQUIZ_DATABASE_URL when no option is given). `--to` still works, but
one that carries a password gets a warning on stderr, which never shows the password.
"""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from bot.infra.config import ConfigError, DatabaseUrl, Settings, setting_values

__all__ = ["add_target_options", "copy_target"]

#: A URL file larger than this is not a URL file (and is not read into memory whole).
MAX_URL_FILE = 64 * 1024
EXAMPLE = "postgresql://user:password@host:5432/tpquiz"


def add_target_options(parser: argparse.ArgumentParser) -> None:
    """--to-file, --to-env and --to, exclusive of each other; none: TPQUIZ_DATABASE_URL."""
    target = parser.add_mutually_exclusive_group()
    target.add_argument(
        "--to-file",
        dest="target_file",
        metavar="PATH",
        help="read the PostgreSQL URL from this file, one line (keep it chmod 600)",
    )
    target.add_argument(
        "--to-env",
        dest="target_env",
        metavar="VAR",
        help="read the PostgreSQL URL from this environment variable (or the .env file)",
    )
    target.add_argument(
        "--to",
        dest="target",
        metavar="postgresql://...",
        help="the PostgreSQL URL itself; other local users see a password here (ps) and "
        "the shell history keeps it: prefer --to-file or --to-env (default: "
        "TPQUIZ_DATABASE_URL)",
    )


def copy_target(
    args: argparse.Namespace, settings: Callable[[], Settings], err: TextIO
) -> DatabaseUrl:
    """The target the options name; ConfigError (one line, no password) when unusable."""
    if args.target is not None:
        given = DatabaseUrl.parse(args.target, "--to")
        if given.password:
            err.write(
                "tpquiz db copy: warning: --to holds the database password, which other "
                "users of this machine can read (ps) and your shell history keeps: give "
                "the URL with --to-file PATH or --to-env VAR instead\n"
            )
        return given
    if args.target_file is not None:
        path = Path(args.target_file)
        return DatabaseUrl.parse(_read_url_file(path), f"the URL in {path} (--to-file)")
    if args.target_env is not None:
        return _from_variable(args)
    url = settings().database_url
    if url is None:
        raise ConfigError(
            f"say where to copy to: --to-file PATH (a file holding {EXAMPLE}), "
            "--to-env VAR (a variable holding it), or set TPQUIZ_DATABASE_URL"
        )
    return url


def _from_variable(args: argparse.Namespace) -> DatabaseUrl:
    name = args.target_env
    env_file = Path(args.env_file) if args.env_file is not None else Path(".env")
    values = setting_values(env_file=env_file, env_file_required=args.env_file is not None)
    text = values.get(name, "").strip()
    if not text:
        raise ConfigError(
            f"--to-env {name}: {name} is not set (in the environment or the .env file): "
            f"set it to {EXAMPLE}"
        )
    return DatabaseUrl.parse(text, name)


def _read_url_file(path: Path) -> str:
    """The one line of `path`; its content is never quoted in an error (it is a secret)."""
    where = f"--to-file {path}"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read it ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{where} is not a regular file: name the file holding the URL")
    if info.st_size > MAX_URL_FILE:
        raise ConfigError(f"{where} holds {info.st_size} bytes: put only the URL in it")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise ConfigError(
            f"{where}: cannot read it ({exc.strerror}): check its owner and mode"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(f"{where} is not UTF-8 text: save the URL as UTF-8") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise ConfigError(f"{where} is empty: put the URL in it, {EXAMPLE}")
    if len(lines) > 1:
        raise ConfigError(f"{where} holds {len(lines)} lines: put only the URL in it, on one line")
    return lines[0]
