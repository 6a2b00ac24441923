"""What every command shares: the `--db` option and the settings it loads through it.

Every command calls `settings(db)` first, so a malformed setting stops any of them with one line
(bot.config raises `ConfigError`, bot.cli.main prints it), and every command that touches the
database finds it by bot.config's one rule.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable
from typing import Any, TypeVar

import click

from bot.config import Settings, load_settings
from bot.service.errfix import Errfix

F = TypeVar("F", bound=Callable[..., Any])
DB_HELP = "database path (default: $ERRFIX_DB, else ERRFIX_DB in .env, else ./errfix.db)"


def db_option(help_text: str = DB_HELP) -> Callable[[F], F]:
    """`--db PATH` on a command (it comes after the command name, as `errfix stats --db x.db`)."""
    return click.option("--db", metavar="PATH", default=None, help=help_text)


json_option = click.option("--json", "as_json", is_flag=True, help="one JSON object")


def echo(text: str, *, err: bool = False) -> None:
    """`text` as one line (or lines) on stdout or stderr: a newline only if it has none at the end."""
    click.echo(text, nl=not text.endswith("\n"), err=err)


def settings(db: str | None = None, *, env_file: str | None = ".env") -> Settings:
    """The settings of this run: `.env`, under the environment, under `--db`."""
    return load_settings(env_file=env_file, db=db)


def cli_actor() -> str:
    """`cli:<login>`: who ran this command, as the audit trail names them."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no login name (a container user without a passwd entry)
        return "cli:unknown"


def errfix(db: str | None) -> Errfix:
    """The use cases over the database this run names (created and seeded when new); what it
    changes is audited as `cli:<login>`'s."""
    return Errfix.open(settings(db).db_path, actor=cli_actor())
