"""`errfix lint PATH…`: the command over the checks in bot.store.lint.

Named like bot.store.lint because it is that module's command: arguments and output here, the
checks there. Unlike the other commands it reads a database only when `--db` names one.
"""

from __future__ import annotations

from pathlib import Path

import click

from bot.cli.options import db_option, settings
from bot.errors import InvalidInput
from bot.service.errfix import Errfix
from bot.store.files import DEFAULT_MAX_BYTES
from bot.store.lint import lint as lint_files
from bot.store.store import Store

EXIT_PROBLEMS = 2


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, show_default=True, help="largest file read")
@db_option("also accept transition-graph links to ids in this database (default: none)")
@click.pass_context
def lint(ctx: click.Context, paths: tuple[str, ...], max_bytes: int, db: str | None) -> None:
    """report quality problems in record files or folders (exit 2 if any)"""
    settings()  # every command stops on a malformed setting, even one it does not use
    if db is None:
        result = lint_files(list(paths), max_bytes=max_bytes)
    else:
        if not Path(db).is_file():  # Store() would create it: lint writes nothing
            raise InvalidInput(f"{db}: no such database")
        svc = Errfix(Store(db))
        try:
            result = svc.lint(list(paths), max_bytes=max_bytes)
        finally:
            svc.close()
    for line in result.problems:
        click.echo(line)
    if result.problems:
        click.echo(f"{result.records} records, {len(result.problems)} problem(s)", err=True)
        ctx.exit(EXIT_PROBLEMS)
    click.echo(f"{result.records} records, no problems")


COMMANDS = (lint,)
